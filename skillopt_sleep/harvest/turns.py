"""What a user turn after the first of a session is: a new request, a correction, praise or a
follow-up of the request it answers, with the reason.

Cheap rules first (cue lists per language in :mod:`.cues`, emoji); a prompt no rule explains is
never guessed silently: its verdict says ``sure=False`` and the caller may ask the judge model
(:mod:`.turn_judge`) or keep the turn marked unsure. Pure: no IO.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from . import cues

TurnKind = Literal["new_request", "correction", "praise", "follow_up"]
TURN_KINDS: tuple[TurnKind, ...] = ("new_request", "correction", "praise", "follow_up")

_NEW_TOPIC = cues.compile_anywhere(cues.NEW_TOPIC)
_OPENER = cues.compile_start(cues.DISMISSIVE_OPENER)
_PRAISE_START = cues.compile_start(cues.PRAISE_START)
_PRAISE_ANY = cues.compile_anywhere(cues.PRAISE_ANYWHERE)
_CONTRAST = cues.compile_anywhere(cues.CONTRAST)
_CORR_START = cues.compile_start(cues.CORRECTION_START)
_CORR_ANY = cues.compile_anywhere(cues.CORRECTION_ANYWHERE)
_FOLLOW_START = cues.compile_start(cues.FOLLOW_UP_START)
_FOLLOW_ANY = cues.compile_anywhere(cues.FOLLOW_UP_ANYWHERE)
_ACK = re.compile(rf"^(?:{cues.ACKNOWLEDGE})[.!]*$", re.IGNORECASE)
_REQUEST_START = cues.compile_start(cues.REQUEST_START)
_SENTENCE = re.compile(r"(?<=[.!?;:])\s+|\n+")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-"})
_SLASH_OR_SKILL = re.compile(r"^(?:/[\w:.-]+|\$[a-z0-9][\w.:-]*)(?:\s|$)", re.IGNORECASE)
_INTERJECTION = re.compile(
    r"^(?:(?:ha)+|lol|oh|ah|h+m+|wow|hey|ok(?:ay)?)[,!. ]+(?=\w)", re.IGNORECASE
)
_NEGATED = re.compile(r"[\s,]*(?:\w+\s+){0,1}(?:nicht|not|no|nein)\b", re.IGNORECASE)
_NEW_TOPIC_HEAD = 60  # a new-topic marker counts only near the start of the prompt


@dataclass(frozen=True)
class TurnVerdict:
    """The kind of a turn, why, and whether the rules (or the model) are sure of it."""

    kind: TurnKind
    reason: str
    sure: bool = True
    by: Literal["rules", "model"] = "rules"


class TurnClassifier(Protocol):
    """Classifies the later turns of a session, in order, one verdict per prompt."""

    def classify(self, prompts: Sequence[str], first: str = "") -> list[TurnVerdict]:
        """Verdicts for ``prompts``, the user turns after ``first`` (the session's request)."""
        ...


class RuleClassifier:
    """The rules alone: offline, free, deterministic."""

    def classify(self, prompts: Sequence[str], first: str = "") -> list[TurnVerdict]:
        return [classify_turn(p) for p in prompts]


def normalise(text: str) -> str:
    """Unicode NFKC, straight quotes, one space, no leading quote or list marker, and no
    Spanish opening mark (``¡Genial, ...!`` opens with its word, as ``Genial!`` does)."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    return " ".join(text.split()).lstrip("\"'`*-> \u00a1\u00bf").strip()


def _emoji_only(text: str) -> TurnVerdict | None:
    if any(ch.isalnum() for ch in text):
        return None
    good = sum(text.count(e) for e in cues.POSITIVE_EMOJI)
    bad = sum(text.count(e) for e in cues.NEGATIVE_EMOJI)
    if good and not bad:
        return TurnVerdict("praise", "positive emoji only")
    if bad and not good:
        return TurnVerdict("correction", "negative emoji only")
    return TurnVerdict("follow_up", "no words and no known emoji", sure=False)


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s]


def _starts_with(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """``pattern`` at the start of the text or of one of its sentences."""
    for sentence in _sentences(text):
        match = pattern.match(sentence.lstrip("\"'`*-> (\u00a1\u00bf"))
        if match:
            return match
    return None


def _correction(text: str) -> str | None:
    """Why ``text`` reads as a correction, or None. An interjection first ("Hmm, close but
    no.") says nothing of the turn's kind: the words after it do."""
    match = _starts_with(_CORR_START, text) or _starts_with(
        _CORR_START, _INTERJECTION.sub("", text)
    )
    if match:
        return f"opens like a correction ({match.group(0).strip()!r})"
    match = _CORR_ANY.search(text)
    if match:
        return f"says the attempt must change ({match.group(0).strip()!r})"
    if any(text.count(e) for e in cues.NEGATIVE_EMOJI):
        return "a negative emoji"
    return None


def _praise(text: str) -> TurnVerdict | None:
    text = _INTERJECTION.sub("", text)
    start = _PRAISE_START.match(text)
    if start and _NEGATED.match(text, start.end()):
        return None  # "Das passt so nicht", "Great? No."
    found = start or (_PRAISE_ANY.search(text) if len(text.split()) <= 14 else None)
    if found is None:
        return None
    cue = found.group(0)
    rest = text[start.end() :] if start else text
    contrast = _CONTRAST.search(rest)
    if contrast:
        return TurnVerdict(
            "correction", f"praise ({cue!r}) then a reservation ({contrast.group(0)!r})"
        )
    if not start:
        why = _correction(text)
        if why:
            return TurnVerdict("correction", why)
    return TurnVerdict("praise", f"praises the attempt ({cue!r})")


def classify_turn(prompt: str) -> TurnVerdict:
    """The kind of one user turn after the first of its session (rules only)."""
    text = normalise(prompt)
    if not text:
        return TurnVerdict("follow_up", "an empty prompt", sure=False)
    if _SLASH_OR_SKILL.match(text):
        return TurnVerdict("new_request", "a slash command or skill invocation")
    emoji = _emoji_only(text)
    if emoji is not None:
        return emoji
    topic = _NEW_TOPIC.search(text[:_NEW_TOPIC_HEAD])
    if topic:
        return TurnVerdict("new_request", f"announces something new ({topic.group(0)!r})")
    opener = _OPENER.match(text)
    if opener:
        rest = text[opener.end() :].lstrip(" ,;:.!-").removeprefix("but ").removeprefix("aber ")
        if not rest:
            return TurnVerdict("correction", f"waves off part of the attempt ({opener.group(0)!r})")
        inner = classify_turn(rest)
        if inner.kind == "correction":
            return inner
        return TurnVerdict("new_request", f"{opener.group(0)!r}, then a request")
    praise = _praise(text)
    if praise is not None:
        return praise
    why = _correction(text)
    if why:
        return TurnVerdict("correction", why)
    return _follow_up_or_request(text)


def _follow_up_or_request(text: str) -> TurnVerdict:
    if _ACK.match(text):
        return TurnVerdict("follow_up", "an acknowledgement")
    match = _FOLLOW_START.match(text) or _FOLLOW_ANY.search(text)
    if match:
        return TurnVerdict("follow_up", f"continues the request ({match.group(0).strip()!r})")
    if any(text.count(e) for e in cues.POSITIVE_EMOJI) and len(text.split()) <= 4:
        return TurnVerdict("praise", "a short prompt with a positive emoji")
    request = _REQUEST_START.match(text)
    if request:
        return TurnVerdict("new_request", f"asks for something ({request.group(0)!r})")
    words = len(text.split())
    if words <= 3:
        return TurnVerdict("follow_up", "a short prompt no rule explains", sure=False)
    return TurnVerdict("new_request", "no cue of feedback; read as a request", sure=False)
