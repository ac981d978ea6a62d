"""A long text shown on one line: its first words, cut at a word, and an ellipsis."""

from __future__ import annotations


def at_word(text: str, most: int) -> str:
    """``text``, or its first words up to ``most`` characters and "…"; a text with no space in
    the second half of that span (one long token) is cut where the span ends."""
    if len(text) <= most:
        return text
    head = text[: most - 1]
    return (head.rsplit(" ", 1)[0] if " " in head[most // 2 :] else head) + "…"
