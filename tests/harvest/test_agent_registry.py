"""The agent registry: every agent is one module, and one more needs nothing else.

The toy agent below is the whole of a new agent: its own JSONL format, a parser, a lister and
a root, registered from this module with ``agents.register``; ``skillopt-sleep harvest`` then
reads its sessions with cursors like the built-ins'.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.errors import UsageError
from skillopt_sleep.harvest import agents
from skillopt_sleep.harvest.jsonl import LineParser
from skillopt_sleep.harvest.scan import Problem
from skillopt_sleep.testing.opencode_agent import load_rows

from .conftest import TRANSCRIPTS

PROJECT = "/home/dev/work/toyapp"


class ToyParser(LineParser):
    """``{"type": "hello", "session", "cwd"}``, ``{"type": "ask", "text", "at"}``,
    ``{"type": "say", "text"}``: a session, a prompt, the agent's answer."""

    source = "toy"

    def record(self, kind: str, obj: dict[str, Any], offset: int) -> None:
        if kind == "hello":
            self.state.session_id, self.state.project = obj["session"], obj["cwd"]
        elif kind == "ask":
            self.start_turn(offset, obj["text"], obj.get("at"))
        elif kind == "say" and self.turn is not None:
            self.turn.add_step("text", obj["text"])
        else:
            self.skip("unknown-type")


def toy_root(env: Mapping[str, str]) -> Path:
    return Path(env.get("TOY_HOME") or Path(env["HOME"]) / ".toy")


def toy_files(
    root: Path, projects: frozenset[str] | None, problems: list[Problem]
) -> Iterator[str]:
    return (str(p) for p in sorted(root.glob("*.jsonl")))


@pytest.fixture
def toy():
    agent = agents.register(
        agents.Agent(
            name="toy",
            label="Toy",
            root=toy_root,
            files=toy_files,
            parser=ToyParser,
            instructions=("TOY.md",),
        )
    )
    yield agent
    agents.unregister("toy")


def _session(path: Path, *lines: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(line) + "\n" for line in lines)


def test_a_sixth_agent_is_one_module(cli, toy, tmp_path):
    home = tmp_path / "toy-home"
    _session(
        home / "s1.jsonl",
        {"type": "hello", "session": "s1", "cwd": PROJECT},
        {
            "type": "ask",
            "text": "rename the README title to Beta App",
            "at": "2026-11-20T10:00:00Z",
        },
        {"type": "say", "text": "Done: the title is now Beta App."},
    )
    env = {"TOY_HOME": str(home)}

    out = cli("harvest", "--all-projects", "--since", "3650d", "--json", env=env).json()

    assert out["roots"]["toy"] == str(home)
    assert out["sources"]["toy"]["files_read"] == 1
    assert out["sources"]["toy"]["tasks_new"] == 1
    listed = cli("tasks", "list", "--all-projects").out
    assert "rename the README title to Beta App" in listed
    (task,) = cli("tasks", "list", "--all-projects", "--json").json()
    assert task["source"] == "toy"

    again = cli("harvest", "--all-projects", "--source", "toy", "--json", env=env).json()
    assert list(again["sources"]) == ["toy"]
    assert again["sources"]["toy"]["files_unchanged"] == 1
    assert again["totals"]["tasks_new"] == 0


def test_an_unknown_source_names_the_agents(cli):
    r = cli("harvest", "--all-projects", "--source", "nope")
    assert r.code == 2
    assert "unknown agent 'nope'" in r.err
    assert "claude-code, codex, copilot" in r.err


def test_every_built_in_agent_is_registered_with_the_files_it_reads():
    built_in = ("claude-code", "codex", "copilot", "gemini", "opencode", "pi", "qwen")
    assert agents.names()[:7] == built_in
    assert agents.get("claude-code").instructions == ("CLAUDE.md",)
    assert agents.get("codex").instructions == ("AGENTS.md",)
    assert "GEMINI.md" in agents.get("gemini").instructions
    assert agents.get("qwen").instructions == ("QWEN.md", "AGENTS.md")
    with pytest.raises(UsageError, match="already registered"):
        agents.register(agents.get("codex"))


