"""The tool's own control sessions are never tasks."""

from __future__ import annotations

import pytest

from skillopt_sleep.harvest.control import drop_control_turns, is_control_prompt
from skillopt_sleep.harvest.session import ParseState, SessionChunk, Turn


@pytest.mark.parametrize(
    ("prompt", "control"),
    [
        ("/skillopt-sleep", True),
        ("/skillopt-sleep status", True),
        ("/skillopt-sleep:skillopt-sleep review", True),  # as Claude Code records a plugin skill
        ("$skillopt-sleep", True),
        ("$skillopt-sleep adopt", True),
        ("$skillopt-sleep:skillopt-sleep status", True),  # the Codex plugin route
        ("  $skillopt-sleep status\n", True),
        ("/skillopt-sleeping", False),
        ("why did skillopt-sleep propose this?", False),
        ("run $skillopt-sleep later", False),
        ("Run the tests with pytest -q", False),
    ],
)
def test_control_prompts(prompt, control):
    assert is_control_prompt(prompt) is control


def _chunk(*prompts: str, first: int = 0) -> SessionChunk:
    turns = [Turn(index=first + i, offset=i, prompt=p) for i, p in enumerate(prompts)]
    return SessionChunk("claude-code", ParseState(session_id="s"), turns=turns)


def test_a_session_opened_by_a_control_command_is_marked_and_never_mined():
    chunk = drop_control_turns(_chunk("$skillopt-sleep review", "ok, adopt it"))
    assert chunk.turns == [] and chunk.state.replay is True


def test_a_control_command_inside_a_work_session_drops_only_that_turn():
    chunk = drop_control_turns(
        _chunk("Fix the README title", "/skillopt-sleep status", "now run pytest -q")
    )
    assert [t.prompt for t in chunk.turns] == ["Fix the README title", "now run pytest -q"]
    assert chunk.state.replay is False


def test_a_later_read_of_a_work_session_keeps_its_turns():
    chunk = drop_control_turns(_chunk("and the changelog", first=3))
    assert [t.prompt for t in chunk.turns] == ["and the changelog"]
