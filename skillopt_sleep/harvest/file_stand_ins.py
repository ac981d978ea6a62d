"""A value the correction puts in place of one the attempt wrote to a file: "Pin the runner to
`ubuntu-24.04`. `ubuntu-latest` moved under us ..." after a workflow written with ``runs-on:
ubuntu-latest``. Whatever the wording or language, two quoted values of one thing (the same first
word: ``ubuntu``), one of them in a file the attempt wrote and the other in none, name the file's
new value: the file must carry it. A value said against ("never `ubuntu-24.04`") is no new value.
Candidates, held like every mined check. Pure: no IO.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..action_models import wrote
from ..models import Action
from .clauses import _QUOTED, _clauses

_HEAD = re.compile(r"[^\W\d_]+")


def _head(value: str) -> str:
    """The first word of ``value`` ("ubuntu" of "ubuntu-24.04"), lowered; "" when it has none."""
    match = _HEAD.match(value)
    return match.group().casefold() if match else ""


def new_values(text: str, actions: Sequence[Action]) -> list[tuple[str, str]]:
    """(path, value): each value ``text`` quotes, not against, that no file the attempt wrote
    holds, beside a quoted value of the same first word that one of them does."""
    written = [(a.path, a.content) for a in actions if wrote(a) and a.content]
    if not written:
        return []
    quoted = [
        ((a or b).strip(), negative)
        for c, negative in _clauses(text)
        for a, b in _QUOTED.findall(c)
    ]
    found: list[tuple[str, str]] = []
    for new, negative in quoted:
        head = _head(new)
        if negative or len(head) < 3 or any(new in content for _, content in written):
            continue
        for old, _ in quoted:
            if old == new or _head(old) != head:
                continue
            found += [(path, new) for path, content in written if path and old in content]
    return list(dict.fromkeys(found))
