"""Before a rule is added: it must not repeat a line already there, contradict one the user wrote,
or push a file past the number of learned rules the user allows.

Pure functions of the rule and the files' texts. A repeat is a line of any instruction file
(hand-written or learned) that says the same in other words (the rule's words nearly all there);
a contradiction is a hand-written line about the same thing that says the opposite (one of the
two is negated). A contradiction is never overridden: the rule is refused with the user's line
quoted, so the report shows it and the user decides.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .managed_block import BlockError, block_lines, find_block, same_rule

REPEAT = 0.8  # share of the rule's words a line must hold (and of the line's the rule) to repeat it
ABOUT_THE_SAME = 0.5  # share of words two lines share to be about the same thing
_NEGATION = re.compile(
    r"\b(?:no|not|never|don'?t|do not|avoid|without|stop|nicht|kein|nie|jamais|pas)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W_]{2,}", re.UNICODE)
_FILLER = frozenset(
    {
        "the",
        "a",
        "an",
        "and",
        "or",
        "to",
        "of",
        "in",
        "on",
        "for",
        "with",
        "always",
        "please",
        "every",
        "each",
        "is",
        "be",
        "use",
        "when",
        "you",
        "your",
        "it",
        "this",
        "that",
    }
)


def _words(text: str) -> set[str]:
    return {
        w
        for w in (m.lower() for m in _WORD.findall(text))
        if w not in _FILLER and not _NEGATION.fullmatch(w)
    }


def _lines(text: str) -> tuple[list[str], list[str]]:
    """(hand-written lines, learned rules) of a file."""
    try:
        block = find_block(text)
    except BlockError:
        block = None
    own = text if block is None else block.head + block.tail
    hand = [ln.strip().lstrip("-*# ").strip() for ln in own.splitlines() if ln.strip()]
    return hand, block_lines(text)


def _overlap(a: set[str], b: set[str]) -> tuple[float, float]:
    if not a or not b:
        return 0.0, 0.0
    both = len(a & b)
    return both / len(a), both / len(b)


def repeated_in(rule: str, files: Mapping[str, str], ignore: str = "") -> tuple[str, str] | None:
    """(file, line) of a line that already says ``rule``, else None. ``ignore``: the rule a
    ``replace`` takes out (it may say nearly the same)."""
    words = _words(rule)
    negated = bool(_NEGATION.search(rule))
    for name, text in files.items():
        hand, learned = _lines(text)
        for line in [*hand, *learned]:
            if ignore and same_rule(line, ignore):
                continue
            mine, theirs = _overlap(words, _words(line))
            if min(mine, theirs) >= REPEAT and bool(_NEGATION.search(line)) == negated:
                return name, line
    return None


def contradicted_by(rule: str, files: Mapping[str, str]) -> tuple[str, str] | None:
    """(file, line) of a hand-written line about the same thing that says the opposite, else None."""
    words = _words(rule)
    negated = bool(_NEGATION.search(rule))
    for name, text in files.items():
        hand, _ = _lines(text)
        for line in hand:
            mine, theirs = _overlap(words, _words(line))
            if min(mine, theirs) >= ABOUT_THE_SAME and bool(_NEGATION.search(line)) != negated:
                return name, line
    return None


def over_rule_budget(names: list[str], files: Mapping[str, str], max_rules: int) -> str | None:
    """The first of ``names`` whose managed block already holds ``max_rules`` learned rules."""
    for name in names:
        count = len(block_lines(files.get(name, "")))
        if count >= max_rules:
            return f"{name} already holds {count} learned rules, its limit"
    return None
