"""Which step of the corrected attempt a command of the user's own example stands in for: the
step of the same program that opens most like it (``git push --tags`` for the user's ``git push
origin v2.4.0``, not ``git tag v2.4.0``). A step forbidden by a correction is that one; the
other steps of that program are the ones the request asked for. Steps are words, as
:func:`.quoted.ran_segments` reads them. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..checks.action_judge import Effects, action_check
from ..models import Action, Check
from .shell_effects import _program


def shared(step: Sequence[str], other: Sequence[str]) -> int:
    """How many words two commands open with alike (``git push`` of two pushes: 2)."""
    n = 0
    for a, b in zip(step, other, strict=False):
        if a.lower() != b.lower():
            break
        n += 1
    return n


def stand_ins(steps: Sequence[list[str]], instead: Sequence[list[str]]) -> list[list[str]]:
    """Of ``steps``, the one each command of ``instead`` stands in for, where one runs its
    program."""
    out: list[list[str]] = []
    for command in instead:
        alike = [s for s in steps if _program(s)[0] == _program(command)[0]]
        if alike:
            out.append(max(alike, key=lambda s: shared(s, command)))
    return out


def left_to_the_request(
    check: Check, steps: Sequence[list[str]], instead: Sequence[list[str]]
) -> bool:
    """Whether the ``never_ran`` ``check`` catches only steps that run the program of a command
    of ``instead`` without being the step it stands in for (``git tag v2.4.0`` beside the ``git
    push --tags`` the user's ``git push origin v2.4.0`` replaces): the user changed one step,
    not the others the request asked for. Never when ``steps`` hold a command of ``instead`` as
    it is (then it stands in for no step)."""
    caught = [s for s in steps if _catches(check, s)]
    if not caught or not instead or any(c in steps for c in instead):
        return False
    programs = {_program(c)[0] for c in instead}
    replaced = stand_ins(steps, instead)
    return all(_program(s)[0] in programs and s not in replaced for s in caught)


def _catches(check: Check, step: list[str]) -> bool:
    result = action_check(check, Effects(actions=(Action(kind="command", command=" ".join(step)),)))
    return result is not None and not result[0]
