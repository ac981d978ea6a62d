"""Secret detection and redaction, applied before anything is stored, logged or staged.

``redact(text)`` replaces each secret with a typed placeholder such as ``[REDACTED:anthropic-key]``;
``find_secrets(text)`` lists what it would replace (used by the edit guards).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("anthropic-key", re.compile(r"sk-ant-[A-Za-z0-9_\-]{16,}")),
    ("openai-key", re.compile(r"sk-(?:proj-)?[A-Za-z0-9_\-]{16,}")),
    ("github-token", re.compile(r"(?:ghp_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})")),
    ("aws-access-key", re.compile(r"AKIA[0-9A-Z]{16}")),
    ("slack-token", re.compile(r"xox[abposr]-[A-Za-z0-9\-]{10,}")),
    ("private-key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----")),
)


@dataclass(frozen=True)
class SecretFinding:
    kind: str
    start: int
    end: int


def find_secrets(text: str) -> list[SecretFinding]:
    found = [SecretFinding(kind, m.start(), m.end()) for kind, pat in _PATTERNS for m in pat.finditer(text)]
    return sorted(found, key=lambda f: f.start)


def redact(text: str) -> str:
    for kind, pat in _PATTERNS:
        text = pat.sub(f"[REDACTED:{kind}]", text)
    return text
