"""Doctor reads the agent registry: every registered agent is named in its report, with its
plugin checked where skillopt-sleep has one, so an agent added to the registry cannot be
forgotten by ``doctor`` (as ``test_plugin_rows_match_registry`` holds setup's rows to it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from skillopt_sleep.harvest import agents
from skillopt_sleep.harvest.scan import Problem
from skillopt_sleep.plugin_places import BY_NAME


def _checked(report: dict[str, object]) -> dict[str, dict[str, str]]:
    """Each agent's plugin (or skill) finding in ``doctor --json``, by agent name."""
    out: dict[str, dict[str, str]] = {}
    for check in report["checks"]:  # type: ignore[attr-defined]
        kind, _, agent = check["name"].partition(": ")
        if kind in ("plugin", "skill"):
            assert agent not in out, f"{agent} is checked twice"
            out[agent] = check
    return out


def test_every_registered_agent_has_its_plugin_checked_by_doctor(cli, sandbox_home):
    for place in BY_NAME.values():  # each agent is here, none has our hook
        place.home({"HOME": str(sandbox_home)}).mkdir(parents=True)
    (sandbox_home / ".claude").mkdir()
    (sandbox_home / ".codex").mkdir()
    r = cli("doctor", "--json", "--backend", "simulated")
    checked = _checked(r.json())
    assert set(checked) == set(agents.names())
    for name, check in checked.items():
        assert check["status"] == "warn", check
        assert agents.get(name).label in check["detail"]
        assert "not installed" in check["detail"] and check["fix"]
        assert check["data"] == {"agent": name, "installed": "no"}


def _no_files(
    root: Path, projects: frozenset[str] | None, problems: list[Problem]
) -> Iterator[str]:
    return iter(())


@pytest.fixture
def toy() -> Iterator[agents.Agent]:
    agent = agents.register(
        agents.Agent(
            name="toy",
            label="Toy Agent",
            root=lambda env: Path(env["HOME"]) / ".toy",
            files=_no_files,
            parser=lambda state: None,  # type: ignore[arg-type,return-value]
        )
    )
    yield agent
    agents.unregister("toy")


def test_an_agent_registered_without_a_hook_is_named_and_harvested_at_night(cli, toy):
    checked = _checked(cli("doctor", "--json", "--backend", "simulated").json())
    assert checked["toy"] == {
        "name": "plugin: toy",
        "status": "skip",
        "detail": "Toy Agent has no skillopt-sleep hook; its sessions are harvested at night",
        "fix": "",
        "data": {},
    }
