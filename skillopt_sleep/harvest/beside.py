"""A file a turn names beside one the attempt used: `config/dev.example.env` quoted with
`config/prod.env` after ``cat config/prod.env``. Two files of one folder, quoted together, one
used and one not, set the one used against the one to use, in any language. Pure: no IO.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_CODE = re.compile(r"`([^`\n]{3,120})`")


def _plain(path: str) -> str:
    return path.strip().strip("/").removeprefix("./")


def beside(text: str, used: Iterable[str]) -> str | None:
    """A file ``text`` quotes that is not among the paths ``used``, in the folder of a file it
    quotes that is; None when it quotes no such pair."""
    touched = {_plain(p) for p in used if p}
    quoted = [_plain(m.group(1)) for m in _CODE.finditer(text)]
    folders = {q.rpartition("/")[0] for q in quoted if "/" in q and q in touched}
    for q in quoted:
        folder, _, name = q.rpartition("/")
        if folder in folders and "." in name and q not in touched:
            return q
    return None