COPILOT = TRANSCRIPTS / "copilot"
COPILOT_SESSION = "e3551bd7-1e86-42ac-91d6-5ff108467236"


def test_log_agent_copilot_reads_its_session_end_hook_into_copilot_tasks(cli, sandbox_home):
    shutil.copytree(COPILOT, sandbox_home, dirs_exist_ok=True)
    hook = {"sessionId": COPILOT_SESSION, "timestamp": 1, "cwd": "/home/user/calc"}

    r = cli("log", "--agent", "copilot", "--wait", stdin=json.dumps(hook))

    assert (r.code, r.err) == (0, "")
    listed = cli("tasks", "list", "--all-projects", "--json").json()
    tasks = listed["tasks"] if isinstance(listed, dict) else listed
    assert tasks and {t["source"] for t in tasks} == {"copilot"}
    assert {t["session_id"] for t in tasks} == {COPILOT_SESSION}


def test_log_for_an_unknown_agent_exits_0_with_a_notice_naming_the_agents(cli):
    r = cli("log", "--agent", "nope", stdin="{}")
    assert r.code == 0
    assert "unknown agent 'nope'" in r.err and "copilot" in r.err


def test_harvest_reads_copilot_sessions_from_copilot_home(cli, sandbox_home):
    shutil.copytree(COPILOT, sandbox_home, dirs_exist_ok=True)
    out = cli("harvest", "--all-projects", "--since", "3650d", "--json").json()
    assert out["roots"]["copilot"] == str(sandbox_home / ".copilot")
    assert out["sources"]["copilot"]["files_read"] == 2
    assert out["sources"]["copilot"]["tasks_new"] >= 2


def _opencode_store(home: Path) -> Path:
    fixture = TRANSCRIPTS / "opencode"
    db = home / ".local" / "share" / "opencode" / "opencode.db"
    db.parent.mkdir(parents=True)
    load_rows(
        db,
        (fixture / "schema.sql").read_text(encoding="utf-8"),
        (fixture / "rows.jsonl").read_text(encoding="utf-8").splitlines(),
    )
    return db


def test_harvest_reads_the_opencode_store_incrementally(cli, sandbox_home):
    db = _opencode_store(sandbox_home)

    out = cli("harvest", "--all-projects", "--since", "3650d", "--json").json()
    assert out["roots"]["opencode"] == str(db.parent)
    assert out["sources"]["opencode"]["sessions"] >= 2
    assert out["sources"]["opencode"]["tasks_new"] >= 2
    assert out["sources"]["opencode"]["errors"] == []

    again = cli("harvest", "--all-projects", "--source", "opencode", "--json").json()
    assert again["sources"]["opencode"]["files_unchanged"] == 1
    assert again["totals"]["tasks_new"] == again["totals"]["tasks_updated"] == 0


def test_the_opencode_plugins_payload_is_logged_from_its_store(cli, sandbox_home):
    db = _opencode_store(sandbox_home)
    payload = {"agent": "opencode", "session_id": "any", "transcript_path": str(db), "cwd": "/x"}

    r = cli("log", "--wait", stdin=json.dumps(payload))

    assert (r.code, r.err) == (0, "")
    listed = cli("tasks", "list", "--all-projects", "--json").json()
    tasks = listed["tasks"] if isinstance(listed, dict) else listed
    assert tasks and {t["source"] for t in tasks} == {"opencode"}


def test_harvest_help_names_every_registered_agent(cli, capsys, toy):
    """The list comes from the registry: OpenCode, and an agent registered later, are named."""

    def shown(*argv: str) -> str:
        with pytest.raises(SystemExit):
            cli(*argv, "--help")
        return " ".join(capsys.readouterr().out.split())

    assert (
        "read new agent sessions (Claude Code, Codex, Copilot CLI, Gemini CLI, OpenCode, Pi, "
        "Qwen Code, Toy) into the task log"
    ) in shown()
    assert (
        "only this agent (repeatable): claude-code, codex, copilot, gemini, opencode, pi, qwen, toy"
    ) in shown("harvest")
