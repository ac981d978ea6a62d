"""Which languages a text is written in, so a rule in a language the user never wrote in is refused.

A rule no one in the project can read is a rule no one reviews: the lint's patterns are written
for the user's words, and a reviewer skims past what they cannot read. So the lint compares a
rule's languages with the languages of the user's own texts (their requests and corrections,
and the instruction files they wrote). Languages are told apart by script (Cyrillic, Han,
Arabic, ...) and, within the Latin script, by each language's most frequent short words: a
text is of a Latin language when two or more of its words are among that language's and more
than among any other's. A rule too short to tell is judged by its script alone. English is
always read: the product itself (its reports, its review, the optimizer's instructions) speaks
it, so whoever reviews a night reads it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_VOCABULARY: dict[str, str] = {
    "en": "the a an and or to of in on for with is are be not never always before after when use run "
    "do don't it its this that from by as at if into than then every each only keep",
    "fr": "le la les des un une et ou est sont pas ne jamais toujours avant après quand qui que sur "
    "dans pour avec ce cette du au aux vous tu ton ta tes votre vos ignorez",
    "es": "el la los las un una y o es son no nunca siempre antes después cuando que en para con "
    "por del al tu su sus este esta pidas borrar hacer",
    "de": "der die das den dem ein eine einen und oder ist sind nicht nie immer vor nach wenn dass "
    "mit für von zu auf aus du bevor sie ihr dein deine",
    "it": "il lo la gli le un una e o è sono non mai sempre prima dopo quando che per con del della "
    "di da in tu",
    "pt": "o a os as um uma e ou é são não nunca sempre antes depois quando que para com do da dos "
    "das em você",
    "nl": "de het een en of is zijn niet nooit altijd voor na wanneer dat met van op je jij",
}
_WORDS = {lang: frozenset(words.split()) for lang, words in _VOCABULARY.items()}
_WORD = re.compile(r"[^\W\d_][\w']*", re.UNICODE)
_SCRIPT_NAMES = (
    "LATIN",
    "CYRILLIC",
    "GREEK",
    "ARABIC",
    "HEBREW",
    "CJK",
    "HIRAGANA",
    "KATAKANA",
    "HANGUL",
    "DEVANAGARI",
    "THAI",
    "ARMENIAN",
    "GEORGIAN",
    "BENGALI",
    "TAMIL",
    "ETHIOPIC",
)
_SCRIPT_OF = {"CJK": "han", "HIRAGANA": "japanese", "KATAKANA": "japanese"}


def _script(ch: str) -> str | None:
    name = unicodedata.name(ch, "")
    for script in _SCRIPT_NAMES:
        if name.startswith(script):
            return _SCRIPT_OF.get(script, script.lower())
    return None


def _scripts(text: str) -> set[str]:
    counts: dict[str, int] = {}
    for ch in text:
        if ch.isalpha():
            script = _script(ch)
            if script is not None:
                counts[script] = counts.get(script, 0) + 1
    return {s for s, n in counts.items() if n >= 2}


def _latin_language(text: str) -> str | None:
    words = [w.lower() for w in _WORD.findall(re.sub(r"`[^`]*`|\S+://\S+", " ", text))]
    hits = {lang: sum(w in vocab for w in words) for lang, vocab in _WORDS.items()}
    best = max(hits, key=lambda lang: (hits[lang], lang == "en"))
    others = max(n for lang, n in hits.items() if lang != best)
    return best if hits[best] >= 2 and hits[best] > others else None


def languages(text: str) -> frozenset[str]:
    """The languages (or, outside the Latin script, the scripts) ``text`` is written in."""
    found = _scripts(text)
    out = {s for s in found if s != "latin"}
    if "latin" in found:
        out.add(_latin_language(text) or "latin")
    return frozenset(out)


def users_languages(texts: Iterable[str]) -> frozenset[str]:
    """Every language the user wrote in, each line judged on its own, and English."""
    out: set[str] = {"en"}
    for text in texts:
        for paragraph in text.split("\n"):
            out |= languages(paragraph)
    return frozenset(out)


def foreign_language(rule: str, known: frozenset[str]) -> str | None:
    """A language ``rule`` is written in that is not one of ``known``, or None."""
    for lang in sorted(languages(rule)):
        if lang == "latin":
            if not known & ({"latin"} | set(_WORDS)):
                return "latin"
        elif lang not in known:
            return lang
    return None
