"""A command as the user quotes it back: its words without redirections, and whether it is,
word for word, a command the corrected attempt ran. Quoted back in a correction ("`git add -A`
adds the debug logs too"), such a command is what the user objects to, never their example of
what to do instead. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..models import Action
from .shell_effects import _segments, _words


def unredirected(words: list[str]) -> list[str]:
    """A command's words up to its first redirection (``2>&1`` is no part of the example)."""
    for i, word in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if word[:1] in "<>" or (word.isdigit() and nxt[:1] in "<>"):
            return words[:i]
    return words


def ran_as_is(span: str, corrected: Sequence[Action]) -> bool:
    """Whether ``span`` is, word for word, a command of the corrected attempt (its redirections
    aside): quoted back in a correction, it is what the user objects to, never the example."""
    said = _words(span)
    return any(
        unredirected(segment) == said
        for a in corrected
        if a.kind == "command"
        for segment in _segments(_words(a.command))
    )
