"""The sign a line of the answer ends with, or never ends with, named in words: "kein Stichpunkt
endet mit einem Punkt", "every bullet ends with a full stop", "no line ends with a comma".

A correction that names a sign in words quotes nothing, so no span carries it; a small
vocabulary per language (the signs, the verbs of ending) reads it, and what it yields is only a
candidate: :mod:`.held_text` keeps the check when it fails on the corrected attempt and passes
on the user's example (the attempt with every line ended as the correction says). Pure.
"""

from __future__ import annotations

import re

from .clauses import _NEGATIVE, _QUOTED, _clauses

_I = re.IGNORECASE
# sign -> its names: Latin-script words whole, Chinese, Japanese and Korean ones inside words
_SIGNS: tuple[tuple[str, str, str], ...] = (
    (
        ".",
        r"full\s+stops?|periods?|dots?|punkt|point|punto|ponto|punt",
        "\ub9c8\uce68\ud45c|\u53e5\u53f7|\u53e5\u70b9|\u30d4\u30ea\u30aa\u30c9",
    ),
    (",", r"commas?|kommas?|virgules?|comas?|virgol[ae]|v[ií]rgulas?", "\uc27c\ud45c|\u9017\u53f7"),
    (
        "!",
        (
            r"exclamation\s+marks?|ausrufezeichen|point\s+d'exclamation"
            r"|signos?\s+de\s+exclamaci[oó]n|punt[oi]\s+esclamativ[oi]|uitroeptekens?"
        ),
        "\ub290\ub08c\ud45c|\u611f\u53f9\u53f7",
    ),
    (":", r"colons?|doppelpunkte?|deux-points|dos\s+puntos|due\s+punti|dubbele\s+punt", ""),
    (";", r"semicolons?|semikolons?|point-virgule|punto\s+y\s+coma|puntkomma", ""),
)
_ENDING = re.compile(
    r"(?<!\w)(?:end(?:s|ed|ing)?|endet|enden|termine\w*|termina\w*|finisce\w*|finiscono"
    r"|eindig\w*|acaba\w*|close[sd]?)(?!\w)|\u7d42\u308f|\ub05d\ub098|\ub05d\uc5d0|\u7ed3\u5c3e",
    _I,
)


def _named_sign(clause: str) -> tuple[str, str] | None:
    """The sign a clause names, and the clause without its name ("full stop" is no "stop")."""
    for sign, words, joined in _SIGNS:
        for pattern in (rf"(?<!\w)(?:{words})(?!\w)", joined):
            if pattern and re.search(pattern, clause, _I):
                return sign, re.sub(pattern, " ", clause, flags=_I)
    return None


def line_ends(correction: str) -> list[tuple[str, bool]]:
    """(sign, wanted) for each clause that names a sign a line ends with: wanted False when the
    clause is said against it ("kein Stichpunkt endet mit einem Punkt")."""
    found: list[tuple[str, bool]] = []
    for clause, _ in _clauses(correction):
        named = _named_sign(clause) if _ENDING.search(clause) else None
        if named is None:
            continue
        sign, rest = named
        wanted = not _NEGATIVE.search(_QUOTED.sub(" ", rest))
        if (sign, wanted) not in found:
            found.append((sign, wanted))
    return found


def ended(text: str, correction: str) -> str:
    """``text`` with every non-empty line ended as ``correction`` says."""
    for sign, wanted in line_ends(correction):
        lines = [line.rstrip() for line in text.split("\n")]
        if wanted:
            lines = [ln if not ln or ln.endswith(sign) else ln + sign for ln in lines]
        else:
            lines = [ln.rstrip(sign).rstrip() if ln.endswith(sign) else ln for ln in lines]
        text = "\n".join(lines)
    return text


def line_end_checks(correction: str) -> list[tuple[str, str]]:
    """Regex candidates: no line ends with the sign, or every non-empty line does."""
    out: list[tuple[str, str]] = []
    for sign, wanted in line_ends(correction):
        s = re.escape(sign)
        body = rf"[^{s}\s][ \t]*(?:\n|\Z)" if wanted else rf"{s}[ \t]*(?:\n|\Z)"
        out.append(("regex", rf"(?s)\A(?!.*{body})"))
    return out


_PLAIN = re.compile(r"^\(\?s\)\\A\(\?!\.\*(\[\^)?\\?(.)(?:\\s\])?\[ \\t\]\*\(\?:\\n\|\\Z\)\)$")


def plain_line_end(value: str) -> str | None:
    """A line-end regex of :func:`line_end_checks` as people read it; None for any other."""
    match = _PLAIN.match(value)
    if match is None:
        return None
    every, sign = match.groups()
    return f"every line ends with '{sign}'" if every else f"no line ends with '{sign}'"
