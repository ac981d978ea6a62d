"""The acting world's agent is seeded: the same night's requests get the same acts, whatever
Claude Code wraps around the user's request (the copy's temporary path, today's date)."""

from __future__ import annotations

from dataclasses import replace

from skillopt_sleep.testing import ModelCall, anthropic_wire
from skillopt_sleep.testing.acting_world import VENDOR_DIR, ActingWorld


def _claude_request(copy: str, date: str, request: str) -> ModelCall:
    reminder = (
        "<system-reminder>\n# claudeMd\nContents of "
        f"{copy}/CLAUDE.md (project instructions):\n\n# Notes\n"
        f"# currentDate\nToday's date is {date}.\n</system-reminder>"
    )
    body = {
        "model": "m",
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": reminder}, {"type": "text", "text": request}],
            }
        ],
        "tools": [{"name": "Bash"}, {"name": "Write"}],
    }
    return anthropic_wire.parse("/v1/messages?beta=true", body, {})


def _acts(copies: list[str], date: str) -> list[str]:
    world = ActingWorld([replace(VENDOR_DIR, p_without=0.5)], seed=7)
    request = f"{VENDOR_DIR.trigger} (part 1)"
    return [str(world.respond(_claude_request(c, date, request))) for c in copies]


def test_a_seeded_world_acts_the_same_whatever_claude_wraps_around_the_request() -> None:
    tonight = _acts([f"/tmp/skillopt-agent-{i}a/work/project" for i in range(24)], "2026-11-27")
    again = _acts([f"/tmp/skillopt-agent-{i}b/work/project" for i in range(24)], "2026-11-28")
    assert tonight == again
    assert len(set(tonight)) == 2  # it both breaks and keeps the rule: the draws are live
