"""The installer's plugin rows are standard library only (setup runs before the engine's
dependencies exist), so they cannot be read from the agent registry: this holds them to it."""

from __future__ import annotations

from skillopt_sleep.harvest import agents
from skillopt_sleep.plugin_places import BY_NAME
from skillopt_sleep.setup.agent_plugins import PLUGINS

OLDER = ("claude-code", "codex")  # their plugins have code paths of their own (setup/claude, codex)


def test_every_registered_agent_but_the_two_older_ones_has_one_plugin_row_under_its_label():
    newer = {a.name for a in agents.agents() if a.name not in OLDER}
    assert set(PLUGINS) == set(BY_NAME) == newer
    for name, place in BY_NAME.items():
        assert place.label == agents.get(name).label
