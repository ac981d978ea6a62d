"""Lint for one proposed rule: what must never be written into a skill or memory file.

A rule is one line of plain guidance. It is refused when it is empty or overlong, spans lines,
carries control, invisible or direction-changing characters (terminal escapes among them),
carries the block markers, holds a secret, tells the agent to do something harmful (see
:mod:`.harm`: secrets, exfiltration, a download run by a shell, disabling safety, prompt
injection; and, in :mod:`.harm_acts`, weakening tests, pushing to a new remote, loosening the
agent's permissions, hooks or schedule, dropping the user's consent, showing the environment,
hiding text in markup), is written in a language the user never wrote in
(:mod:`.rule_language`), or names a URL the user never used. The harm is judged on the rule's
folded form (:mod:`.rule_text`), so a Cyrillic letter or a fullwidth one does not hide a word,
and again on that form decoded (:mod:`.rule_decode`: base64, printf and unicode escapes,
backslash- and quote-split words), so an encoded command is judged as the command it runs. A
harmful phrase that is negated ("never use ``--no-verify``") is guidance against the harm, and
passes. The lint sees the optimizer's reply before any redaction: a rule carrying a secret is
refused, never written with a placeholder.

URLs are compared in their normal form: percent-encoding decoded (``%2e%2e``, ``%2F``), backslashes
read as slashes, and dot segments resolved, so ``https://github.com/acme/app/../../evil`` is
``https://github.com/evil``, not a page under the user's repository. A URL passes only when the
user used it in full: the same scheme, host and port, and a path
that is the same as, a parent of, or under one the user used (``https://docs.example.org/api``
and ``.../api/v2/auth`` when the user opened ``https://docs.example.org/api/v2``), never just
another path on a known host.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import SplitResult, unquote, urlsplit, urlunsplit

from ..redact import find_secrets
from .decode import decoded
from .harm import Harm, find_harm
from .harm_acts import find_act
from .language import foreign_language
from .managed_block import BEGIN, END
from .text import fold, refused_character

MAX_RULE_CHARS = 300

_URL = re.compile(r"\b(?:https?|ftp|wss?)://[^\s<>\"'`)\]]+", re.IGNORECASE)
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}
_DEFAULT_PORTS = {"http": 80, "https": 443, "ftp": 21, "ws": 80, "wss": 443}


def lint_rule(
    rule: str,
    *,
    known_urls: Iterable[str] = (),
    max_chars: int = MAX_RULE_CHARS,
    languages: frozenset[str] = frozenset({"en"}),
) -> str | None:
    """Why ``rule`` must not be written, or None if it may be.

    ``languages`` are those the user wrote in (:func:`.rule_language.users_languages`).
    """
    if not rule.strip():
        return "empty rule"
    if "\n" in rule or "\r" in rule:
        return f"a rule is one line; this one has {len(rule.splitlines())} lines"
    bad_char = refused_character(rule)
    if bad_char:
        return bad_char
    folded = fold(rule)
    plain = decoded(folded)
    if any(m in text for text in (rule, folded) for m in (BEGIN, END, "skillopt-sleep:", "<!--")):
        return "contains a skillopt-sleep block marker or an HTML comment"
    if len(rule) > max_chars:
        return f"rule is {len(rule)} characters long, at most {max_chars}"
    secrets = find_secrets(rule) or find_secrets(folded) or find_secrets(plain)
    if secrets:
        return f"contains a secret ({secrets[0].kind})"
    harm = _harm(folded, plain)
    if harm is not None:
        return harm
    foreign = foreign_language(rule, languages)
    if foreign is not None:
        return f"written in a language the user never wrote in ({foreign}); a rule must be one they can review"
    unknown = unknown_urls(rule, known_urls) or unknown_urls(plain, known_urls)
    if unknown:
        return f"points to a URL this project never used: {unknown[0]}"
    return None


def _harm(folded: str, plain: str) -> str | None:
    """The reason a rule is harmful, judged on its folded text and on that text decoded."""
    for text, how in ((folded, ""), (plain, " once decoded")):
        if how and text == folded:
            break
        harm: Harm | None = find_harm(text) or find_act(text)
        if harm is not None:
            return harm.reason() + how
    return None


def urls_in(text: str) -> list[str]:
    """Every URL in ``text``."""
    return [m.group(0) for m in _URL.finditer(text)]


def unknown_urls(text: str, known_urls: Iterable[str]) -> list[str]:
    """URLs in ``text`` that are not local and not covered by one of ``known_urls``.

    A known entry without a scheme (``docs.example.org``) is a host the user named, and covers
    that host's root only.
    """
    known = [
        u
        for u in (_split(k if "://" in k else f"https://{k}/") for k in known_urls)
        if u is not None
    ]
    out = []
    for url in urls_in(text):
        parts = _split(url.rstrip(".,;:!?"))
        if parts is not None and (parts.hostname or "") in _LOCAL_HOSTS:
            continue
        if parts is None or not any(_covers(k, parts) for k in known):
            out.append(url)
    return out


def normal_url(url: str) -> str:
    """``url`` with its percent-encoding decoded and its dot segments resolved."""
    text = url.strip()
    for _ in range(3):  # "%252e" is "%2e" once decoded, "." twice
        plain = unquote(text)
        if plain == text:
            break
        text = plain
    try:
        parts = urlsplit(text.replace("\\", "/"))
    except ValueError:
        return text
    segments: list[str] = []
    for segment in parts.path.split("/")[1:]:
        if segment == "..":
            if segments:
                segments.pop()
        elif segment != ".":
            segments.append(segment)
    path = "/" + "/".join(segments) if parts.path else ""
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, parts.fragment))


def _split(url: str) -> SplitResult | None:
    try:
        parts = urlsplit(normal_url(url))
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return None
    return parts if parts.hostname else None


def _port(parts: SplitResult) -> int | None:
    return parts.port or _DEFAULT_PORTS.get(parts.scheme.lower())


def _segments(path: str) -> list[str]:
    return [s for s in path.split("/") if s]


def _covers(known: SplitResult, url: SplitResult) -> bool:
    """Whether ``url`` is ``known`` or one of its parents (same scheme, host, port, credentials)."""
    if (known.scheme.lower(), known.hostname, _port(known), known.username) != (
        url.scheme.lower(),
        url.hostname,
        _port(url),
        url.username,
    ):
        return False
    mine, theirs = _segments(url.path), _segments(known.path)
    if mine == theirs[: len(mine)]:  # the same page, or a parent of it
        return not url.query or (mine == theirs and url.query == known.query)
    # A page under one the user used (never under a bare host: that would be "just its host").
    return bool(theirs) and mine[: len(theirs)] == theirs
