"""What the user's later turns say about an attempt: the outcome, and which mined checks hold.

A mined check is kept only when it is well formed and *discriminates*: it must fail on the
attempt the user corrected (otherwise it does not capture what the user objected to), and pass
on the attempt the user accepted when the session shows one (otherwise it asks for more than the
user did). Pure: no IO.
"""

from __future__ import annotations

from typing import Literal

from ..action_models import ACTION_KINDS
from ..checks.judge import rule_check
from ..models import Check, Outcome

FeedbackKind = Literal["correction", "praise"]


def outcome_of(kinds: list[FeedbackKind]) -> Outcome:
    """``failure`` for corrections, ``success`` for praise, ``mixed`` for both, else ``unknown``."""
    bad = "correction" in kinds
    good = "praise" in kinds
    if bad and good:
        return "mixed"
    if bad:
        return "failure"
    return "success" if good else "unknown"


def combine_outcomes(a: Outcome, b: Outcome) -> Outcome:
    """The outcome of one task seen twice (two occurrences, or a re-read with more feedback)."""
    if a == "unknown" or a == b:
        return b
    if b == "unknown":
        return a
    return "mixed"


def rule_passes(check: Check, text: str) -> bool | None:
    """Whether ``text`` passes a rule check (as the night's judge scores it); None for a rubric
    or an action check (those are validated on the attempt's actions, :mod:`.action_checks`)."""
    if check.kind == "rubric" or check.kind in ACTION_KINDS:
        return None
    return rule_check(check, text)[0]


def validated(
    checks: list[Check], rejected_attempt: str, accepted_attempt: str | None = None
) -> list[Check]:
    """The checks that fail on the attempt the user corrected and pass on the one they accepted.

    A rubric cannot be run offline; it is kept when it is specific enough to judge (a sentence).
    """
    kept: list[Check] = []
    for check in checks:
        if "[REDACTED" in str(check.value):
            continue  # a rule about a secret would carry the secret's shape into prompts
        verdict = rule_passes(check, rejected_attempt)
        if verdict is None:
            if len(str(check.value).split()) >= 4:
                kept.append(check)
        elif not verdict and (accepted_attempt is None or rule_passes(check, accepted_attempt)):
            kept.append(check)
    return kept
