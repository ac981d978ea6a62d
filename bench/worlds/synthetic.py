"""Synthetic transcripts in the real record formats, for tests and the harvest benchmark.

The records follow what claude 2.1 and codex 0.169 write (see the fixtures of real transcripts):
the same types, fields and layout, with made-up content. ``padding`` adds a bulky tool output
per turn, as real sessions have, to reach realistic file sizes.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from skillopt_sleep.harvest.claude_code import sanitise_cwd


@dataclass(frozen=True)
class SynthTurn:
    """One prompt and the agent's answer; optionally one shell command and its output."""

    prompt: str
    reply: str
    command: str | None = None
    output: str = ""
    exit_code: int = 0


def _stamp(t: datetime) -> str:
    return t.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _dump(record: dict[str, object]) -> str:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"


def claude_session(session_id: str, cwd: str, turns: list[SynthTurn], start: datetime) -> str:
    """A Claude Code transcript (``-p`` turns, each ending with a ``last-prompt`` record)."""
    common = {
        "isSidechain": False,
        "userType": "external",
        "entrypoint": "sdk-cli",
        "cwd": cwd,
        "sessionId": session_id,
        "version": "2.1.197",
        "gitBranch": "main",
    }
    out: list[str] = []
    t, parent = start, None
    for turn in turns:
        prompt_id, prev = str(uuid.uuid4()), parent
        out.append(
            _dump(
                {
                    "type": "queue-operation",
                    "operation": "enqueue",
                    "timestamp": _stamp(t),
                    "sessionId": session_id,
                    "content": turn.prompt,
                }
            )
        )
        parent = str(uuid.uuid4())
        out.append(
            _dump(
                {
                    "parentUuid": prev,
                    **common,
                    "promptId": prompt_id,
                    "type": "user",
                    "message": {"role": "user", "content": turn.prompt},
                    "uuid": parent,
                    "timestamp": _stamp(t),
                    "permissionMode": "default",
                    "promptSource": "sdk",
                }
            )
        )
        if turn.command is not None:
            t += timedelta(seconds=1)
            tool_id = "toolu_" + uuid.uuid4().hex[:24]
            parent = _claude_assistant(
                out,
                common,
                parent,
                t,
                {
                    "type": "tool_use",
                    "id": tool_id,
                    "name": "Bash",
                    "input": {"command": turn.command, "description": "run"},
                },
            )
            result = {
                "tool_use_id": tool_id,
                "type": "tool_result",
                "content": turn.output,
                "is_error": turn.exit_code != 0,
            }
            uid = str(uuid.uuid4())
            out.append(
                _dump(
                    {
                        "parentUuid": parent,
                        **common,
                        "promptId": prompt_id,
                        "type": "user",
                        "message": {"role": "user", "content": [result]},
                        "uuid": uid,
                        "timestamp": _stamp(t),
                        "sourceToolAssistantUUID": parent,
                        "toolUseResult": {
                            "stdout": turn.output,
                            "stderr": "",
                            "interrupted": False,
                            "isImage": False,
                            "noOutputExpected": False,
                        },
                    }
                )
            )
            parent = uid
        t += timedelta(seconds=1)
        parent = _claude_assistant(out, common, parent, t, {"type": "text", "text": turn.reply})
        out.append(
            _dump(
                {
                    "type": "last-prompt",
                    "lastPrompt": turn.prompt,
                    "leafUuid": parent,
                    "sessionId": session_id,
                }
            )
        )
        t += timedelta(seconds=5)
    return "".join(out)


def _claude_assistant(
    out: list[str],
    common: dict[str, object],
    parent: str | None,
    t: datetime,
    block: dict[str, object],
) -> str:
    uid = str(uuid.uuid4())
    message = {
        "id": "msg_" + uuid.uuid4().hex[:24],
        "type": "message",
        "role": "assistant",
        "model": "claude-opus-4-8",
        "content": [block],
        "stop_reason": "tool_use" if block["type"] == "tool_use" else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 19523, "output_tokens": 45},
    }
    out.append(
        _dump(
            {
                "parentUuid": parent,
                **common,
                "message": message,
                "requestId": "req_" + uuid.uuid4().hex[:24],
                "type": "assistant",
                "uuid": uid,
                "timestamp": _stamp(t),
            }
        )
    )
    return uid


