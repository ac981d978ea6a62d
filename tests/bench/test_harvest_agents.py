"""The harvest benchmark covers every registered agent: each one's recorded sessions are read
cold, and a second harvest with nothing new reads no byte."""

from __future__ import annotations

import pytest

from bench.harvest_agents import bench_agent
from skillopt_sleep.harvest import agents


@pytest.mark.slow  # two CLI processes per agent
def test_every_registered_agent_is_harvested_cold_then_not_read_again():
    rows = [bench_agent(name, copies=2) for name in agents.names()]
    assert [r["agent"] for r in rows] == list(agents.names())
    for r in rows:
        assert "fixtures" not in r, r
        assert r["cold_tasks"] > 0 and r["files"] > 0, r
        assert r["second_bytes_read"] == 0 and r["second_files_unchanged"] == r["files"], r
