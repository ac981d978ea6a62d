"""A stand-in for the agent CLIs inside a replay, for benchmarks that need many nights: a
:class:`~skillopt_sleep.backends.runner.Runner` that reads the prompt and the copy from the
(sandbox-wrapped) argv, lets the acting world decide what the agent does under the instruction
files in the copy, does it there (a file written; a command recorded, not run) and prints what
the real CLI would (Claude's stream-json or codex's ``--json`` events). No sandbox is entered and
no model server is called: it measures the night's statistics, not the confinement (the tests
with the real binaries do that).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..backends.runner import RunResult
from .acting_world import Act, ActingWorld


def _after(argv: Sequence[str], flag: str) -> str:
    i = list(argv).index(flag)
    return argv[i + 1]


def _instructions(copy: Path, agent: str) -> str:
    names = (
        ["CLAUDE.md", ".claude/skills"] if agent == "claude" else ["AGENTS.md", ".agents/skills"]
    )
    parts = []
    for name in names:
        path = copy / name
        files = sorted(path.rglob("SKILL.md")) if path.is_dir() else [path]
        parts += [f.read_text(encoding="utf-8") for f in files if f.is_file()]
    return "\n".join(parts)


class SimAgentRunner:
    """Plays ``claude -p`` / ``codex exec`` for :func:`~skillopt_sleep.agent_replay.agent_rollout`."""

    def __init__(self, world: ActingWorld, cost_usd: float | None = None) -> None:
        self.world = world
        self.cost_usd = cost_usd  # what Claude Code reports a run cost (None: it reports none)
        self.runs = 0

    async def run(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: str | None = None,
        stdin: str | None = None,
        timeout: float = 120.0,
    ) -> RunResult:
        copy = Path(_after(argv, "--chdir"))
        inner = list(argv)[list(argv).index("--", list(argv).index("--") + 1) + 1 :]
        agent = "claude" if Path(inner[0]).name == "claude" else "codex"
        prompt = _after(inner, "-p") if agent == "claude" else inner[-1]
        act = self.world.decide(prompt, _instructions(copy, agent))
        self.runs += 1
        tokens_in = 4000 + len(_instructions(copy, agent)) // 4
        if act is not None and act.path:
            (copy / act.path).parent.mkdir(parents=True, exist_ok=True)
            (copy / act.path).write_text(act.content, encoding="utf-8")
        return RunResult(
            0,
            _claude(act, copy, tokens_in, self.cost_usd)
            if agent == "claude"
            else _codex(act, tokens_in),
        )


def _claude(act: Act | None, copy: Path, tokens_in: int, cost_usd: float | None) -> str:
    lines: list[dict[str, Any]] = []
    if act is not None:
        tool = (
            {"name": "Bash", "input": {"command": act.command}}
            if act.command
            else {
                "name": "Write",
                "input": {"file_path": str(copy / act.path), "content": act.content},
            }
        )
        lines.append(
            {
                "type": "assistant",
                "message": {"content": [{"type": "tool_use", "id": "t1", **tool}]},
            }
        )
        lines.append(
            {
                "type": "user",
                "message": {
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "t1",
                            "content": "ok",
                            "is_error": False,
                        }
                    ]
                },
            }
        )
    result: dict[str, Any] = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": "Done.",
        "num_turns": 2,
        "usage": {"input_tokens": tokens_in, "output_tokens": 60},
    }
    if cost_usd is not None:
        result["total_cost_usd"] = cost_usd
    lines.append(result)
    return "\n".join(json.dumps(x) for x in lines) + "\n"


def _codex(act: Act | None, tokens_in: int) -> str:
    lines: list[dict[str, Any]] = [{"type": "thread.started", "thread_id": "sim"}]
    if act is not None and act.command:
        lines.append(
            {
                "type": "item.completed",
                "item": {
                    "type": "command_execution",
                    "command": act.command,
                    "exit_code": 0,
                    "status": "completed",
                },
            }
        )
    elif act is not None:
        lines.append(
            {
                "type": "item.completed",
                "item": {
                    "type": "file_change",
                    "status": "completed",
                    "changes": [{"path": act.path, "kind": "add"}],
                },
            }
        )
    lines += [
        {"type": "item.completed", "item": {"type": "agent_message", "text": "Done."}},
        {"type": "turn.completed", "usage": {"input_tokens": tokens_in, "output_tokens": 60}},
    ]
    return "\n".join(json.dumps(x) for x in lines) + "\n"