def codex_rollout(
    thread_id: str, cwd: str, turns: list[SynthTurn], start: datetime, *, meta: bool = True
) -> str:
    """A Codex 0.169 rollout: ``session_meta``, then per turn the injected context, the prompt
    (as a response item and a ``UserMessage`` item), tool calls and the agent's message.
    ``meta=False`` gives what ``codex exec resume`` appends (no new ``session_meta``)."""
    out: list[str] = []
    ordinal = 0

    def emit(t: datetime, kind: str, payload: dict[str, object]) -> None:
        nonlocal ordinal
        out.append(
            _dump({"timestamp": _stamp(t), "ordinal": ordinal, "type": kind, "payload": payload})
        )
        ordinal += 1

    def completed(t: datetime, turn_id: str, item: dict[str, object]) -> None:
        payload = {"type": "item_completed", "thread_id": thread_id, "turn_id": turn_id}
        emit(t, "event_msg", {**payload, "item": item})

    if meta:
        emit(
            start,
            "session_meta",
            {
                "session_id": thread_id,
                "id": thread_id,
                "timestamp": _stamp(start),
                "cwd": cwd,
                "originator": "codex_exec",
                "cli_version": "0.169.0",
                "source": "exec",
                "model_provider": "local",
                "base_instructions": {"text": "You are Codex."},
                "history_mode": "paginated",
            },
        )
    t = start
    for turn in turns:
        turn_id = str(uuid.uuid4())
        emit(t, "event_msg", {"type": "task_started", "turn_id": turn_id})
        emit(
            t,
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": f"<environment_context>\n  <cwd>{cwd}</cwd>\n</environment_context>",
                    }
                ],
            },
        )
        emit(t, "turn_context", {"turn_id": turn_id, "cwd": cwd, "model": "gpt-5.5"})
        emit(
            t,
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": turn.prompt}],
            },
        )
        completed(
            t,
            turn_id,
            {
                "type": "UserMessage",
                "id": str(uuid.uuid4()),
                "content": [{"type": "text", "text": turn.prompt}],
            },
        )
        if turn.command is not None:
            t += timedelta(seconds=1)
            call_id = "call_" + uuid.uuid4().hex[:24]
            emit(
                t,
                "response_item",
                {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": json.dumps({"cmd": turn.command}),
                    "call_id": call_id,
                },
            )
            completed(
                t,
                turn_id,
                {
                    "type": "CommandExecution",
                    "id": call_id,
                    "command": ["/bin/bash", "-lc", turn.command],
                    "cwd": f"file://{cwd}",
                    "status": "completed",
                    "aggregated_output": turn.output,
                    "exit_code": turn.exit_code,
                },
            )
            emit(
                t,
                "response_item",
                {
                    "type": "function_call_output",
                    "call_id": call_id,
                    "output": f"Process exited with code {turn.exit_code}\nOutput:\n{turn.output}",
                },
            )
        t += timedelta(seconds=1)
        completed(
            t,
            turn_id,
            {
                "type": "AgentMessage",
                "id": "msg_" + uuid.uuid4().hex[:24],
                "content": [{"type": "Text", "text": turn.reply}],
            },
        )
        emit(
            t,
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": turn.reply}],
            },
        )
        emit(
            t,
            "event_msg",
            {"type": "task_complete", "turn_id": turn_id, "last_agent_message": turn.reply},
        )
        t += timedelta(seconds=5)
    return "".join(out)


def claude_path(claude_root: Path, cwd: str, session_id: str) -> Path:
    """Where Claude Code keeps a session of ``cwd``."""
    return claude_root / "projects" / sanitise_cwd(cwd) / f"{session_id}.jsonl"


def codex_path(codex_root: Path, thread_id: str, local_start: datetime) -> Path:
    """Where Codex keeps a rollout started at ``local_start`` (dated in the local time zone)."""
    day = local_start.strftime("%Y/%m/%d")
    stamp = local_start.strftime("%Y-%m-%dT%H-%M-%S")
    return codex_root / "sessions" / day / f"rollout-{stamp}-{thread_id}.jsonl"


def write(path: Path, text: str, *, append: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a" if append else "w", encoding="utf-8") as fh:
        fh.write(text)
    return path
