"""A flag the user's example passes to a program the attempt ran without it, asked for as run:
"use git log --oneline" after ``git log -n 20`` asks for git run with ``--oneline``, whatever
else the command line carries. Pure: no IO.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..models import Action, Check
from .examples import UserExample
from .quoted import phrase, ran_segments, unredirected
from .scope import scoped_phrase
from .shell_effects import _program, _words


def _runs(commands: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Each segment of ``commands`` as (program, arguments), redirections aside."""
    return [_program(segment) for segment in ran_segments(commands)]


def _moved(example: UserExample, corrected: Sequence[Action]) -> list[Check]:
    """A file the user names with the name of one the attempt's command worked on, elsewhere
    ("The one we deploy is `deploy/nginx.conf`" after ``cat /etc/nginx/nginx.conf``): that
    command run on the user's file, and never on the attempt's."""
    named = {p.rsplit("/", 1)[-1]: p for a in example.actions if (p := a.path) and not a.tool}
    found: list[Check] = []
    for action in corrected:
        words = unredirected(_words(action.command)) if action.kind == "command" else []
        for i, word in enumerate(words):
            new = named.get(word.rsplit("/", 1)[-1])
            if "/" not in word or new is None or word.strip("./") == new:
                continue
            found.append(Check(kind="ran", value=phrase([*words[:i], new]), case_sensitive=False))
            old = phrase(words[: i + 1])
            found.append(Check(kind="never_ran", value=old, case_sensitive=False))
    return found


# Words by which a file is named besides the attempt's, not in its place ("`tests/config.py` too").
_ALSO = re.compile(
    r"(?<!\w)(?:too|also|as\s+well|auch|ebenfalls|aussi|tambi[eé]n|anche|tamb[eé]m|ook|te[zż]"
    r"|tak[eé]|ocks[aå])(?!\w)|\u3082|\u4e5f|\ub3c4",
    re.IGNORECASE,
)


def flag_runs(
    example: UserExample | None, corrected: Sequence[Action], said: str = ""
) -> list[Check]:
    """``ran`` checks for the flags the example adds to a program the attempt ran, or for the
    attempt's command run on the file the user names in the place of its own (``said`` names
    it in place, not besides)."""
    if example is None:
        return []
    moved = [] if _ALSO.search(said) else _moved(example, corrected)
    if moved:
        return moved
    ran = _runs([a.command for a in corrected if a.kind == "command"])
    found: list[Check] = []
    for name, args in _runs(example.commands):
        before = [a for n, a in ran if n == name]
        if not before:
            continue
        for flag in (a for a in args if a.startswith("-") and len(a) > 1):
            if all(flag not in b for b in before):
                value = scoped_phrase(name, flag.split("=", 1)[0], True)
                found.append(Check(kind="ran", value=value, case_sensitive=False))
    return found
