"""A flag the user's example passes to a program the attempt ran without it, asked for as run:
"use git log --oneline" after ``git log -n 20`` asks for git run with ``--oneline``, whatever
else the command line carries. Pure: no IO.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..models import Action, Check
from .examples import UserExample
from .quoted import unredirected
from .scope import scoped_phrase
from .shell_effects import _program, _segments, _words


def _runs(commands: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Each segment of ``commands`` as (program, arguments), redirections aside."""
    out: list[tuple[str, list[str]]] = []
    for command in commands:
        for segment in _segments(_words(command)):
            name, args = _program(unredirected(segment))
            if name:
                out.append((name, args))
    return out


def flag_runs(example: UserExample | None, corrected: Sequence[Action]) -> list[Check]:
    """``ran`` checks for the flags the example adds to a program the attempt ran."""
    if example is None:
        return []
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
