"""Checks a correction states in plain words about the answer's text and the files it leaves:
the heading a text goes under (and a version heading it must not open), the file a change must
also be documented in, links that must be relative, paths a task must leave out (English,
German, French, Spanish, as :mod:`.cues` reads them).

Candidates only, validated like every mined check: kept when they fail on the attempt the user
corrected (:mod:`.feedback` for text, :mod:`.action_checks` for files). Pure: no IO.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import ValidationError

from ..action_models import wrote
from ..models import Action, Check
from .file_stand_ins import new_values

_I = re.IGNORECASE
_Q = r"""[`'"\u201c\u2018]"""
_ENDQ = r"""[`'"\u201d\u2019]"""
_HEADING_WORD = (
    r"(?:heading|header|section|[uü]berschrift|abschnitt|titre|section|t[ií]tulo|encabezado)"
)
_MARKED_HEADING = re.compile(rf"{_Q}\s*#{{1,6}}\s+([^`'\"\n\u201d\u2019]{{1,80}}?)\s*{_ENDQ}")
_NAMED_HEADING = re.compile(rf"{_Q}([^`'\"\n\u201d\u2019]{{1,80}}){_ENDQ}\s+{_HEADING_WORD}\b", _I)
_NO_VERSION_HEADING = re.compile(
    r"\b(?:never|not|no|don't|nie|nicht|keine?n?|jamais|pas|nunca|ning[uú]n)\s+(?:\w+\s+){0,3}"
    r"(?:version|release|versions|versi[oó]n)[\s-]*(?:heading|header|section|[uü]berschrift|titre"
    r"|t[ií]tulo|nummer|number|num[eé]ro)",
    _I,
)
VERSION_HEADING = r"(?s)\A(?!.*^#{1,6}[ \t]+\[?v?\d+\.\d+)"
_PATH = r"`?((?:\.?[\w-]+/)+[\w.-]*|[\w-]+\.(?:md|rst|txt|adoc))`?"
_DOCUMENT = re.compile(
    r"\b(?:document(?:ed)?|add(?:ed)?|mention(?:ed)?|list(?:ed)?|described|dokumentier\w*"
    r"|erg[aä]nz\w*|eingetragen|trag\w*|document[eé]e?s?|ajout\w*|documentad[ao]s?|a[nñ]adid[ao]s?)"
    r"\s+(?:[\w`'-]+\s+){0,4}?(?:in|to|into|under|im|in der|ins|dans|en)\s+" + _PATH,
    _I,
)
# Links said to be relative, in either order and with words between ("keep links inside the
# docs relative", "los enlaces internos van en forma relativa"), within one clause.
_LINK_WORD = r"(?:links?|urls?|paths?|pfade?|liens?|chemins?|enlaces?|rutas?|v[ií]nculos?)"
_RELATIVE_WORD = r"(?:relative|relativ\w*|relatifs?|relatives?)"
_RELATIVE = re.compile(
    rf"\b{_RELATIVE_WORD}\s+{_LINK_WORD}\b|\b{_LINK_WORD}\b[^.;!?]{{0,60}}?\b{_RELATIVE_WORD}\b",
    _I,
)
LINKS_RELATIVE = r"(?si)\A(?!.*(?:\]\(\s*|href=[\"']?)https?://)"
_SCOPE = re.compile(
    r"\b(?:skip|leave\s+out|exclude|ignore|except|without|not\s+in|leave|[uü]berspring\w*"
    r"|ignorier\w*|ohne|au(?:ß|ss)er|lass|sauf|sans|ignore[rz]?|excepto|sin|omit\w*"
    r"|pas\s+(?:dans|sous)|nicht\s+(?:in|unter)|no\s+en)\b"
    r"(?P<rest>(?:[^.;!?]|\.(?=[\w/-])){0,120})",
    _I,
)
_SCOPE_PATH = re.compile(r"`?((?:\.?[\w-]+/)+[\w.-]*)`?")
_ONLY = re.compile(r"\b(?:only|nur|seulement|solo|s[oó]lo)\b", _I)


def heading_checks(text: str) -> list[tuple[str, str]]:
    """The heading a correction names (``## Unreleased``, "the 'Usage' section"), and a
    version heading it forbids."""
    found = [("heading", m.group(1).strip()) for m in _MARKED_HEADING.finditer(text)]
    for m in _NAMED_HEADING.finditer(text):
        name = m.group(1).strip()
        # "an `Args:` section" is a label the text carries, not a markdown heading
        label = name.endswith(":") and not name.startswith("#")
        found.append(("contains", name) if label else ("heading", name.lstrip("#").strip()))
    if _NO_VERSION_HEADING.search(text):
        found.append(("regex", VERSION_HEADING))
    if _RELATIVE.search(text) or re.search(
        r"\bnot\s+(?:a\s+)?(?:full\s+|absolute\s+)?https?\b", text, _I
    ):
        found.append(("regex", LINKS_RELATIVE))
    return [(k, v) for k, v in found if v]


def scope_paths(text: str) -> list[str]:
    """The paths a correction says to leave out ("skip `tests/fixtures/`"), not those after
    "only" (what to keep)."""
    out: list[str] = []
    for match in _SCOPE.finditer(text):
        rest = match.group("rest")
        only = _ONLY.search(rest)
        for path in _SCOPE_PATH.findall(rest[: only.start()] if only else rest):
            path = path.strip("/")
            if path and path not in out:
                out.append(path)
    return out


def check_or_none(**fields: object) -> Check | None:
    """The check ``fields`` describe, or None when they make no valid one (an empty value, a
    regex that does not compile, ...): a mined candidate that is not a check is dropped."""
    try:
        return Check.model_validate(fields)
    except ValidationError:
        return None


def _checks(pairs: Sequence[tuple[str, str | None, str]]) -> list[Check]:
    made = (check_or_none(kind=kind, value=value, path=path) for kind, path, value in pairs)
    return [c for c in made if c is not None]


def files_to_change(text: str) -> list[tuple[str, list[str]]]:
    """The files a correction says a change must be documented in, each with the names in
    backticks said before it (what the file must then carry). A file named for something after
    an attempt that changed others is one to change too, whatever the words
    (:mod:`.named_files`)."""
    out: list[tuple[str, list[str]]] = []
    for match in _DOCUMENT.finditer(text):
        group = next(g for g in range(1, (match.re.groups or 0) + 1) if match.group(g))
        path = match.group(group).strip("/")
        named = re.findall(r"`([^`/\n]{2,60})`", text[: match.start(group)])
        if path and all(p != path for p, _ in out):
            out.append((path, [n for n in named if n.strip("`") != path]))
    return out


def file_checks(text: str, actions: Sequence[Action]) -> list[Check]:
    """Checks of the files an attempt leaves: the file a change must also be documented in, the
    paths to leave alone or unread, no absolute link in a markdown file it wrote, and the value
    the correction puts in place of one it wrote (:mod:`.file_stand_ins`)."""
    pairs: list[tuple[str, str | None, str]] = []
    for path, named in files_to_change(text):
        pairs += [("file_contains", path, re.escape(n)) for n in named]
        pairs.append(("changed", None, path))
    for path in scope_paths(text):
        pairs += [("untouched", None, path), ("never_read", None, path)]
    written = sorted({a.path for a in actions if wrote(a) and a.path.endswith(".md")})
    said = heading_checks(text)
    if any(k == "regex" and v == LINKS_RELATIVE for k, v in said):
        pairs += [("file_not_contains", p, r"\]\(\s*https?://") for p in written]
    for name in (v for k, v in said if k == "heading"):  # the heading belongs in the file written
        pairs += [("file_contains", p, rf"(?m)^#{{1,6}}[ \t]+{re.escape(name)}") for p in written]
    pairs += [("file_contains", p, re.escape(new)) for p, new in new_values(text, actions)]
    return _checks(pairs)


def scope_text_checks(text: str) -> list[Check]:
    """An answer that lists what it should have left out: ``not_contains`` of each path."""
    return _checks([("not_contains", None, p + "/") for p in scope_paths(text)])


# -- rules the correction states in its own words ---------------------------------------------

_LIT = (  # an apostrophe between letters ("Don't") is no closing mark
    rf"{_Q}(?P<q>(?:[^`'\"\n\u201d\u2019]|(?<=\w)['\u2019](?=\w)){{1,80}}){_ENDQ}(?!\w)"
)
_EXAMPLE_WORD = (
    r"(?:e\.g\.|eg|like|such as|as in|for (?:example|instance)|z\.\s?b\.|zum beispiel|wie|etwa"
    r"|comme|par exemple|p\.\s?ex\.|como|por ejemplo|p\.\s?ej\.)"
)
_EXAMPLE = rf"(?:[^`'\".;:!?]{{0,60}}?\b{_EXAMPLE_WORD},?\s+)?"
_FRONT = (
    r"(?:at|in)\s+(?:the\s+)?(?:front|start|beginning)|(?:am|zu)\s+(?:anfang|beginn)|vorne?"
    r"|au\s+d[ée]but|en\s+t[êe]te|devant|al\s+(?:principio|comienzo|inicio)|delante"
)
_STARTS = (
    re.compile(
        rf"\b(?:start|begin|open|lead|prefix)(?:s|ed)?\s+(?:[\w'-]+\s+){{0,4}}?(?:with|by)\s+"
        rf"{_EXAMPLE}{_LIT}",
        _I,
    ),
    re.compile(rf"\b(?:{_FRONT})\b{_EXAMPLE}{_LIT}", _I),
    re.compile(rf"{_LIT}\s+(?:{_FRONT})\b", _I),
    re.compile(rf"\b(?:commencer|commence|d[ée]buter|d[ée]bute)\s+par\s+{_EXAMPLE}{_LIT}", _I),
    re.compile(
        rf"\b(?:empezar|empieza|empiece|comenzar|comienza|comience)\s+(?:con|por)\s+{_EXAMPLE}{_LIT}",
        _I,
    ),
    re.compile(rf"\bmit\s+(?:\w+\s+){{0,2}}{_LIT}\s+(?:zu\s+)?(?:beginnen|anfangen|starten)", _I),
    re.compile(rf"\b(?:beginnt|beginnen|f[äa]ngt|anfangen)\s+(?:\w+\s+){{0,2}}mit\s+{_LIT}", _I),
)
_BACKTICKS = re.compile(
    r"\b(?:in|into|between|within)\s+backticks?|\bin\s+backticks|entre\s+(?:backticks|accents\s+graves"
    r"|comillas\s+invertidas)|in\s+Backticks",
    _I,
)
_EXAMPLE_LIT = re.compile(
    r"\b(?:e\.g\.|like|such as|z\.\s?b\.|wie|comme|como)\s+`(?P<q>[^`\n]{1,60})`", _I
)
_SIGN = re.compile(
    rf"\b(?:sign(?:ed)?|signe[rz]?|sign[ée]|firma(?:do|r)?|unterschreib\w*|unterzeichne\w*|signier\w*)"
    rf"(?:\s+(?:it|off|them|la|le|lo|es))?\s+(?:as|with|avec|par|como|con|mit|als)\s+{_LIT}",
    _I,
)
_JSON_ONLY = re.compile(
    r"\b(?:raw|plain|pure|bare|just|only|nur|reine?s?|rohe?s?|seulement|uniquement|juste|solo|s[oó]lo)"
    r"\s+(?:(?:the|le|el|das|du)\s+)?(?:raw\s+|plain\s+|brut\s+)?json\b|\bjson\s+(?:only|pur[o]?|brut"
    r"|seulement|solamente)\b",
    _I,
)
_ISO_DATE = re.compile(
    r"\biso[- ]?(?:8601|format|date|datum)|\b(?:format|formato|datum|date|fecha)\s+(?:\w+\s+)?iso\b"
    r"|\biso[- ]?8601",
    _I,
)
ISO_DATE = r"\b\d{4}-\d{2}-\d{2}\b"


_ENDS = (
    re.compile(
        rf"\b(?:end|finish|close)(?:s|ed)?\s+(?:[\w'-]+\s+){{0,4}}?with\s+{_EXAMPLE}{_LIT}", _I
    ),
    re.compile(
        rf"{_LIT}\s+(?:(?:ans|am)\s+ende|[àa]\s+la\s+fin|al\s+final|at\s+the\s+(?:end|bottom))\b",
        _I,
    ),
)
# A quoted literal after a negation, in a few words: "no `JIRA-` ids", "aucun identifiant
# `JIRA-`", "ohne `TODO`", "sin `console.log`". Paths are left to the scope readers.
_NO_LITERAL = re.compile(
    rf"(?<![\w-])(?:no|not\s+an?y?|never|without|aucune?|sans|jamais|kein\w*|ohne|nie|niemals"
    rf"|ning[uú]n\w*|sin|nunca)\s+(?:[\w'-]+\s+){{0,3}}?{_LIT}",
    _I,
)


def _is_path(literal: str) -> bool:
    return "/" in literal or re.fullmatch(r"\.?[\w-]+\.[a-z]{1,5}", literal) is not None


def stated_checks(text: str) -> list[tuple[str, str | None]]:
    """Rules a correction states of the answer in its own words: what it starts with (``doit
    commencer par `fix:```, ``mit `Fehler:` beginnen``), what it must carry (a name in backticks
    like the one shown, the signature it names), raw JSON, an ISO date."""
    found: list[tuple[str, str | None]] = []
    for pattern in _STARTS:
        found += [("starts_with", m.group("q").strip()) for m in pattern.finditer(text)]
    if _BACKTICKS.search(text):
        found += [("contains", f"`{m.group('q').strip()}`") for m in _EXAMPLE_LIT.finditer(text)]
    found += [("contains", m.group("q").strip()) for m in _SIGN.finditer(text)]
    for pattern in _ENDS:
        found += [("contains", m.group("q").strip()) for m in pattern.finditer(text)]
    found += [
        ("not_contains", m.group("q").strip())
        for m in _NO_LITERAL.finditer(text)
        if not _is_path(m.group("q").strip())
    ]
    if _JSON_ONLY.search(text):
        found.append(("json_valid", None))
    if _ISO_DATE.search(text):
        found.append(("regex", ISO_DATE))
    return [(k, v) for k, v in found if v is None or v.strip()]
