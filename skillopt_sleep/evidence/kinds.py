"""Kinds of task: which tasks an edit should act on, decided before any outcome is known.

A rule learned from a correction acts on the tasks of that kind, a few of a night's tasks. Two
tasks are of one kind when they share their rule checks (the same recurring correction mined into
the same checks), or, with no rule checks, a tag, or else when their requests are close in words.
Nothing here looks at a score: the efficacy set is fixed before the edit is replayed.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence

from ..models import TaskRecord

_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "into",
        "your",
        "you",
        "are",
        "was",
        "were",
        "have",
        "has",
        "not",
        "but",
        "all",
        "any",
        "can",
        "please",
        "just",
        "use",
        "using",
        "make",
        "add",
        "new",
        "its",
        "our",
        "out",
        "how",
        "what",
        "when",
        "why",
        "who",
        "which",
        "there",
        "their",
        "then",
        "than",
        "also",
        "only",
        "some",
        "more",
        "most",
        "very",
        "each",
        "every",
        "about",
        "again",
        "always",
        "never",
        "should",
        "would",
        "could",
        "der",
        "die",
        "das",
        "und",
        "ist",
        "nicht",
        "mit",
        "für",
        "bitte",
        "eine",
        "einen",
    ]
)
SIMILAR = 0.5  # Jaccard overlap of request words that makes two check-less tasks one kind


_SUFFIX = re.compile(r"(?:ies|es|s|ing|ed|ly)$")


def _stem(word: str) -> str:
    """A crude stem, enough to match "tests" with "test" and "summaries" with "summary"."""
    return _SUFFIX.sub("", word) if len(word) > 4 else word


def _words(text: str) -> frozenset[str]:
    return frozenset(_stem(w) for w in (m.lower() for m in _WORD.findall(text)) if w not in _STOP)


def request_words(text: str) -> frozenset[str]:
    """The content words of a text, stemmed: what kind tests compare."""
    return _words(text)


def kind_of(task: TaskRecord) -> str | None:
    """A key shared by the tasks of one kind, or None when only the request words can tell."""
    rules = sorted(
        json.dumps(c.model_dump(mode="json"), sort_keys=True)
        for c in task.checks
        if c.kind != "rubric"
    )
    if rules:
        return "checks:" + hashlib.sha256("\n".join(rules).encode()).hexdigest()[:12]
    if task.tags:
        return "tag:" + min(task.tags)
    return None


def same_kind(a: TaskRecord, b: TaskRecord) -> bool:
    """Whether ``b`` is a task of ``a``'s kind."""
    ka, kb = kind_of(a), kind_of(b)
    if ka is not None or kb is not None:
        return ka == kb
    wa, wb = _words(a.intent), _words(b.intent)
    return bool(wa and wb) and len(wa & wb) / len(wa | wb) >= SIMILAR


def relevance(rule: str, task: TaskRecord) -> float:
    """Share of a rule's words found in a task's request and the user's feedback on it."""
    words = _words(rule)
    if not words:
        return 0.0
    return len(words & _words(task.intent + " " + task.feedback)) / len(words)


def kin(cited: Sequence[TaskRecord], pool: Iterable[TaskRecord]) -> list[TaskRecord]:
    """The tasks of ``pool`` of the same kind as any cited task (the cited ones excluded)."""
    ids = {t.id for t in cited}
    return [t for t in pool if t.id not in ids and any(same_kind(c, t) for c in cited)]
