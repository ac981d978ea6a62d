"""A check mined from a correction keeps the correction's polarity: what the user names only in
clauses said against something ("none of them starts with 'Oops'", "né con ruff", "不要") is
never asked for. Such a span can yield a check that forbids it, or none: a check that asks for
it fails on every example that does what the user said. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..models import Check
from .examples import UserExample
from .spans import spans

_ASKING = frozenset({"contains", "starts_with", "heading", "equals", "ran", "file_contains"})
_WORD = re.compile(r"^\(\?<!\[\\w-\]\)(.+)\(\?!\[\\w-\]\)$")


def asked(check: Check) -> str | None:
    """The literal ``check`` asks an attempt to carry or run, lower-cased; None for a check
    that forbids, limits or asks for a shape."""
    if check.kind not in _ASKING or not isinstance(check.value, str):
        return None
    if check.kind in ("ran", "file_contains"):
        word = _WORD.match(check.value)
        if word is None:
            return None
        return re.sub(r"\\(.)", r"\1", word.group(1).replace(r"\s+", " ")).lower()
    return check.value.strip().lower()


def _only_against(literal: str, correction: str) -> bool:
    """Whether ``correction`` names ``literal`` and every time in a clause said against it."""
    named = [s for s in spans(correction) if s.text.strip().lower() == literal]
    return bool(named) and all(s.against for s in named)


def polar(checks: Sequence[Check], correction: str, example: UserExample | None) -> list[Check]:
    """``checks`` without those asking for what ``correction`` names only against, unless the
    user's example carries it (a variant of the attempt's own command, offered in a clause said
    against the attempt, is the user's example: :func:`.examples.user_example`)."""
    offered = " ".join(example.commands + example.texts).lower() if example else ""
    out: list[Check] = []
    for check in checks:
        literal = asked(check)
        if literal is not None and literal not in offered and _only_against(literal, correction):
            continue
        out.append(check)
    return out
