"""The conversations behind the attempts an analyst is shown, bounded and redacted.

A case shows the task and each attempt's final answer; an environment that talks several turns
(a follow-up question, a tool's output, its own wording of the task) carries more than that, and
what went wrong may sit in those turns. So the turns that say something besides the task and the
answer are shown, after the cases, each attempt's under its case number. Bounded the seeds' way
(a turn clipped in its middle, a conversation and the section capped), every turn redacted:
the exchange may hold what a user pasted.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..backends.base import Message
from ..redact import redact
from ..rollouts.replay import Rollout
from .reflect import Case

TURN_CHARS = 800
TURNS = 12  # the first two and the last ten of a longer exchange
CONVERSATION_CHARS = 3000
SECTION_CHARS = 12_000
TITLE = "## CONVERSATIONS (the turns behind an attempt, besides its task and its answer)"


def clip(text: str, limit: int) -> str:
    """``text`` cut in its middle to ``limit`` characters (its start and its end both say much)."""
    if len(text) <= limit:
        return text
    half = max(1, limit // 2 - 8)
    return text[:half] + " [...] " + text[-half:]


def _kept(turns: Sequence[Message], asked: str, answer: str) -> list[Message]:
    """The turns of an exchange unless it is only the task asked and the answer given."""
    said = [
        m
        for m in turns
        if m.content.strip() and m.content.strip() not in (asked.strip(), answer.strip())
    ]
    return list(turns) if said else []


def shown(rollout: Rollout, asked: str) -> str:
    """The attempt's exchange as an analyst reads it ("" when it says nothing more)."""
    turns = _kept(rollout.conversation, asked, rollout.text)
    lines = [f"[{m.role}] {clip(redact(m.content), TURN_CHARS)}" for m in turns]
    if len(lines) > TURNS:
        left = len(lines) - TURNS
        lines = [*lines[:2], f"[... {left} turns left out ...]", *lines[-(TURNS - 2) :]]
    return clip("\n".join(lines), CONVERSATION_CHARS) if lines else ""


def section(cases: Sequence[Case]) -> str:
    """The conversations of ``cases`` (numbered as the cases are), or "" when none says more."""
    parts: list[str] = []
    for number, case in enumerate(cases, 1):
        pairs = (("good", case.good), ("bad", case.bad))
        for label, attempt in pairs:
            text = shown(attempt, case.task.intent) if attempt is not None else ""
            if text:
                parts.append(f"Case {number}, the {label} attempt:\n{text}")
    if not parts:
        return ""
    return clip(TITLE + "\n" + "\n\n".join(parts), SECTION_CHARS) + "\n\n"
