"""Two dozen sessions ending at once: 24 `log` processes, no record lost, nothing corrupted.

Enough to race: the hooks that find the harvest lock free each start a drainer, so several
drainers run at once over one spool. With the lock gone from the drain, a run of this test
fails (a payload moved to ``spool/failed``), as a run with 50 did."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from datetime import datetime, timezone

import pytest

from bench.worlds import synthetic as syn
from skillopt_sleep.store import Store
from tests.drained import drained

PROJECT = "/work/busy"
N = 24


@pytest.mark.slow
def test_two_dozen_hook_calls_at_once_lose_nothing(sandbox_home, subprocess_env):
    now = datetime.now(timezone.utc)
    payloads = []
    for i in range(N):
        sid = f"00000000-0000-4000-8000-{i:012d}"
        turns = [
            syn.SynthTurn(f"Task {i}: run the checks", "Done.", "make check", "ok"),
            syn.SynthTurn("No, that's wrong: always use pytest -q", "Understood."),
        ]
        path = syn.write(
            syn.claude_path(sandbox_home / ".claude", PROJECT, sid),
            syn.claude_session(sid, PROJECT, turns, now),
        )
        payloads.append(
            json.dumps(
                {
                    "session_id": sid,
                    "transcript_path": str(path),
                    "cwd": PROJECT,
                    "hook_event_name": "SessionEnd",
                    "reason": "other",
                }
            )
        )
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "skillopt_sleep", "log"],
            env=subprocess_env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(N)
    ]
    for proc, payload in zip(procs, payloads, strict=True):
        proc.stdin.write(payload)
        proc.stdin.close()
    results = []
    for p in procs:
        with p.stdout, p.stderr:  # closed here, not left to the garbage collector
            out, err = p.stdout.read(), p.stderr.read()
        results.append((p.wait(timeout=300), out, err))
    assert all(r == (0, "", "") for r in results), [r for r in results if r != (0, "", "")][:3]

    state = sandbox_home / "sleep-home" / "state"
    assert drained(state, wait_s=240), "payloads left behind"
    assert not (state / "spool" / "failed").exists()

    db = sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db"
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    store = Store.open(db)
    tasks = store.list_tasks(project=PROJECT)
    assert sorted(t.intent for t in tasks) == sorted(f"Task {i}: run the checks" for i in range(N))
    assert all(t.outcome == "failure" and t.checks and t.occurrences == 1 for t in tasks)
    assert store.notices() == []
    assert len(store.cursors("claude-code")) == N
