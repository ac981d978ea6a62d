"""Rule checks a correction states: a command to use, a heading, a separator, a cap on bullets
or length, a formatting construct to avoid, a form of address (English and German).

Candidates only: :func:`skillopt_sleep.harvest.feedback.validated` keeps a candidate when it
fails on the attempt the user corrected (and passes on the attempt the user accepted, when the
session shows one). Pure: no IO.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..action_models import ACTION_KINDS
from ..models import Check
from .action_checks import plain_action
from .constructs import _BULLET, _CONSTRUCTS, NO_SHOUTING, format_rules
from .line_ends import plain_line_end
from .plain_rules import LINK_ALONE, plain_rules
from .text_checks import (
    ISO_DATE,
    LINKS_RELATIVE,
    VERSION_HEADING,
    check_or_none,
    heading_checks,
    stated_checks,
)

_I = re.IGNORECASE
_QUOTED = (  # an apostrophe between letters ("Don't") is no closing mark
    r"""[`'"\u201c\u2018\u201e](?P<q>(?:[^`'"\u201d\u2019\u201c\n]|(?<=\w)['\u2019](?=\w)){1,120})"""
    r"""[`'"\u201d\u2019\u201c](?!\w)"""
)
_PHRASE = r"(?P<w>[^\s,;.!?]+(?:\s+[^\s,;.!?]+){0,3})"
_VALUE = rf"(?:{_QUOTED}|{_PHRASE})"
_STOP_WORDS = (
    "for in here there when because instead to from on with and or but rather anymore again "
    "please now then so since if as like every each this that it of at by ever not statt "
    "anstatt bitte immer mit und oder für im in der die das den verwenden nutzen benutzen "
    "before after until unless you your me mich whenever vor bevor nach wenn"
)
_STOP = frozenset(_STOP_WORDS.split())
_ARTICLES = frozenset({"the", "a", "an", "der", "die", "das", "den", "ein", "eine"})
_NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "ein": 1,
    "eine": 1,
    "einen": 1,
    "zwei": 2,
    "drei": 3,
    "vier": 4,
    "fünf": 5,
    "funf": 5,
    "sechs": 6,
    "sieben": 7,
    "acht": 8,
    "neun": 9,
    "zehn": 10,
}
_NUM = r"(?P<n>\d{1,4}|" + "|".join(_NUMBERS) + r")"
_SEPARATORS = {
    "comma": ",",
    "commas": ",",
    "komma": ",",
    "kommas": ",",
    "semicolon": ";",
    "semicolons": ";",
    "semikolon": ";",
    "semikolons": ";",
    "pipe": "|",
    "pipes": "|",
    "tab": "\t",
    "tabs": "\t",
    "colon": ":",
    "doppelpunkt": ":",
    "slash": "/",
    "|": "|",
    ";": ";",
    ",": ",",
    ":": ":",
    "/": "/",
    "-": "-",
    "dash": "-",
    "bindestrich": "-",
}
_ADD_USE = r"(?:use|run|call|prefer|verwende|nimm|benutze|nutze|usa|utilise)"

_USE = re.compile(
    rf"\b(?:always|must|should|please|bitte|immer|siempre|toujours)\s+(?:{_ADD_USE})\s+{_VALUE}", _I
)
_USE_TICKED = re.compile(rf"\b{_ADD_USE}\s+(?:bitte\s+)?`(?P<q>[^`\n]{{2,80}})`", _I)
_USE_THEN = re.compile(
    rf"\b(?:immer|always|siempre)\s+{_VALUE}\s+(?:verwenden|nutzen|benutzen)", _I
)
_USE_NOT = re.compile(
    rf"\b{_ADD_USE}\s+(?:bitte\s+)?{_VALUE}\s*,?\s+(?:not|nicht|statt|instead of)\s+", _I
)
_USE_INSTEAD = re.compile(rf"\buse\s+{_VALUE}\s+instead(?:\s+of\s+(?P<y>[^\s,;!?]+))?", _I)
_AVOID = re.compile(
    rf"\b(?:never|don't|do\s+not|stop|avoid|no\s+more)\s+(?:use|using|call|calling|run|running"
    rf"|import|importing|add|adding)\s+{_VALUE}",
    _I,
)
_MUST_BE = re.compile(
    r"\b(?P<subj>title|heading|header|first\s+line|titel|[uü]berschrift)?\s*(?:must|should|has\s+to"
    r"|needs\s+to|muss|soll)\s+(?:(?:im|in|the|die|der)\s+\w+\s+)?(?P<verb>be|say|read|start\s+with"
    r"|begin\s+with|contain|include|mention|lauten|sein|hei[sß]en|enthalten|beginnen\s+mit)?\s*"
    + _QUOTED,
    _I,
)
_HEADING = re.compile(
    rf"\b(?:heading|header|title|section|[uü]berschrift|abschnitt)\s+{_QUOTED}", _I
)
_SEPARATOR = re.compile(
    r"(?:use|with|mit|separate\w*\s+(?:\w+\s+){0,3}(?:by|with)|trenn\w*\s+(?:\w+\s+){0,3}mit)\s+"
    r"(?:an?\s+|einem\s+|einer\s+)?(?P<s>[|;,:/]|comma|semicolon|pipe|tab|colon|slash|dash|komma"
    r"|semikolon|doppelpunkt|bindestrich)s?\b",
    _I,
)
_SEPARATOR_WORD = re.compile(r"separator|delimiter|trenn|spalten|columns?|separat", _I)
_MAX_ITEMS = re.compile(
    rf"(?:max(?:imum)?\.?|m[aá]xim[oa]|au\s+maximum|pas\s+plus\s+de|no\s+m[aá]s\s+de|at\s+most"
    rf"|no\s+more\s+than|up\s+to|h[oö]chstens|maximal|just|only|nur|seulement|s[oó]lo)\s+{_NUM}\s+"
    r"(?P<what>bullet(?:\s+point)?s?|points?|items?|stichpunkte?|punkte?|sentences?|s[aä]tzen?|words?"
    r"|w[oö]rter(?:n)?|characters?|chars?|zeichen|caract[eè]res|lines?|zeilen?|l[ií]neas|lignes"
    r"|palabras|mots|frases|phrases)",
    _I,
)
_ITEMS_MAX = re.compile(
    rf"{_NUM}\s+(?P<what>bullet(?:\s+point)?s?|points?|items?|stichpunkte?|sentences?|s[aä]tze|words?"
    r"|w[oö]rter|characters?|zeichen|lines?|zeilen)\s+(?:max(?:imum)?|at\s+most|h[oö]chstens)\b",
    _I,
)
_UNDER = re.compile(
    rf"(?:under|below|fewer\s+than|less\s+than|unter|weniger\s+als)\s+{_NUM}\s+"
    r"(?P<what>words?|w[oö]rter(?:n)?|characters?|chars?|zeichen|sentences?|s[aä]tzen?|lines?|zeilen)",
    _I,
)
_CALL_ME = re.compile(
    r"\b(?:[Cc]all\s+me|[Nn]enn\s+mich|[Aa]ddress\s+me\s+as)\s+(?P<name>[A-Z][\w-]{1,30})"
)
_NOT_X = re.compile(r"(?:,\s*|\b)(?:not|nicht)\s+" + _QUOTED, _I)
_FORMAL = re.compile(r"\b(?:mit\s+sie\s+an|siez\w*)\b|\bsie\b(?=[^.]*\bnicht\b[^.]*\bdu\b)", _I)
_INFORMAL = re.compile(r"\b(?:duz\w*|mit\s+du\s+an)\b", _I)
_DU = r"(?i:\b(?:du|dich|dir|dein\w*)\b)"
_SIE = r"\b(?:Sie|Ihnen|Ihr\w*)\b"


def _number(raw: str) -> int | None:
    raw = raw.lower()
    if raw.isdigit():
        n = int(raw)
        return n if n > 0 else None
    return _NUMBERS.get(raw)


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


def _limit(what: str, n: int) -> tuple[str, str | int]:
    """A check capping ``n`` items, sentences, words, characters or lines."""
    what = what.lower()
    if what.startswith(("char", "zeichen", "caract")):
        return "max_chars", n
    if what.startswith(("word", "wort", "wört", "wor", "palabra", "mot")):
        return "regex", rf"(?s)\A\W*(?:\w+\W+){{0,{n - 1}}}\w*\W*\Z"
    if what.startswith(("sentence", "satz", "sätz", "sät", "frase", "phrase")):
        return "regex", rf"(?s)\A(?:[^.!?]*[.!?]+){{0,{n}}}[^.!?]*\Z"
    if what.startswith(("line", "zeile", "línea", "linea", "ligne")):
        return "regex", rf"\A(?:.*\n){{0,{n - 1}}}.*\Z"
    return "regex", rf"(?ms)\A(?!(?:.*?{_BULLET}){{{n + 1}}})"


def _lengths(text: str) -> list[tuple[str, str | int]]:
    found: list[tuple[str, str | int]] = []
    for pattern in (_MAX_ITEMS, _ITEMS_MAX, _UNDER):
        for match in pattern.finditer(text):
            n = _number(match.group("n"))
            if n is not None and pattern is _UNDER:
                n -= 1  # "under 100 words": at most 99
            if n is not None and n >= 1:
                found.append(_limit(match.group("what"), n))
    return found


def _address(text: str) -> list[tuple[str, str | int]]:
    found: list[tuple[str, str | int]] = []
    name = _CALL_ME.search(text)
    if name:
        found.append(("contains", name.group("name")))
        for match in _NOT_X.finditer(text):
            found.append(("not_contains", match.group("q").strip()))
    if _FORMAL.search(text):
        found += [("regex", _SIE), ("regex", rf"(?s)\A(?!.*{_DU})")]
    elif _INFORMAL.search(text):
        found += [("regex", _DU), ("regex", rf"(?s)\A(?!.*{_SIE})")]
    return found


def _separator(text: str) -> list[tuple[str, str | int]]:
    if not _SEPARATOR_WORD.search(text) and not re.search(r"\b(?:not|statt|nicht)\b", text, _I):
        return []
    match = _SEPARATOR.search(text)
    if not match:
        return []
    char = _SEPARATORS.get(match.group("s").lower())
    return [("contains", char)] if char else []


def _commands(text: str) -> list[tuple[str, str | int]]:
    found: list[tuple[str, str | int]] = []
    for match in _MUST_BE.finditer(text):
        subject = (match.group("subj") or "").lower()
        verb = (match.group("verb") or "").lower()
        kind = (
            "heading"
            if subject.startswith(
                ("title", "heading", "header", "titel", "überschrift", "uberschrift")
            )
            else "starts_with"
            if verb.startswith(("start", "begin"))
            else "contains"
        )
        found.append((kind, match.group("q").strip()))
    for match in _HEADING.finditer(text):
        found.append(("heading", match.group("q").strip().lstrip("#").strip()))
    for pattern in (_USE, _USE_TICKED, _USE_THEN, _USE_NOT):
        for match in pattern.finditer(text):
            found.append(("contains", _value(match)))
    for match in _USE_INSTEAD.finditer(text):
        found.append(("contains", _value(match)))
        if match.group("y"):
            found.append(("not_contains", match.group("y").strip("`'\".:")))
    for match in _AVOID.finditer(text):
        found.append(("not_contains", _value(match)))
    return found


_TEXT_KINDS = ("contains", "not_contains", "heading", "starts_with")
_SIGNS = ",;|:/\t-\u2014!"


def _too_vague(value: str) -> bool:
    """A one-letter word or a stop word says nothing a check could test (a sign may)."""
    if value in _SIGNS:
        return False
    return len(value.strip()) < 2 or value.lower() in _STOP | _ARTICLES


def candidate_checks(feedback: str, answers: Sequence[str] | None = None) -> list[Check]:
    """Checks a correction states, before validation (see ``feedback.validated``); ``answers``:
    the attempts it follows, where known (a link-shape rule needs a link in sight)."""
    found = [
        *_commands(feedback),
        *_separator(feedback),
        *_lengths(feedback),
        *format_rules(feedback),
        *_address(feedback),
        *heading_checks(feedback),
        *stated_checks(feedback),
        *plain_rules(feedback, answers),
    ]
    checks: list[Check] = []
    for kind, value in found:
        if isinstance(value, str) and kind in _TEXT_KINDS and _too_vague(value):
            continue
        check = check_or_none(kind=kind, value=value)
        if check is None:
            continue
        if all((c.kind, c.value) != (check.kind, check.value) for c in checks):
            checks.append(check)
    return [_any_case(c, checks) for c in checks]


def _any_case(check: Check, checks: list[Check]) -> Check:
    """A word to leave out is left out in any case ("no `TODO`" forbids "todo" too), unless
    case is the point: the correction asks for the same word in another case (GitHub, not
    Github)."""
    if check.kind != "not_contains" or not isinstance(check.value, str):
        return check
    value = check.value
    if any(
        c.kind == "contains" and str(c.value).lower() == value.lower() and c.value != value
        for c in checks
    ):
        return check
    return check.model_copy(update={"case_sensitive": False})


# What a mined regex means, for people (``tasks list``); the optimizer never sees check sources.
_PLAIN_FIXED = {value: label for _, kind, value, label in _CONSTRUCTS if kind == "regex"}
_PLAIN_FIXED.update(
    {
        _SIE: "addresses the user formally (Sie)",
        rf"(?s)\A(?!.*{_DU})": "never says du",
        _DU: "addresses the user informally (du)",
        rf"(?s)\A(?!.*{_SIE})": "never says Sie",
        VERSION_HEADING: "no version heading",
        LINKS_RELATIVE: "links are relative (no http(s) link)",
        ISO_DATE: "an ISO date (YYYY-MM-DD)",
        LINK_ALONE: "the answer is a link and nothing else",
        NO_SHOUTING: "no words in capitals",
    }
)
_PLAIN_COUNTED = (
    (re.compile(r"^\(\?ms\)\\A\(\?!\(\?:\.\*\?.*\)\{(\d+)\}\)$"), "at most {} bullet points", -1),
    (
        re.compile(r"^\(\?s\)\\A\(\?:\[\^\.!\?\]\*\[\.!\?\]\+\)\{0,(\d+)\}"),
        "at most {} sentences",
        0,
    ),
    (re.compile(r"^\(\?s\)\\A\\W\*\(\?:\\w\+\\W\+\)\{0,(\d+)\}"), "at most {} words", 1),
    (re.compile(r"^\\A\(\?:\.\*\\n\)\{0,(\d+)\}"), "at most {} lines", 1),
)


def plain(check: Check) -> str:
    """A check as people read it: a mined regex by what it asks, anything else as it is."""
    if check.kind in ACTION_KINDS:
        return plain_action(check)
    if check.kind != "regex" or not isinstance(check.value, str):
        return check.describe()
    fixed = _PLAIN_FIXED.get(check.value) or plain_line_end(check.value)
    if fixed:
        return fixed
    for pattern, label, shift in _PLAIN_COUNTED:
        match = pattern.match(check.value)
        if match:
            return label.format(int(match.group(1)) + shift)
    return check.describe()
