"""`tasks list` shows one page at a time; `status` counts without reading the records."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from skillopt_sleep.models import TaskRecord
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.store import Store


def fill(project: Path, n: int) -> list[str]:
    import os

    store = Store.open(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).ensure().db)
    start = datetime(2026, 11, 1, tzinfo=timezone.utc)
    records = [
        TaskRecord(
            source="manual",
            project=str(project),
            session_id=f"s{i}",
            created_at=start + timedelta(minutes=i),
            intent=f"task number {i}",
            id=f"t_{i:08x}",
        )
        for i in range(n)
    ]
    store.upsert_tasks(records, start)
    return [r.id for r in records]


def test_tasks_list_pages_and_says_how_to_see_the_next(cli, project):
    ids = fill(project, 120)
    r = cli("tasks", "list", cwd=project)
    assert r.code == 0, r.err
    assert r.out.splitlines()[-1] == f"tasks 1-50 of 120 for {project}; next page: --offset 50"
    assert [x["id"] for x in cli("tasks", "list", "--json", cwd=project).json()] == ids[:50]
    last = cli("tasks", "list", "--offset", "100", "--json", cwd=project).json()
    assert [x["id"] for x in last] == ids[100:]
    r = cli("tasks", "list", "--offset", "100", "-n", "10", cwd=project)
    assert r.out.splitlines()[-1] == f"tasks 101-110 of 120 for {project}; next page: --offset 110"
    assert len(cli("tasks", "list", "--limit", "0", "--json", cwd=project).json()) == 120
    assert (
        cli("tasks", "list", "--offset", "500", cwd=project).out
        == f"no tasks past 500: 120 task(s) for {project}\n"
    )
    bad = cli("tasks", "list", "--limit", "-1", cwd=project)
    assert bad.code == 2 and "needs a whole number of 0 or more, not '-1'" in bad.err


def test_status_counts_the_tasks_and_finds_the_pending_proposal(cli, project):
    fill(project, 75)
    r = cli("status", "--json", cwd=project)
    assert r.code == 0 and r.json()["tasks"] == 75 and r.json()["pending"] is None
    assert cli("status", cwd=project).out.startswith(f"project: {project}  (75 tasks logged)")


def test_show_finds_a_task_by_a_prefix_of_its_id(cli, project):
    fill(project, 3)
    r = cli("tasks", "show", "t_00000002", cwd=project)
    assert r.code == 0 and "intent:    task number 2" in r.out
    r = cli("tasks", "show", "t_0000000", cwd=project)
    assert r.code == 4 and "'t_0000000' matches more than one task" in r.err
