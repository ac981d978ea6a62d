"""Lint for one proposed rule: what must never be written into a skill or memory file.

A rule is one line of plain guidance. It is refused when it is empty or overlong, spans lines,
carries the block markers, holds a secret, or tells the agent to do something dangerous: pipe a
download into a shell, ``rm -rf``, ``chmod 777``, skip or disable tests, checks or hooks, or
talk to a URL this project never used. A dangerous phrase that is negated ("never use
``--no-verify``") is guidance against the danger, and passes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from ..redact import find_secrets
from .managed_block import BEGIN, END

MAX_RULE_CHARS = 300

_DANGERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("pipes a download into a shell", re.compile(
        r"\b(curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|\n]*\|\s*"
        r"(sudo\s+)?(ba|z|k|da|fi)?sh\b|\b(curl|wget|iwr|irm)\b[^|\n]*\|\s*(sudo\s+)?"
        r"(python3?|perl|ruby|node|iex|invoke-expression)\b",
        re.IGNORECASE)),
    ("runs rm -rf", re.compile(
        r"\brm\s+(-\w*r\w*f\w*|-\w*f\w*r\w*|(-r|-R|--recursive)\s+(-f|--force)|(-f|--force)\s+"
        r"(-r|-R|--recursive))\b|\bRemove-Item\b[^\n]*-Recurse[^\n]*-Force", re.IGNORECASE)),
    ("makes files world-writable (chmod 777)", re.compile(
        r"\bchmod\s+(-R\s+)?(0?777|a\+rwx)\b", re.IGNORECASE)),
    ("disables tests, checks or hooks", re.compile(
        r"--no-verify\b|--no-hooks\b|\bHUSKY=0\b|\bSKIP_(TESTS?|CHECKS?|HOOKS?)\b"
        r"|\bskip(ping)?\s+(the\s+|all\s+|any\s+)?(tests?|checks?|hooks?|lint(ing|er)?|ci|pre-commit)\b"
        r"|\b(disable|disabling|turn(ing)?\s+off|bypass(ing)?|comment(ing)?\s+out|delete|deleting)\s+"
        r"(the\s+|all\s+|any\s+|failing\s+|flaky\s+)*(tests?|checks?|hooks?|lint(ing|er|s)?|ci|pre-commit"
        r"|type[- ]?check(ing|s)?|assertions?)\b",
        re.IGNORECASE)),
    ("overrides the agent's instructions", re.compile(
        r"\bignore\s+(all\s+|any\s+)?(previous|prior|above|earlier|system)\s+(instructions|rules|prompts?)\b",
        re.IGNORECASE)),
)

# Words that turn a dangerous phrase into a warning against it, when they come shortly before
# it in the same clause ("never use --no-verify"); "if hooks are slow, use --no-verify" is not.
_NEGATION = re.compile(
    r"\b(never|not|don'?t|doesn'?t|mustn'?t|avoid|instead of|refuse|forbid(den)?)\b", re.IGNORECASE
)
_CLAUSE_BREAK = re.compile(r"[.;:!?,]\s|\b(but|then|unless|if|when|otherwise)\b", re.IGNORECASE)
_NEGATION_REACH = 6  # words
_URL = re.compile(r"\b(?:https?|ftp|wss?)://[^\s<>\"'`)\]]+", re.IGNORECASE)
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}


def lint_rule(rule: str, *, known_urls: Iterable[str] = (), max_chars: int = MAX_RULE_CHARS) -> str | None:
    """Why ``rule`` must not be written, or None if it may be."""
    if not rule.strip():
        return "empty rule"
    if "\n" in rule or "\r" in rule:
        return f"a rule is one line; this one has {len(rule.splitlines())} lines"
    if BEGIN in rule or END in rule or "skillopt-sleep:" in rule or "<!--" in rule:
        return "contains a skillopt-sleep block marker or an HTML comment"
    if len(rule) > max_chars:
        return f"rule is {len(rule)} characters long, at most {max_chars}"
    secrets = find_secrets(rule)
    if secrets:
        return f"contains a secret ({secrets[0].kind})"
    for what, pattern in _DANGERS:
        for match in pattern.finditer(rule):
            if not _negated(rule, match.start()):
                return f"dangerous instruction: {what} ({match.group(0).strip()!r})"
    unknown = unknown_urls(rule, known_urls)
    if unknown:
        return f"points to a URL this project never used: {unknown[0]}"
    return None


def _negated(text: str, start: int) -> bool:
    """Whether a negation comes before ``start`` in the same clause."""
    before = text[:start]
    breaks = list(_CLAUSE_BREAK.finditer(before))
    clause = before[breaks[-1].end():] if breaks else before
    return bool(_NEGATION.search(" ".join(clause.split()[-_NEGATION_REACH:])))


def _host(url_or_host: str) -> str:
    text = url_or_host.strip().lower()
    if "://" not in text:
        text = "//" + text
    try:
        return (urlsplit(text).hostname or "").rstrip(".")
    except ValueError:
        return ""


def urls_in(text: str) -> list[str]:
    """Every URL in ``text``."""
    return [m.group(0) for m in _URL.finditer(text)]


def unknown_urls(text: str, known_urls: Iterable[str]) -> list[str]:
    """URLs in ``text`` whose host is neither local nor one of ``known_urls`` (URLs or hosts)."""
    known = {_host(u) for u in known_urls} | _LOCAL_HOSTS
    return [m.group(0) for m in _URL.finditer(text) if _host(m.group(0)) not in known]
