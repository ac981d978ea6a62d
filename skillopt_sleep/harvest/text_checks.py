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

from ..models import Action, Check

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
_RELATIVE = re.compile(
    r"\brelative\s+(?:paths?|links?|urls?)|\brelativ\w*\s+(?:pfade?|links?)"
    r"|\b(?:liens?|chemins?)\s+relatifs?|\b(?:enlaces?|rutas?)\s+relativ[ao]s?",
    _I,
)
LINKS_RELATIVE = r"(?si)\A(?!.*(?:\]\(\s*|href=[\"']?)https?://)"
_SCOPE = re.compile(
    r"\b(?:skip|leave\s+out|exclude|ignore|except|without|not\s+in|leave|[uü]berspring\w*"
    r"|ignorier\w*|ohne|au(?:ß|ss)er|lass|sauf|sans|ignore[rz]?|excepto|sin|omit\w*)\b"
    r"(?P<rest>[^.;!?]{0,120})",
    _I,
)
_SCOPE_PATH = re.compile(r"`?((?:\.?[\w-]+/)+[\w.-]*)`?")
_ONLY = re.compile(r"\b(?:only|nur|seulement|solo|s[oó]lo)\b", _I)


def heading_checks(text: str) -> list[tuple[str, str]]:
    """The heading a correction names (``## Unreleased``, "the 'Usage' section"), and a
    version heading it forbids."""
    found = [("heading", m.group(1).strip()) for m in _MARKED_HEADING.finditer(text)]
    found += [
        ("heading", m.group(1).strip().lstrip("#").strip()) for m in _NAMED_HEADING.finditer(text)
    ]
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


def _checks(pairs: Sequence[tuple[str, str | None, str]]) -> list[Check]:
    out: list[Check] = []
    for kind, path, value in pairs:
        try:
            out.append(Check(kind=kind, value=value, path=path))  # type: ignore[arg-type]
        except ValidationError:
            continue
    return out


def file_checks(text: str, actions: Sequence[Action]) -> list[Check]:
    """Checks of the files an attempt leaves: the file a change must also be documented in, the
    paths to leave alone or unread, and no absolute link in a markdown file it wrote."""
    pairs: list[tuple[str, str | None, str]] = []
    for match in _DOCUMENT.finditer(text):
        path = match.group(1).strip("/")
        named = re.findall(r"`([^`/\n]{2,60})`", text[: match.start(1)])
        pairs += [("file_contains", path, re.escape(n)) for n in named]
        pairs.append(("changed", None, path))
    for path in scope_paths(text):
        pairs += [("untouched", None, path), ("never_read", None, path)]
    if any(k == "regex" and v == LINKS_RELATIVE for k, v in heading_checks(text)):
        written = {
            a.path for a in actions if a.kind in ("write", "edit") and a.path.endswith(".md")
        }
        pairs += [("file_not_contains", p, r"\]\(\s*https?://") for p in sorted(written)]
    return _checks(pairs)


def scope_text_checks(text: str) -> list[Check]:
    """An answer that lists what it should have left out: ``not_contains`` of each path."""
    return _checks([("not_contains", None, p + "/") for p in scope_paths(text)])
