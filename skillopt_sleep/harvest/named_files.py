"""A file the correction names that the attempt, which changed files, left unchanged: the user
wants it changed too ("Our users only learn options from `docs/cli-reference.md`, so `--since`
needs its entry there too" after an edit of ``src/export.py`` only). Whatever the wording: a file
path quoted in a clause said for something, not among the files the attempt changed. Candidates,
held like every mined check against the attempt (they must fail on it) and the user's example
(which changes that file). What the file must then carry is left to the words that say it
(:func:`.text_checks.file_checks`): a file the attempt never wrote has no content to hold a
check against. Pure: no IO.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..action_models import wrote
from ..checks.action_judge import glob_match
from ..models import Action, Check
from .clauses import _QUOTED, _clauses
from .text_checks import check_or_none


def _is_file(span: str) -> bool:
    return " " not in span and bool(re.search(r"/.+\.\w{1,5}$|^[\w-]+\.(?:md|rst|txt|adoc)$", span))


def named_files(said: str) -> list[str]:
    """The file paths ``said`` quotes in clauses said for something."""
    files: list[str] = []
    for clause, negative in _clauses(said):
        quoted = (a or b for a, b in _QUOTED.findall(clause)) if not negative else ()
        files += [q.strip().removeprefix("./") for q in quoted if _is_file(q.strip())]
    return list(dict.fromkeys(files))


def named_file_checks(said: str, acted: Sequence[Action]) -> list[Check]:
    """``changed`` for each file ``said`` names that the attempt (which changed files) did not."""
    changed = [a.path for a in acted if wrote(a) and a.path]
    if not changed:
        return []
    found = (
        check_or_none(kind="changed", value=path)
        for path in named_files(said)
        if not any(glob_match(path, p) or p.endswith("/" + path) for p in changed)
    )
    return [c for c in found if c is not None]
