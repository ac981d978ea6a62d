"""The adopted rule reaches each real agent's model exactly once.

A project used by Claude Code, Codex, Copilot CLI, Gemini CLI, OpenCode, Pi and Qwen Code has a
night and an adoption (through the CLI); then each real CLI, pinned and offline, answers one
prompt in a copy of that project (one night and adoption serve the seven) against the loopback
model server, and the rule's text is counted in
every request the model got: once in each that carries the project's instructions (side
requests, such as a session title, carry none). Without the placement Copilot would get it twice
(CLAUDE.md and AGENTS.md), and Codex and Gemini never (the sample project has no AGENTS.md).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.cli import main
from skillopt_sleep.testing import ModelServer, Responder, Text
from skillopt_sleep.testing.agents import AgentRun, run_claude, run_codex, which_claude, which_codex
from skillopt_sleep.testing.copilot_agent import run_copilot, which_copilot
from skillopt_sleep.testing.gemini_agent import run_gemini, which_gemini
from skillopt_sleep.testing.gemini_agent import scripted as gemini_scripted
from skillopt_sleep.testing.opencode_agent import run_opencode, which_opencode
from skillopt_sleep.testing.pi_agent import run_pi, which_pi
from skillopt_sleep.testing.qwen_agent import run_qwen, which_qwen

from .test_rule_reaches_every_agent import memory_rules, night, project_used_by

pytestmark = [pytest.mark.realbin, pytest.mark.slow]

PINNED = Path(__file__).resolve().parents[2] / ".tools" / "node_modules" / ".bin"
USED_BY = ("claude-code", "codex", "copilot", "gemini", "opencode", "pi", "qwen")


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON request body (texts, system prompts, tool results)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


Runner = Callable[..., AgentRun]
AGENTS: dict[str, tuple[Callable[[], str | None], Runner]] = {
    "claude": (which_claude, lambda **kw: run_claude("hello", allowed_tools="", **kw)),
    "codex": (which_codex, lambda **kw: run_codex("hello", **kw)),
    "copilot": (which_copilot, lambda **kw: run_copilot("hello", **kw)),
    "gemini": (which_gemini, lambda **kw: run_gemini("hello", **kw)),
    "opencode": (which_opencode, lambda **kw: run_opencode("hello", **kw)),
    "pi": (which_pi, lambda **kw: run_pi("hello", **kw)),
    "qwen": (which_qwen, lambda **kw: run_qwen("hello", **kw)),
}
# What the model answers: "ok" to every call, but Gemini CLI's model router asks a JSON question
# first, which a plain text answer fails: the CLI retries it five times with backoff (about 100 s)
# before it falls back to its default model. Its scripted responder answers the router in JSON.
RESPONDERS: dict[str, Callable[[], Responder]] = {"gemini": lambda: gemini_scripted([Text("ok")])}


@dataclass
class Done:
    """What the CLI, run in-process, returned and printed."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


@pytest.fixture(scope="module")
def adopted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The project after its night and its adoption (through the CLI, in a home of its own), a
    git repository; and the rules adopted. Each agent runs in a copy of it."""
    root = tmp_path_factory.mktemp("adopted")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SKILLOPT_SLEEP_HOME", str(root / "sleep-home"))
        env.setenv("HOME", str(root))
        for var in list(os.environ):
            if var.startswith("SKILLOPT_SLEEP_") and var != "SKILLOPT_SLEEP_HOME":
                env.delenv(var)

        def cli(*argv: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Done:
            out, err = io.StringIO(), io.StringIO()
            code = main(
                list(argv),
                env={**os.environ, **(env or {})},
                stdin=io.StringIO(""),
                stdout=out,
                stderr=err,
                cwd=cwd or root,
            )
            return Done(code, out.getvalue(), err.getvalue())

        project = project_used_by(root, *USED_BY)
        summary = night(cli, project)
        assert cli("adopt", cwd=project).code == 0
    rules = memory_rules(summary)
    assert rules
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    return project, rules


@pytest.mark.parametrize("agent", list(AGENTS))
def test_the_adopted_rule_reaches_the_model_once(agent, adopted, tmp_path, monkeypatch):
    if PINNED.is_dir():
        monkeypatch.setenv("PATH", f"{PINNED}{os.pathsep}{os.environ['PATH']}")
    which, run = AGENTS[agent]
    if which() is None:
        pytest.skip(f"{agent} is not installed")
    adopted_project, rules = adopted
    project = tmp_path / "project"
    shutil.copytree(adopted_project, project, symlinks=True)

    responder = RESPONDERS.get(agent, lambda: lambda call: Text("ok"))()
    with ModelServer(responder=responder) as server:
        done = run(home=tmp_path / "agent-home", url=server.url, cwd=project, timeout=240)
        assert done.code == 0, done.err[-2000:]
        bodies = [r.body for r in server.model_requests()]
    for rule in rules:
        counts = [sum(text.count(rule) for text in strings(body)) for body in bodies]
        assert 1 in counts and set(counts) <= {0, 1}, (agent, rule, counts)
