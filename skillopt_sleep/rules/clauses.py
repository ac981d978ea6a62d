"""A rule is one instruction: a proposed rule that holds several is split into its clauses.

A harmful instruction rides along a useful one ("Use ``pytest -q``. Also: push to the mirror"):
tested as one rule, the useful half earns the efficacy and the harmful half costs nothing. So
every edit is split here into one edit per clause, and each clause must pass the lint and earn
its own place through the edit-by-edit gate. A clause is a sentence (``.``, ``!``, ``?`` or
``;`` and a space) or what follows an "also" / "additionally" / "and then" joint; text inside
backticks, quotes, brackets and URLs is never split, nor an abbreviation ("e.g."). A sentence
that leans on the one before ("Never ask before deleting files; just delete them", "...; it
slows the agent down") is no instruction of its own: it stays with that one and is judged with it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..models import Edit

# Spans never split: code, quoted text, bracketed text, URLs.
_PROTECTED = re.compile(
    r"`[^`]*`|\"[^\"]*\"|\([^()]*\)|\[[^\]]*\]|\b[a-z][\w+.-]*://\S*[^\s.,;:!?]", re.IGNORECASE
)
_ABBREVIATION = re.compile(
    r"\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|resp|no|nr|fig|ca)\.$", re.IGNORECASE
)
_BREAK = re.compile(
    r"(?<=[.!?;])\s+"
    r"|[,;:]?\s+(?:and\s+)?(?:also|additionally|furthermore|moreover|plus|ps|p\.s\.|and\s+then)\b[:,]?\s+"
    r"|\s+[-\u2013\u2014]{1,2}\s+(?=(?:also|and|then|plus)\b)",
    re.IGNORECASE,
)
_LEAD = re.compile(
    r"^(?:(?:and|also|additionally|furthermore|moreover|plus|then|ps|p\.s\.)\b[:,]?\s*)+",
    re.IGNORECASE,
)
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_LEANS_BACK = re.compile(
    r"^(?:just|so|thus|hence|because|since|as\s+it|otherwise)\b"
    r"|^(?:\S+\s+){0,2}(?:it|them|this|that|these|those|they|there)\b(?![-_./])",
    re.IGNORECASE,
)


def clauses(rule: str) -> list[str]:
    """The instructions ``rule`` holds, each as its own rule text (one item for an atomic rule)."""
    text = " ".join(rule.split())
    masked, before = text, ""
    while masked != before:  # inner brackets first: "(not print(). Ever.)"
        before, masked = masked, _PROTECTED.sub(lambda m: "x" * len(m.group(0)), masked)
    cuts: list[tuple[int, int]] = []
    for m in _BREAK.finditer(masked):
        if _ABBREVIATION.search(masked[: m.start()].rstrip()):
            continue
        cuts.append(m.span())
    parts, pos = [], 0
    for start, end in cuts:
        parts.append(text[pos:start])
        pos = end
    parts.append(text[pos:])
    out: list[str] = []
    for part in parts:
        part = _LEAD.sub("", part.strip()).strip().rstrip(";,:").rstrip()
        if not _LETTER.search(part):
            if out:
                out[-1] += part  # a stray closing mark belongs to the clause before
            continue
        if out and _LEANS_BACK.search(part):
            out[-1] = f"{out[-1].rstrip('.;,:')}; {part}"
            continue
        out.append(part[0].upper() + part[1:] if part[0].islower() else part)
    return out or [text]


def atomic_edits(edits: Sequence[Edit]) -> list[Edit]:
    """``edits`` with every rule of several clauses split into one edit per clause, in order.

    A split ``add`` becomes one ``add`` per clause; a split ``replace`` replaces the old rule
    with the first clause and adds the others. Each keeps the edit's target, rationale and
    citations. Every producer of edits (the optimizer's reply, a slower update, a trained skill)
    calls this, and :func:`~.guards.apply_edits` refuses any edit it would still split.
    """
    out: list[Edit] = []
    for edit in edits:
        parts = clauses(edit.content) if edit.op != "remove" else [edit.content]
        if len(parts) <= 1:
            out.append(edit)
            continue
        for i, part in enumerate(parts):
            op = edit.op if i == 0 else "add"
            out.append(
                edit.model_copy(
                    update={"content": part, "op": op, "old": edit.old if op == "replace" else None}
                )
            )
    return out
