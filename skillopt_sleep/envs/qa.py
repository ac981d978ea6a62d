"""The question-answer environment: a question, scored by exact match (hard) and token F1 (soft).

The reference answers are the item's ``equals`` checks (a task file's ``answers`` become them).
Answers are compared normalised (case, punctuation, articles and spacing do not count), against
the best-matching reference, on the answer's last non-empty line when the model explains first.
"""

from __future__ import annotations

import re
import string
from collections import Counter

from ..backends.base import Backend, Message, Request
from ..errors import BackendError
from ..models import TaskRecord
from ..redact import redact
from .base import EnvResult
from .task_record import item_failed, prompt_of

QA_NOTE = "\n\nAnswer with the answer only, on the last line."
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)


def normalise(text: str) -> str:
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCT)).split())


def token_f1(answer: str, reference: str) -> float:
    """Harmonic mean of token precision and recall between two normalised texts."""
    got, want = normalise(answer).split(), normalise(reference).split()
    if not got or not want:
        return float(got == want)
    common = sum((Counter(got) & Counter(want)).values())
    if not common:
        return 0.0
    precision, recall = common / len(got), common / len(want)
    return 2 * precision * recall / (precision + recall)


def final_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def references(item: TaskRecord) -> list[str]:
    return [str(c.value) for c in item.checks if c.kind == "equals"]


class QAEnv:
    """Exact match and token F1 against the item's reference answers."""

    name = "qa"

    async def rollout(
        self,
        item: TaskRecord,
        instructions: str,
        backend: Backend,
        *,
        seed: int,
        max_tokens: int = 1024,
    ) -> EnvResult:
        refs = references(item)
        asked = (Message("user", prompt_of(item) + QA_NOTE),)
        if not refs:
            return EnvResult.errored(f"item {item.id} has no reference answer", asked)
        request = Request(
            role="target",
            system=instructions,
            messages=asked,
            max_tokens=max_tokens,
            seed=seed,
            tag="replay",
        )
        try:
            text = redact((await backend.complete(request)).text)
        except BackendError as exc:
            if not item_failed(exc):
                raise
            return EnvResult.errored(exc.one_line(), asked)
        said = final_line(text)
        exact = any(
            normalise(said) == normalise(r) or normalise(text) == normalise(r) for r in refs
        )
        f1 = max(max(token_f1(said, r), token_f1(text, r)) for r in refs)
        reasons = () if exact else ("answer is not the expected answer",)
        return EnvResult(
            1.0 if exact else 0.0,
            1.0 if exact else f1,
            reasons,
            (*asked, Message("assistant", text)),
        )
