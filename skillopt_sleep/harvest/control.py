"""The tool's own control sessions (`/skillopt-sleep ...` in Claude Code, `$skillopt-sleep ...`
in Codex) are never tasks: a night would replay and pay for the user reading its report."""

from __future__ import annotations

import re

from .session import SessionChunk

# `/skillopt-sleep`, `/skillopt-sleep:skillopt-sleep`, `$skillopt-sleep`, `$skillopt-sleep:skillopt-sleep`
_CONTROL = re.compile(r"^[/$]skillopt-sleep(?::skillopt-sleep)?(?:\s|$)")


def is_control_prompt(prompt: str) -> bool:
    """Whether a prompt is a command to skillopt-sleep itself."""
    return bool(_CONTROL.match(prompt.strip()))


def drop_control_turns(chunk: SessionChunk) -> SessionChunk:
    """``chunk`` without control turns. A session that opens with one is a control session: it
    is marked like a replay session, so no later read of it is mined either."""
    if any(t.index == 0 and is_control_prompt(t.prompt) for t in chunk.turns):
        chunk.state.replay = True
        chunk.turns = []
        return chunk
    chunk.turns = [t for t in chunk.turns if not is_control_prompt(t.prompt)]
    return chunk
