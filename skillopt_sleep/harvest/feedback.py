"""The user's follow-up: is it a correction or praise, and what checkable rule does it state?

Heuristics only (pure, offline). A mined check is kept only when it is well formed and
*discriminates*: it must fail on the attempt the user corrected, otherwise it does not capture
what the user objected to.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import ValidationError

from ..models import Check, Outcome
from ..night.judge import rule_check

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

_QUOTED = r"""[`'"\u201c\u2018](?P<q>[^`'"\u201d\u2019\n]{1,120})[`'"\u201d\u2019]"""
_PHRASE = r"(?P<w>[^\s,;.!?]+(?:\s+[^\s,;.!?]+){0,3})"
_VALUE = rf"(?:{_QUOTED}|{_PHRASE})"
_STOP = {
    "for",
    "in",
    "here",
    "there",
    "when",
    "because",
    "instead",
    "to",
    "from",
    "on",
    "with",
    "and",
    "or",
    "but",
    "rather",
    "anymore",
    "again",
    "please",
    "now",
    "then",
    "so",
    "since",
    "if",
    "as",
    "like",
    "every",
    "each",
    "this",
    "that",
    "it",
    "of",
    "at",
    "by",
    "ever",
}
_ARTICLES = {"the", "a", "an"}

# (kind, pattern). ``subject`` words pick the kind for "X must be 'Y'" rules.
_USE = re.compile(rf"\b(?:always|must|should|please)\s+(?:use|run|call)\s+{_VALUE}", re.IGNORECASE)
_USE_INSTEAD = re.compile(
    rf"\buse\s+{_VALUE}\s+instead(?:\s+of\s+(?P<y>[^\s,;!?]+))?", re.IGNORECASE
)
_AVOID = re.compile(
    rf"\b(?:never|don't|do\s+not|stop|avoid|no\s+more)\s+(?:use|using|call|calling|run|running"
    rf"|import|importing)\s+{_VALUE}",
    re.IGNORECASE,
)
_MUST_BE = re.compile(
    r"\b(?P<subj>title|heading|header|first\s+line)?\s*(?:must|should|has\s+to|needs\s+to)\s+"
    r"(?P<verb>be|say|read|start\s+with|begin\s+with|contain|include|mention)\s+" + _QUOTED,
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


def outcome_of(kinds: list[FeedbackKind]) -> Outcome:
    """``failure`` for corrections, ``success`` for praise, ``mixed`` for both, else ``unknown``."""
    bad = any(k in ("correction", "mixed") for k in kinds)
    good = any(k in ("praise", "mixed") for k in kinds)
    if bad and good:
        return "mixed"
    if bad:
        return "failure"
    return "success" if good else "unknown"


def combine_outcomes(a: Outcome, b: Outcome) -> Outcome:
    """The outcome of one task seen twice (two occurrences, or a re-read with more feedback)."""
    if a == "unknown" or a == b:
        return b
    if b == "unknown":
        return a
    return "mixed"


def _value(match: re.Match[str]) -> str:
    quoted = match.group("q")
    if quoted:
        return quoted.strip()
    words: list[str] = []
    for word in match.group("w").split():
        if word.lower() in _STOP:
            break
        if not words and word.lower() in _ARTICLES:
            continue
        words.append(word)
    return " ".join(words).strip("`'\"()[]{}:")


def candidate_checks(feedback: str) -> list[Check]:
    """Checks a correction states, before validation (see :func:`validated`)."""
    found: list[tuple[str, str]] = []
    for match in _MUST_BE.finditer(feedback):
        subject = (match.group("subj") or "").lower()
        verb = match.group("verb").lower()
        kind = (
            "heading"
            if subject in ("title", "heading", "header")
            else "starts_with"
            if verb.startswith(("start", "begin"))
            else "contains"
        )
        found.append((kind, match.group("q").strip()))
    for match in _USE.finditer(feedback):
        found.append(("contains", _value(match)))
    for match in _USE_INSTEAD.finditer(feedback):
        found.append(("contains", _value(match)))
        if match.group("y"):
            found.append(("not_contains", match.group("y").strip("`'\".:")))
    for match in _AVOID.finditer(feedback):
        found.append(("not_contains", _value(match)))
    checks: list[Check] = []
    for kind, value in found:
        if len(value) < 2 or value.lower() in _STOP | _ARTICLES:
            continue
        try:
            check = Check(kind=kind, value=value)  # type: ignore[arg-type]
        except ValidationError:
            continue
        if all((c.kind, c.value) != (check.kind, check.value) for c in checks):
            checks.append(check)
    return checks


def rule_passes(check: Check, text: str) -> bool | None:
    """Whether ``text`` passes a rule check (as the night's judge scores it); None for a rubric."""
    if check.kind == "rubric":
        return None
    return rule_check(check, text)[0]


def validated(checks: list[Check], rejected_attempt: str) -> list[Check]:
    """The checks that fail on the attempt the user corrected (they capture the correction).

    A rubric cannot be run offline; it is kept when it is specific enough to judge (a sentence).
    """
    kept: list[Check] = []
    for check in checks:
        if "[REDACTED" in str(check.value):
            continue  # a rule about a secret would carry the secret's shape into prompts
        verdict = rule_passes(check, rejected_attempt)
        if verdict is None:
            if len(str(check.value).split()) >= 4:
                kept.append(check)
        elif not verdict:
            kept.append(check)
    return kept
