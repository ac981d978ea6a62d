"""A harvested Claude Code task knows the git commit it started from: the branch's newest commit
made before the task's prompt. (Codex writes the commit into its session: the golden harvest of
the real Codex rollouts shows it.)"""

from __future__ import annotations

import os
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from bench.worlds import synthetic as syn
from skillopt_sleep.clock import FixedClock
from skillopt_sleep.harvest.run import Harvester, HarvestPlan
from skillopt_sleep.harvest.scan import CLAUDE, Roots
from skillopt_sleep.store import Store

NOW = datetime(2026, 11, 21, 16, 0, tzinfo=timezone.utc)
START = datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc)
TURN = syn.SynthTurn("Run the test suite", "All tests pass.", "python -m unittest", "OK")


def _commit(repo: Path, message: str, when: datetime) -> str:
    stamp = when.isoformat()
    env = {**os.environ, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    (repo / "log.txt").write_text(message)
    subprocess.run([*git, "add", "-A"], check=True, env=env)
    subprocess.run([*git, "commit", "-qm", message], check=True, env=env)
    return subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()


def _harvest(tmp_path: Path, repo: Path) -> list[str]:
    roots = Roots(tmp_path / ".claude", tmp_path / ".codex")
    path = syn.claude_path(roots.claude, str(repo), "7d9c1c52-5d0e-4a43-9f0e-4a9b5e1c2d3e")
    path.parent.mkdir(parents=True)
    path.write_text(syn.claude_session(path.stem, str(repo), [TURN], START))
    store = Store.open(tmp_path / "db.sqlite")
    plan = HarvestPlan(roots=roots, since=NOW - timedelta(days=7), projects=None, sources=(CLAUDE,))
    Harvester(store, FixedClock(NOW)).run(plan)
    commits = [t.commit for t in store.list_tasks()]
    store.close()
    return commits


@pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True, check=False).returncode != 0,
    reason="git is not installed",
)
def test_a_claude_task_gets_the_branchs_last_commit_before_its_prompt(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "-C", str(repo), "init", "-q", "-b", "main"], check=True)
    before = _commit(repo, "before", START - timedelta(hours=1))
    _commit(repo, "after", START + timedelta(hours=1))  # the session's own work, committed
    assert _harvest(tmp_path, repo) == [before]


def test_a_claude_task_outside_a_repository_has_no_commit(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    assert _harvest(tmp_path, plain) == [""]
