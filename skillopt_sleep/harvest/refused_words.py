"""Words the attempt wrote into a file that the correction refuses ("CI ... fails on any
eslint-disable, so remove the unused import from `src/cart.ts`" after an attempt that silenced the
linter with ``// eslint-disable-next-line``): whatever the wording, a name no dictionary word is
(one with a hyphen, a colon or an underscore inside, or any quoted span) that the correction
names in a clause said against something or saying what fails or is banned, found in what the
attempt wrote to a file, must not be in that file afterwards. Candidates, held like every mined
check: each must fail on the attempt and pass on the retry the user let stand. Pure: no IO.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..models import Action, Check
from .clauses import _QUOTED, _clauses
from .text_checks import check_or_none

# Words saying what follows fails or is not allowed, in the languages the harvest reads.
_REFUSING = re.compile(
    r"(?<![\w-])(?:fail(?:s|ed|ing)?|break(?:s|ing)?|reject(?:s|ed)?|ban(?:s|ned)?|forbid\w*"
    r"|disallow\w*|not\s+allowed|verbiet\w*|verboten|schl[aä]gt\s+fehl|interdit\w*|[eé]choue\w*"
    r"|prohib\w*|falla\w*|vieta\w*|proib\w*|fallisce)(?![\w-])",
    re.IGNORECASE,
)
_NAME = re.compile(r"(?<![\w/.-])[A-Za-z][A-Za-z0-9]*(?:[-:_][A-Za-z0-9]+)+(?![\w/-])")


def _names(clause: str) -> list[str]:
    """The quoted spans of ``clause`` and the names no dictionary word is outside them."""
    quoted = [(a or b).strip() for a, b in _QUOTED.findall(clause)]
    return [*quoted, *_NAME.findall(_QUOTED.sub(" ", clause))]


def _literal(name: str) -> str:
    """``name`` as a pattern matching it as written, readable where it needs no escape."""
    return name if re.fullmatch(r"[\w:-]+", name) else re.escape(name)


def refused_in_files(said: str, acted: Sequence[Action]) -> list[Check]:
    """``file_not_contains`` of each name ``said`` refuses that the attempt wrote to a file."""
    written = [(a.path, a.content) for a in acted if a.kind in ("write", "edit") and a.content]
    found: list[Check | None] = []
    for clause, negative in _clauses(said) if written else []:
        if not (negative or _REFUSING.search(_QUOTED.sub(" ", clause))):
            continue
        for name in _names(clause):
            if len(name) < 4 or "/" in name:
                continue  # a path is what the work touches, not words of a file
            found += [
                check_or_none(kind="file_not_contains", value=_literal(name), path=path)
                for path, content in written
                if path and name in content
            ]
    return list({(c.value, c.path): c for c in found if c is not None}.values())
