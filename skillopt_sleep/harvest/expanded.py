"""Text the user did not type is not the user's: repository files expanded into a session.

A slash command's body, a skill's ``SKILL.md`` and an instructions file are files of the
repository (or of a plugin) that the agent expanded into the conversation. They are kept, since
a replay needs them as the agent's context, but marked: :func:`mark` wraps them in a header
naming what they are and an end line. Nothing that stands for the user (their requests, their
feedback, the URLs they used, the languages they write in) is read from a marked block:
:func:`typed` is a text without them, :func:`user_texts` what a task holds of the user's own words.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a type only: `log` imports every parser and needs no model
    from ..models import TaskRecord


HEADER = "[Repository text expanded into the session, not typed by the user: {what}]"
FOOTER = "[End of repository text]"
MAX_BODY = 1700  # the body and its two marker lines fit the context a task keeps (2,000 characters)
_BLOCK = re.compile(
    r"\[Repository text expanded into the session, not typed by the user: [^\]\n]*\]\n"
    r".*?(?:\n\[End of repository text\]|\Z)",
    re.DOTALL,
)


def mark(body: str, what: str) -> str:
    """``body`` (cut to :data:`MAX_BODY`) wrapped in the markers that say it is not the user's."""
    text = body if len(body) <= MAX_BODY else body[:MAX_BODY].rsplit(" ", 1)[0] + " […]"
    return f"{HEADER.format(what=what)}\n{text}\n{FOOTER}"


def typed(text: str) -> str:
    """``text`` without its marked blocks (an unclosed block runs to the end of the text)."""
    return _BLOCK.sub("", text)


def user_texts(task: TaskRecord) -> list[str]:
    """What the user wrote of a task: the request, their feedback, and unmarked context."""
    return [task.intent, typed(task.context), task.feedback]
