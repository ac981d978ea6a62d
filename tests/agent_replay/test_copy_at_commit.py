"""The throwaway copy of an agent replay holds the project at the commit its session started
from, when the repository has that commit, and the working tree otherwise; the live repository
(refs, stash, index, config, worktrees) is byte-identical afterwards."""

from __future__ import annotations

import asyncio
import json
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.agent_replay import AgentSetup, agent_rollout
from skillopt_sleep.agent_replay.checkout import build_copy
from skillopt_sleep.agent_replay.sandbox import Sandbox
from skillopt_sleep.backends.runner import FakeRunner, RunResult
from skillopt_sleep.models import Check, TaskRecord

from .conftest import snapshot

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True, check=False).returncode != 0,
    reason="git is not installed",
)


def _git(project: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


@pytest.fixture
def moved_on(project: Path) -> tuple[Path, str]:
    """The project one commit after the session's, with an untracked file: (project, commit)."""
    start = _git(project, "rev-parse", "HEAD")
    (project / "src" / "app.py").write_text("def parse(d):\n    return dict(d)  # later\n")
    _git(project, "commit", "-qam", "later")
    (project / "notes.txt").write_text("untracked\n")
    return project, start


def test_the_copy_holds_the_sessions_commit_and_the_live_repository_is_untouched(
    moved_on, tmp_path
):
    project, start = moved_on
    before = snapshot(project)  # .git included: refs, stash, index, config, worktrees
    dest = tmp_path / "copy"
    dest.mkdir()
    made = build_copy(project, dest, start)
    assert made == f"commit {start[:12]}"
    assert (dest / "src" / "app.py").read_text() == "def parse(d):\n    return d\n"
    assert not (dest / "notes.txt").exists()  # not in that commit
    assert not (dest / ".git").exists() and not (dest / "build").exists()
    assert snapshot(project) == before
    assert _git(project, "worktree", "list").count("\n") == 0  # no worktree was registered
    assert _git(project, "stash", "list").count("stash@") == 1


@pytest.mark.parametrize("commit", ["", "0" * 40, "not-a-hash"])
def test_an_unknown_or_missing_commit_falls_back_to_the_working_tree(moved_on, tmp_path, commit):
    project, _ = moved_on
    dest = tmp_path / "copy"
    dest.mkdir()
    assert build_copy(project, dest, commit) == "working tree"
    assert "later" in (dest / "src" / "app.py").read_text()
    assert (dest / "notes.txt").read_text() == "untracked\n"
    assert not (dest / "build").exists() and not (dest / ".git").exists()


def test_a_project_without_git_is_copied_from_its_tree(tmp_path):
    project = tmp_path / "plain"
    (project / "node_modules" / "x").mkdir(parents=True)
    (project / "node_modules" / "x" / "i.js").write_text("big")
    (project / "a.py").write_text("a = 1\n")
    dest = tmp_path / "copy"
    dest.mkdir()
    assert build_copy(project, dest, "a" * 40) == "working tree"
    assert sorted(p.name for p in dest.rglob("*")) == ["a.py"]


_CLAUDE_DONE = json.dumps(
    {"type": "result", "subtype": "success", "is_error": False, "result": "ok", "num_turns": 1}
)


def test_a_rollout_of_a_task_with_its_commit_is_scored_on_that_commit(moved_on, tmp_path):
    project, start = moved_on
    task = TaskRecord(
        source="claude-code",
        project=str(project),
        session_id="s",
        intent="Fix parse",
        created_at=datetime(2026, 11, 21, tzinfo=timezone.utc),
        checks=[Check(kind="never_ran", value="unittest")],
        commit=start,
    )
    runner = FakeRunner(default=RunResult(0, _CLAUDE_DONE + "\n"))
    setup = AgentSetup(
        "claude-code", "claude", {"PATH": "/usr/bin"}, Sandbox("bwrap"), runner=runner
    )
    seen: list[str] = []

    async def score(text: str, effects) -> str:
        seen.append((effects.tree / "src" / "app.py").read_text())
        return "scored"

    result = asyncio.run(agent_rollout(task, {"CLAUDE.md": "rules"}, 0, setup=setup, score=score))
    assert result.copy == f"commit {start[:12]}"
    assert seen == ["def parse(d):\n    return d\n"]
    [call] = runner.calls
    assert "--settings" in call.argv  # Claude Code's own sandbox settings ride along
