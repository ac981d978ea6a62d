"""Sessions recorded with the real claude and codex, harvested through the CLI as a user would:
the tasks the store then holds, by request, and the checks each carries in plain words."""

from __future__ import annotations

import shutil
from pathlib import Path

from skillopt_sleep.checks.judge import rule_check
from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.store import Store


def harvested(cli, sandbox_home: Path, fixtures: Path) -> dict[str, TaskRecord]:
    """``fixtures`` (a recorded home) harvested with ``--all-projects``: the tasks by request."""
    home = sandbox_home / "agents"
    shutil.copytree(fixtures, home)
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    r = cli("harvest", "--all-projects", "--since", "2020-01-01", "--json", env=env)
    assert r.code == 0, r.err
    tasks = Store.open(sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db").list_tasks()
    return {t.intent: t for t in tasks}


def mined(task: TaskRecord) -> list[str]:
    """``task``'s checks other than rubrics, as ``tasks show`` words them."""
    return [plain(c) for c in task.checks if c.kind != "rubric"]


def assert_told_apart(task: TaskRecord, corrected: str, wanted: str) -> None:
    """Every check of ``task`` other than a rubric fails on the answer the user corrected and
    passes on the one the user asked for."""
    for check in (c for c in task.checks if c.kind != "rubric"):
        assert not rule_check(check, corrected)[0], plain(check)
        assert rule_check(check, wanted)[0], plain(check)
