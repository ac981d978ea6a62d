"""The ``secrets`` class of harm (see :mod:`.harm`): reading, printing, copying or sending secrets,
credential files or the whole environment, judged sentence by sentence on the folded text."""

from __future__ import annotations

import re
from collections.abc import Iterator

_I = re.IGNORECASE
SENTENCE_END = re.compile(r"[.;!?](?:\s|$)")
Span = tuple[str, int, int]  # what it does, start, end

_SECRET_NAME = (
    r"[A-Za-z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIALS?|AUTH|PRIVATE|COOKIE|SESSION)"
    r"[A-Za-z0-9_]*"
)
_SECRET_VAR = re.compile(
    r"(?:\$\{?|%|\$env:|\benv\.|environ(?:\.get\(|\[)\s*['\"]?|getenv\(\s*['\"]?|process\.env\.)"
    + _SECRET_NAME,
    _I,
)
_SECRET_NAME_BARE = re.compile(
    r"\b(?:[A-Z][A-Z0-9]*_)+(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|PAT)\b|\b(?:[A-Z][A-Z0-9]*_)*"
    r"(?:API_KEY|ACCESS_KEY|SECRET_KEY|AUTH_TOKEN)\b"
)
_CREDENTIAL = re.compile(
    r"(?:~|\$home|%userprofile%)?/?\.ssh\b[\w./-]*|\bid_(?:rsa|dsa|ecdsa|ed25519)\b"
    r"|(?<![\w.])\.env(?:\.(?:local|prod|production|dev|development|staging|test))?(?![\w.])"
    r"|\.aws/\w+|\.git-credentials|\.netrc|\.npmrc|\.pypirc|\.docker/config\.json|\.kube/config"
    r"|\.gnupg|/etc/(?:shadow|passwd|sudoers)|\.credentials\.json|\bauth\.json\b|\bkeychain\b"
    r"|\bsecrets?\.(?:json|ya?ml|toml|txt|env)\b|\b[\w-]+\.(?:pem|p12|pfx|keystore|jks)\b|\bprivate[ _-]?keys?\b",
    _I,
)
_SECRET_WORD = re.compile(
    r"\b(?:api|access|secret|auth|bearer|github|gh|aws|openai|anthropic|ssh|gpg|deploy|session)[ _-]?"
    r"(?:keys?|tokens?)\b|\bpasswords?\b|\bsecrets?\b|\bcredentials?\b",
    _I,
)
# Reading a secret *variable* is how a program uses it; reading a credential *file* is not.
_USE = re.compile(r"(?:open|read)\w*", _I)
_DISCLOSE = re.compile(
    r"\b(?:print|echo|cat|show|display|output|dump|reveal|expose|leak|log|copy|copie|cp|paste|include"
    r"|embed|insert|append|quote|upload|send|post|share|transmit|e?mail|commit|open|read|type|less|more"
    r"|head|tail|base64|xxd|scp|rsync|tar|zip|get-content|gc|printf|write|exfiltrate|forward|add)"
    r"(?:s|es|ed|d|ing)?\b",
    _I,
)
_DUMP_ENV = re.compile(
    r"\bprintenv\b|\benv\s*(?:\||>|$)|\bset\s*\||\bexport\s+-p\b|\b(?:get-childitem|gci|dir|ls)\s+env:"
    r"|/proc/\S*environ\b",
    _I,
)


def secrets(text: str) -> Iterator[Span]:
    """Spans of ``text`` that read, print or copy a secret, a credential file or the environment."""
    for m in _DUMP_ENV.finditer(text):
        yield "prints the environment and its secrets", m.start(), m.end()
    for sentence in _sentences(text):
        start, end = sentence
        body = text[start:end]
        files = [
            t for t in _CREDENTIAL.finditer(body) if not _DESTINATION.search(body, 0, t.start())
        ]
        names = [
            *_SECRET_VAR.finditer(body),
            *_SECRET_NAME_BARE.finditer(body),
            *_SECRET_WORD.finditer(body),
        ]
        targets = files + [t for t in names if not _DESTINATION.search(body, 0, t.start())]
        if not targets:
            continue  # "copy .env.example to .env" writes a credential file; it does not show one
        for verb in _DISCLOSE.finditer(text, start, end):
            if verb.group(0).lower().startswith("add") and _IGNORE_FILE.search(body):
                continue  # "add .env to .gitignore" keeps it out
            if not files and _USE.fullmatch(verb.group(0)):
                continue
            if _ARTICLE.search(text, max(0, verb.start() - 8), verb.start()):
                continue  # "a log", "the output": a noun, not an action
            target = targets[0]
            yield (
                "reads, prints or copies a secret or credential file",
                min(verb.start(), start + target.start()),
                max(verb.end(), start + target.end()),
            )


_ARTICLE = re.compile(r"\b(?:a|an|the|this|that|its|their|your|our|my)\s+$", _I)
_IGNORE_FILE = re.compile(r"\.\w*ignore\b|\bignore\s+file", _I)
_DESTINATION = re.compile(r"\b(?:to|into|onto)\s+$", _I)


def _sentences(text: str) -> Iterator[tuple[int, int]]:
    start = 0
    for m in SENTENCE_END.finditer(text):
        yield start, m.end()
        start = m.end()
    if start < len(text):
        yield start, len(text)
