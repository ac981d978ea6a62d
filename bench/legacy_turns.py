"""The turn heuristic the harvest used before the turn classifier: the baseline of bench/turns.py.

A frozen copy, kept only to measure against: a correction or praise by its opening words,
everything else a new request.
"""

from __future__ import annotations

import re
from typing import Literal

FeedbackKind = Literal["correction", "praise", "mixed", "none"]

_CORRECTION_START = re.compile(
    r"^(?:no\b|nope\b|wrong\b|incorrect\b|not\s+(?:quite|right|what|like\s+that|that)\b"
    r"|that(?:'s|\s+is|\s+was)\s+(?:wrong|not|incorrect|bad|broken)\b"
    r"|this\s+(?:is\s+wrong|is\s+not|isn't|doesn't|does\s+not|broke)\b"
    r"|it\s+(?:doesn't|does\s+not|didn't|did\s+not|still|is\s+still|fails|failed)\b"
    r"|you\s+(?:forgot|missed|didn't|did\s+not|broke|should(?:n't)?|need\s+to|were\s+supposed"
    r"|misunderstood)\b"
    r"|(?:please\s+)?(?:don't|do\s+not|never|stop|avoid|always|undo|revert)\b"
    r"|actually\b|instead\b|why\s+did\s+you\b|i\s+(?:said|told\s+you|asked\s+for|meant)\b"
    r"|still\s+(?:wrong|broken|failing|not)\b|try\s+again\b)",
    re.IGNORECASE,
)
_CORRECTION_ANYWHERE = re.compile(
    r"\b(?:that(?:'s|\s+is)\s+(?:wrong|not\s+what)|not\s+what\s+i\s+(?:asked|wanted|meant)"
    r"|you\s+should\s+have|please\s+don't|(?:don't|do\s+not|never)\s+use|always\s+use"
    r"|use\s+\S+(?:\s+\S+)?\s+instead)\b",
    re.IGNORECASE,
)
_PRAISE_START = re.compile(
    r"^(?:thanks|thank\s+you|thx|great|perfect|nice|awesome|excellent|good\s+job|well\s+done"
    r"|looks\s+(?:good|great)|lgtm|exactly|correct|that\s+works|works\s+(?:now|great|perfectly)"
    r"|yes[,!. ]+(?:that|this|exactly|perfect)|brilliant|love\s+it)\b",
    re.IGNORECASE,
)


def classify(text: str) -> FeedbackKind:
    """What a follow-up prompt says about the previous attempt."""
    text = text.strip().lstrip("\"'`*-> ")
    praise = _PRAISE_START.match(text)
    if praise:
        rest = text[praise.end() :]
        if re.search(r"\bbut\b", rest, re.IGNORECASE) or _CORRECTION_ANYWHERE.search(rest):
            return "mixed"
        return "praise"
    head = text[:400]
    if _CORRECTION_START.match(head) or _CORRECTION_ANYWHERE.search(head):
        return "correction"
    return "none"


def legacy_kind(text: str) -> str:
    """The old verdict as one of the four turn kinds ("none" was a new request)."""
    kind = classify(text)
    return {"correction": "correction", "mixed": "correction", "praise": "praise"}.get(
        kind, "new_request"
    )
