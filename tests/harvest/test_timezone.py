"""A session that ended 58 minutes ago is harvested in every time zone (run with TZ set)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bench.worlds import synthetic as syn
from skillopt_sleep.store import Store

PROJECT = "/work/tz"


def _session(home: Path, zone: str, ended_ago: timedelta, n: int, now: datetime) -> None:
    """One Claude and one Codex session that ended ``ended_ago``, written where the CLIs would
    write them in ``zone`` (Codex dates its directories in local time)."""
    start = now - ended_ago - timedelta(minutes=2)
    turn = [syn.SynthTurn(f"Task {n}: list the files", "Listed.")]
    sid = f"00000000-0000-4000-8000-{n:012d}"
    tid = f"01a1fea5-0000-7000-8000-{n:012d}"
    paths = [
        syn.write(
            syn.claude_path(home / ".claude", PROJECT, sid),
            syn.claude_session(sid, PROJECT, turn, start),
        ),
        syn.write(
            syn.codex_path(home / ".codex", tid, start.astimezone(ZoneInfo(zone))),
            syn.codex_rollout(tid, PROJECT, turn, start),
        ),
    ]
    ended = (now - ended_ago).timestamp()
    for path in paths:
        os.utime(path, (ended, ended))


@pytest.mark.parametrize("zone", ["Asia/Shanghai", "UTC", "America/Los_Angeles"])
@pytest.mark.parametrize("since", ["1h", "local-clock"])
def test_a_session_that_ended_58_minutes_ago_is_harvested(
    zone, since, sandbox_home, subprocess_env
):
    now = datetime.now(timezone.utc)
    _session(sandbox_home, zone, timedelta(minutes=58), 1, now)
    _session(sandbox_home, zone, timedelta(hours=3), 2, now)  # outside the window: not harvested
    if since == "local-clock":  # a wall-clock time as the user types it, in their zone
        since = (now - timedelta(hours=1)).astimezone(ZoneInfo(zone)).strftime("%Y-%m-%dT%H:%M")
    env = dict(subprocess_env, TZ=zone)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "skillopt_sleep",
            "harvest",
            "--project",
            PROJECT,
            "--since",
            since,
            "--json",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["sources"]["claude-code"]["files_read"] == 1
    assert out["sources"]["codex"]["files_read"] == 1
    assert out["totals"]["files_too_old"] == 2  # the two sessions of 3 hours ago
    store = Store.open(sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db")
    [task] = store.list_tasks(project=PROJECT)
    assert task.intent == "Task 1: list the files" and task.occurrences == 2
    expected = now - timedelta(minutes=60)
    assert task.created_at.utcoffset() == timedelta(0)
    assert abs((task.created_at - expected).total_seconds()) < 5
