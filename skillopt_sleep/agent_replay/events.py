"""The actions of a replayed rollout, read from the agent's own output: Claude Code's
``--output-format stream-json`` and ``codex exec --json`` events. Pure."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Any

from ..harvest import actions as acts
from ..harvest.codex import command_text
from ..harvest.session import Turn
from ..models import Action, ActionKind


@dataclass(frozen=True)
class AgentOutput:
    """What one agent run said and did, and what it cost."""

    text: str
    actions: tuple[Action, ...]
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    turns: int = 0
    error: str = ""  # the agent's own report of a failed run ("" when it finished)
    turn_limit: bool = False  # the run was stopped at its turn limit
    model: str = ""  # the model that answered, as the agent's output names it ("" when it does not)


def json_objects(stdout: str) -> list[dict[str, Any]]:
    """The JSON objects of an agent's line-per-event output, skipping any other line. Lines end
    at a newline only: a JSON string may hold a raw U+2028, which ``str.splitlines`` would cut."""
    out = []
    for line in stdout.split("\n"):
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def stopped_by_proxy(stdout: str) -> bool:
    """Whether the inner proxy's ``turn_limit`` event ends ``stdout`` (the agent counted no
    turns of its own)."""
    return any(o.get("type") == "turn_limit" for o in json_objects(stdout))


def _claude_tool(turn: Turn, block: dict[str, Any], pending: dict[str, acts.RawAction]) -> None:
    name = str(block.get("name") or "")
    raw_input = block.get("input")
    tool_input: dict[str, Any] = raw_input if isinstance(raw_input, dict) else {}
    path = str(tool_input.get("file_path") or tool_input.get("notebook_path") or "")
    if name == "Bash" and str(tool_input.get("command") or "").strip():
        pending[str(block.get("id"))] = acts.command(turn, str(tool_input["command"]), name)
    elif name == "Read":
        acts.file(turn, "read", path, name)
    elif name == "Write":
        written = acts.file(turn, "write", path, name, str(tool_input.get("content") or ""))
        if written is not None:  # its result says whether it wrote (see claude_output)
            pending[str(block.get("id"))] = written
    elif name in ("Edit", "MultiEdit", "NotebookEdit"):
        edited = acts.file(turn, "edit", path, name, str(tool_input.get("new_string") or ""))
        if edited is not None:
            pending[str(block.get("id"))] = edited
    elif name == "Grep" and tool_input.get("path"):
        acts.file(turn, "read", str(tool_input["path"]), name)


def claude_output(stdout: str, copy: str) -> AgentOutput:
    """Claude Code's stream-json: tool calls, their results, the final ``result`` record."""
    turn = Turn(0, 0, "")
    pending: dict[str, acts.RawAction] = {}
    result: dict[str, Any] = {}
    model = ""
    for obj in json_objects(stdout):
        record = obj.get("message")
        message: dict[str, Any] = record if isinstance(record, dict) else {}
        content = message.get("content")
        named = str(message.get("model") or "")
        if obj.get("type") == "assistant" and named and not named.startswith("<"):
            model = named  # "<synthetic>": Claude Code's own notices
        if obj.get("type") == "assistant" and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    _claude_tool(turn, block, pending)
        elif obj.get("type") == "user" and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    raw = pending.pop(str(block.get("tool_use_id")), None)
                    if raw is not None:
                        text = block.get("content")
                        text = text if isinstance(text, str) else json.dumps(text)
                        acts.finished(raw, is_error=block.get("is_error") is True, output=text)
        elif obj.get("type") == "result":
            result = obj
    usage = result.get("usage") or {}
    tokens_in = sum(
        int(usage.get(k) or 0)
        for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    cost = result.get("total_cost_usd")
    error = ""
    if not result:
        error = "claude wrote no result"
    elif result.get("is_error") or result.get("subtype") != "success":
        error = f"claude stopped: {result.get('subtype')}: {str(result.get('result') or '')[:200]}"
    return AgentOutput(
        str(result.get("result") or ""),
        tuple(acts.to_models(turn, copy)),
        tokens_in,
        int(usage.get("output_tokens") or 0),
        float(cost) if isinstance(cost, (int, float)) else None,
        int(result.get("num_turns") or 0),
        error,
        result.get("subtype") == "error_max_turns",
        model,
    )


def _unwrap(command: object) -> str:
    """``/bin/bash -lc 'pytest -q'`` -> ``pytest -q`` (codex --json gives the command as one string)."""
    if isinstance(command, list):
        return command_text(command)
    text = str(command or "")
    try:
        parts = shlex.split(text)
    except ValueError:
        return text
    return command_text(parts) if len(parts) == 3 and parts[1] in ("-lc", "-c") else text


def _codex_item(turn: Turn, item: dict[str, Any], texts: list[str]) -> None:
    """One completed item; a ``file_change`` whose status is not ``completed`` (a patch that
    did not apply) is recorded as failed: it changed nothing."""
    kind = item.get("type")
    if kind == "command_execution" and item.get("status") != "in_progress":
        code = item.get("exit_code")
        acts.command(
            turn,
            _unwrap(item.get("command")),
            "exec_command",
            code if isinstance(code, int) and not isinstance(code, bool) else None,
        )
    elif kind == "file_change":
        for change in item.get("changes") or []:
            if isinstance(change, dict) and change.get("path"):
                kinds: dict[str, ActionKind] = {"add": "write", "delete": "delete"}
                mapped = kinds.get(str(change.get("kind")), "edit")
                done = acts.file(turn, mapped, str(change["path"]), "apply_patch")
                if done is not None and item.get("status") not in (None, "completed"):
                    done.failed = True
    elif kind == "agent_message" and item.get("text"):
        texts.append(str(item["text"]))


def codex_output(stdout: str, copy: str) -> AgentOutput:
    """``codex exec --json``: completed items, the last agent message, ``turn.completed`` usage."""
    turn = Turn(0, 0, "")
    texts: list[str] = []
    tokens_in = tokens_out = turns = 0
    error, limited = "", False
    for obj in json_objects(stdout):
        kind = obj.get("type")
        if kind == "item.completed" and isinstance(obj.get("item"), dict):
            _codex_item(turn, obj["item"], texts)
        elif kind == "turn.completed":
            usage = obj.get("usage") or {}
            tokens_in += int(usage.get("input_tokens") or 0)
            tokens_out += int(usage.get("output_tokens") or 0)
            turns += 1
        elif kind in ("turn.failed", "error"):
            error = f"codex stopped: {json.dumps(obj.get('error') or obj.get('message'))[:200]}"
        elif kind == "turn_limit":
            error = (
                f"codex stopped at the turn limit: it began more than {obj.get('limit')} tool calls"
            )
            limited = True
            break
    if not turns and not error:
        error = "codex finished no turn"
    return AgentOutput(
        texts[-1] if texts else "",
        tuple(acts.to_models(turn, copy)),
        tokens_in,
        tokens_out,
        None,
        turns,
        error,
        limited,
    )
