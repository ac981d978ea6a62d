"""The harvest benchmark covers every registered agent: each one's recorded sessions are read
cold, and a second harvest with nothing new reads no byte."""

from __future__ import annotations

import io
import time
from pathlib import Path

from bench.harvest_agents import bench_agent
from skillopt_sleep.cli import main
from skillopt_sleep.harvest import agents


def in_process(env: dict[str, str], *argv: str) -> dict[str, object]:
    """The CLI run in this process, reported as the benchmark's driver reports it: the test
    reads what each harvest says it read, not how long a fresh process took (two CLI starts per
    agent were most of its time)."""
    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    code = main(
        list(argv), env=env, stdin=io.StringIO(), stdout=out, stderr=err, cwd=Path(env["HOME"])
    )
    assert code == 0, err.getvalue()
    return {
        "code": code,
        "out": out.getvalue(),
        "err": err.getvalue(),
        "run_s": time.perf_counter() - started,
    }


def test_every_registered_agent_is_harvested_cold_then_not_read_again():
    rows = [bench_agent(name, copies=2, run=in_process) for name in agents.names()]
    assert [r["agent"] for r in rows] == list(agents.names())
    for r in rows:
        assert "fixtures" not in r, r
        assert r["cold_tasks"] > 0 and r["files"] > 0, r
        assert r["second_bytes_read"] == 0 and r["second_files_unchanged"] == r["files"], r
