"""Scoring a skill on a split, and the test report: the initial and the best skill, paired.

The test split is scored exactly twice, after training, on the initial skill and on the best
one; nothing is selected on it. Each test item gives one paired difference (its mean score under
the best skill minus under the initial one, over ``test_k`` rollouts each); the interval is the
bootstrap percentile interval of the mean difference and the p-value the one-sided sign-flip
test (:mod:`.paired`), both over items.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..evidence.pool import Draw
from ..models import TaskRecord
from ..rollouts.replay import Rollout
from .config import Gain, Score
from .paired import bootstrap_ci, sign_flip_p

RESAMPLES = 4096
Scores = dict[str, tuple[float, float]]  # item id -> mean (hard, soft)


def per_item(rollouts: dict[str, list[Rollout]]) -> dict[str, tuple[float, float]]:
    """Mean (hard, soft) of each item's scored rollouts; items with none scored are left out."""
    out = {}
    for item, rs in rollouts.items():
        scored = [r for r in rs if r.score is not None]
        if scored:
            out[item] = (
                sum(r.passed for r in scored) / len(scored),
                sum(r.score or 0.0 for r in scored) / len(scored),
            )
    return out


async def score(
    draw: Draw, items: Sequence[TaskRecord], skill: str, k: int, nonce: str
) -> dict[str, tuple[float, float]]:
    return per_item(await draw([(t, 0, k) for t in items], {"SKILL.md": skill}, nonce))


def mean_score(scores: dict[str, tuple[float, float]]) -> Score:
    if not scores:
        return Score()
    n = len(scores)
    return Score(
        test_hard=sum(h for h, _ in scores.values()) / n,
        test_soft=sum(s for _, s in scores.values()) / n,
    )


def paired_gain(
    before: dict[str, tuple[float, float]],
    after: dict[str, tuple[float, float]],
    which: int,
    rng: random.Random,
) -> Gain | None:
    """The paired gain over the items scored under both skills (``which``: 0 hard, 1 soft)."""
    items = sorted(set(before) & set(after))
    if not items:
        return None
    diffs = [after[i][which] - before[i][which] for i in items]
    p, _ = sign_flip_p(diffs, RESAMPLES, rng)
    low, high = bootstrap_ci(diffs, RESAMPLES, rng)
    return Gain(
        mean=sum(diffs) / len(diffs), ci_low=low, ci_high=high, p_value=p, n_items=len(items)
    )
