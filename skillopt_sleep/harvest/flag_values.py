"""A flag and its value as a correction names it: set as the user sets it ("pass `--context
staging`" after ``--context prod``), refused as the attempt passed it (`-n auto` after
``pytest -n auto``), and set otherwise by the user's own command (`pytest -n 2`): then the value,
not the program or the flag, is what stays forbidden, said once. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..models import Action, Check
from .clauses import _QUOTED
from .quoted import commands_of, ran_segments, unredirected
from .shell_effects import _program, _words

_FLAG = re.compile(r"^(--?[A-Za-z][\w.-]*)(?:(?:=|\s+)([^\s-][^\s]*))?$")


# An unquoted flag with its value, the value closing the clause ("pass --context staging, ...").
BARE_FLAG = re.compile(
    r"(?<![\w-])(--[A-Za-z][\w.-]*(?:=\S+|\s+[^\s,;.!?-][^\s,;!?]*(?=[,;.!?]|$))?)"
)


def flagged(span: str, corrected: Sequence[Action]) -> str | None:
    """The corrected command with the flag ``span`` names, set as the user sets it: "pass
    `--context staging`" after ``--context prod`` asks for the flag with another value, so
    the flag itself is what the user wants run. None when ``span`` is no flag or nothing ran."""
    match = _FLAG.match(span)
    if match is None:
        return None
    flag, value = match.groups()
    segments = ran_segments(commands_of(corrected))
    for words in segments:
        for i, word in enumerate(words):
            if word != flag and not word.startswith(flag + "="):
                continue
            valued = word == flag and i + 1 < len(words) and not words[i + 1].startswith("-")
            rest = i + 2 if valued else i + 1
            if value is None or " ".join(words[i:rest]) in (f"{flag} {value}", f"{flag}={value}"):
                return None  # the flag as the attempt passed it: what the user objects to
            return " ".join([*words[:i], flag, value, *words[rest:]])
    return " ".join([*segments[0], span]) if segments else None


def as_passed(span: str, corrected: Sequence[Action]) -> bool:
    """Whether ``span`` is a flag with its value exactly as the attempt passed it (``-n auto``
    after ``pytest -n auto``): quoted back, whatever the clause's words, it is what the user
    objects to, so the value, not the program or the flag, is what stays forbidden."""
    match = _FLAG.match(span)
    if match is None or match.group(2) is None:
        return False
    return flagged(span, corrected) is None and any(
        span in (" ".join(w[i : i + 2]), w[i])
        for a in corrected
        if a.kind == "command"
        for w in [unredirected(_words(a.command))]
        for i in range(len(w))
    )


def _settings(words: Sequence[str]) -> dict[str, str]:
    """The flags ``words`` set to a value that is no path (``-n auto``, ``--env=prod``)."""
    out: dict[str, str] = {}
    for word, nxt in zip(words, [*words[1:], ""], strict=True):
        flag, eq, value = word.partition("=")
        if not re.fullmatch(r"--?[A-Za-z][\w.-]*", flag):
            continue
        value = value if eq else nxt
        if value and value[0] != "-" and not re.search(r"[/.]", value):
            out[flag] = value
    return out


def revalued(clause: str, objected: Sequence[str], corrected: Sequence[Action]) -> list[str]:
    """The commands of the attempt's programs a clause quotes that set a flag the attempt set
    (or the user objects to) at another value (`pytest -n 2` after ``pytest -n auto``): the
    value's replacement, the user's example whatever words the clause reads as negating."""
    ran = ran_segments(commands_of(corrected))
    programs = {_program(s)[0].lower() for s in ran}
    flags: dict[str, set[str]] = {}
    for words in [*ran, *(_words(o) for o in objected)]:
        for flag, value in _settings(words).items():
            flags.setdefault(flag, set()).add(value)
    out: list[str] = []
    for match in _QUOTED.finditer(clause):
        words = _words((match.group(1) or match.group(2)).strip())
        if not words or words[0].lower() not in programs:
            continue
        if any(f in flags and v not in flags[f] for f, v in _settings(words).items()):
            out.append(" ".join(words))
    return out


def unsubsumed(
    checks: list[Check], narrowed: set[str], objected: set[str], corrected: Sequence[Action]
) -> list[Check]:
    """``checks`` without a narrowed ``never_ran`` that the words the user objects to already
    forbid (``never runs pytest -n auto`` beside ``never runs -n auto``): said once. Judged on
    what the attempt ran: every command of it the narrowed check forbids, the other forbids."""
    ran = [" ".join(s) for s in ran_segments(commands_of(corrected))]

    def forbids(check: Check) -> set[str]:
        flags = 0 if check.case_sensitive else re.IGNORECASE
        return {r for r in ran if re.search(str(check.value), r, flags)}

    out: list[Check] = []
    for check in checks:
        mine = (
            forbids(check) if check.kind == "never_ran" and str(check.value) in narrowed else set()
        )
        if not mine or not any(
            c.kind == "never_ran"
            and str(c.value) in objected
            and c.value != check.value
            and mine <= forbids(c)
            for c in checks
        ):
            out.append(check)
    return out
