"""Rules a correction states about the answer's text in plain words, in the shapes people use
rather than the exact sentences: a length to fit in ("it has to fit in 280 characters", "keep it
to 50 words", "moins de 100 caractères", read by :func:`.spans.limits`, as the held-text route
reads it), a reference format ("as `#88`, not PR 88"), words to leave out ("nothing from
`grafana.internal`", "nada de `Exception`", "don't say `simply`"), words to carry ("always
mention `BREAKING`"), a closing line, a fixed spelling ("it's spelled `GitHub`"). English,
German, French and Spanish, as :mod:`.cues` reads them.

Candidates only, like every mined check: :mod:`.feedback` keeps one when it fails on the attempt
the user corrected, and :mod:`.examples` and :mod:`.polarity` when it agrees with the user's own
example and with what the correction says against. Pure: no IO.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .spans import limits

_I = re.IGNORECASE
_Q = r"""[`'"\u201c\u2018]"""
_ENDQ = r"""[`'"\u201d\u2019]"""
_LIT = (  # an apostrophe between letters ("Don't") is no closing mark
    rf"{_Q}(?P<q>(?:[^`'\"\n\u201d\u2019]|(?<=\w)['\u2019](?=\w)){{1,80}}){_ENDQ}(?!\w)"
)
# A quoted form, then the form it replaces after a negation: "as `#88` ..., not as PR 88".
_INSTEAD_OF = re.compile(
    rf"{_LIT}[^.;!?`]{{0,50}}?(?:,\s*|\s+)(?:not|nicht|pas|no|never)\s+(?:as|als|comme|como|like)?\s*"
    r"(?P<b>[^`'\"\s.;,!?()][^`'\".;,!?()\n]{0,30}?)\s*(?=[.;,!?()]|$)",
    _I,
)
# A form the answer must use: "write pull requests as `#88`", "spell it `GitHub`".
_WRITE_AS = re.compile(
    rf"\b(?:write|writes|written|spell|spelled|spelt|format|formatted|refer\s+to|cite|schreib\w*"
    rf"|[ée]cri[st]?|[ée]crire|escrib\w*)\s+(?:[\w-]+\s+){{0,4}}?(?:as|als|comme|como|like)?\s*"
    rf"{_LIT}",
    _I,
)
_LEAVE_OUT = re.compile(
    rf"\b(?:nothing|none|nada|ninguna?|rien|aucune?|nichts|keinerlei)\s+(?:\w+\s+){{0,3}}?"
    rf"(?:from|of|de|d'|del|von|aus|mit|sobre)?\s*(?:the\s+|la\s+|el\s+|le\s+)?{_LIT}",
    _I,
)
_DONT_SAY = re.compile(
    rf"\b(?:don't|do\s+not|never|stop|nie|jamais|nunca|no)\s+(?:say|write|mention|print|show|include"
    rf"|put|use|sag\w*|schreib\w*|erw[aä]hn\w*|dis|[ée]cris|mentionne|digas|escribas|menciones"
    rf"|pongas)\s+(?:the\s+(?:word|phrase|term)\s+)?{_LIT}",
    _I,
)
_CARRY = re.compile(
    rf"\b(?:always|immer|toujours|siempre)\s+(?:\w+\s+){{0,2}}?(?:mention|include|say|add|name|put"
    rf"|erw[aä]hn\w*|nenn\w*|mentionne\w*|ajoute\w*|incluye|menciona|pon)\s+(?:the\s+)?{_LIT}",
    _I,
)
_LAST_LINE = re.compile(
    rf"\b(?:last|closing|final|bottom|letzte|derni[eè]re|[uú]ltima)\s+(?:line|zeile|ligne|l[ií]nea)"
    rf"\s+(?:\w+\s+){{0,3}}?{_LIT}",
    _I,
)


# The answer is a link and nothing else: "Only the URL, nothing else", "nur den Link".
_ONLY_LINK = re.compile(
    r"\b(?:only|just|nur|seulement|juste|solo|s[oó]lo|solamente|apenas|soltanto)\s+(?:the\s+|die"
    r"\s+|den\s+|l'|la\s+|le\s+|el\s+|o\s+|a\s+|il\s+)?(?:url|link|adresse|address|enlace"
    r"|endere[cç]o|indirizzo)s?\b",
    _I,
)
LINK_ALONE = r"(?s)\A\W*https?://[^\s<>()]+?\W*\Z"
_A_LINK = re.compile(r"https?://\S")


def _link_in_sight(text: str, answers: Sequence[str] | None) -> bool:
    """Whether "only the link" can speak of a link: one in the correction or in an answer it
    follows. "The merge bot only links titles that ..." after a title with no link in it asks
    for no link (``answers`` None: none known, the words alone decide)."""
    return answers is None or any(_A_LINK.search(t) for t in (text, *answers))


def _limit(unit: str, n: int) -> tuple[str, str | int]:
    if unit == "chars":
        return "max_chars", n
    if unit == "words":
        return "regex", rf"(?s)\A\W*(?:\w+\W+){{0,{n - 1}}}\w*\W*\Z"
    return "regex", rf"\A(?:.*\n){{0,{n - 1}}}.*\Z"


def _is_path(literal: str) -> bool:
    return "/" in literal or re.fullmatch(r"\.?[\w-]+\.[a-z]{1,5}", literal) is not None


def length_rules(text: str) -> list[tuple[str, str | int]]:
    """A length the answer must fit in, in characters, words or lines: the ceilings the
    held-text route reads (:func:`.spans.limits`), one vocabulary for both."""
    return [_limit(unit, n) for unit, n in limits(text)]


def plain_rules(text: str, answers: Sequence[str] | None = None) -> list[tuple[str, str | int]]:
    """Every rule ``text`` states of the answer in plain words, as (kind, value) candidates;
    ``answers``: the attempts it follows, where known."""
    found: list[tuple[str, str | int]] = length_rules(text)
    for match in _INSTEAD_OF.finditer(text):
        found.append(("not_contains", match.group("b").strip()))
    for pattern, kind in ((_WRITE_AS, "contains"), (_CARRY, "contains")):
        found += [(kind, m.group("q").strip()) for m in pattern.finditer(text)]
    found += [
        ("not_contains", m.group("q").strip())
        for p in (_LEAVE_OUT, _DONT_SAY)
        for m in p.finditer(text)
    ]
    if _ONLY_LINK.search(text) and _link_in_sight(text, answers):
        found.append(("regex", LINK_ALONE))
    for match in _LAST_LINE.finditer(text):
        found.append(("regex", re.escape(match.group("q").strip()) + r"\s*\Z"))
    return [
        (k, v)
        for k, v in found
        if not (isinstance(v, str) and (not v.strip() or (k != "regex" and _is_path(v))))
    ]
