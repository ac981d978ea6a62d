"""The gate's metric over rollouts: the pass, the partial credit, or a weighted mix of both.

Validation and the choice of the best skill take the mean of the metric. For a soft or a mixed
metric the gate sees each rollout with its ``score`` set to its metric ``m`` in [0, 1]; its
efficacy test is then the stratified permutation test on those scores
(:mod:`skillopt_sleep.evidence.permutation`). The harm check, the evidence carried across steps,
and the efficacy test of the benchmarks' ``DRAWN`` gate (kept to compare with) are exact tests on passes
(:mod:`skillopt_sleep.evidence.exact`): there each rollout passes with probability ``m``
(:class:`MetricDrawer`), from a uniform of its own: fixed by the run's seed, the stream, the
files under test, the item and the sample, so a resumed run draws the same, and drawn apart for
the two sides of a comparison.

Why this keeps the gate exact: if an edit leaves an item's mean score unchanged, the drawn
passes before and after the edit are independent Bernoulli draws with that same mean, which is
exactly the null law the stratified exact test, its e-values and the harm test assume. Nothing is
approximated, at any sample size, and the null is weaker than a permutation test's (equal mean,
not equal distribution). The price is some power: a gain from 0.5 to 0.9 of partial credit is
seen as a gain from 0.5 to 0.9 in pass rate, with the noise of a coin. A gain the passes alone
cannot show (every attempt fails, some come closer) is seen only through it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence

from ..models import TaskRecord
from ..optimize.seams import Drawer
from ..rollouts.replay import Rollout
from ..store import sha256_text
from .config import TrainConfig


def score_of(config: TrainConfig, rollout: Rollout) -> float | None:
    """The metric of one rollout (None when it errored)."""
    if rollout.score is None:
        return None
    return config.metric(1.0 if rollout.passed else 0.0, rollout.score)


def uniform(*where: object) -> float:
    """A uniform in [0, 1) fixed by where the rollout stands, not by what it said."""
    digest = hashlib.sha256("\x00".join(map(str, where)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def as_pass(config: TrainConfig, rollout: Rollout, where: str) -> Rollout:
    """``rollout`` with its pass drawn from its metric and its score the metric (as it is under the
    ``hard`` metric)."""
    score = score_of(config, rollout)
    if config.gate_metric == "hard" or score is None:
        return rollout
    passed = uniform(config.seed, where, rollout.task_id, rollout.sample) < score
    return dataclasses.replace(rollout, passed=passed, score=score)


class MetricDrawer:
    """The gate's drawer: ``inner``'s rollouts, each passing as its metric says."""

    def __init__(self, inner: Drawer, config: TrainConfig) -> None:
        self.inner, self.config = inner, config

    async def draw(
        self, wants: list[tuple[TaskRecord, int, int]], files: dict[str, str], nonce: str
    ) -> dict[str, list[Rollout]]:
        drawn = await self.inner.draw(wants, files, nonce)
        where = nonce + "\x00" + sha256_text(json.dumps(files, sort_keys=True))
        return {task: [as_pass(self.config, r, where) for r in rs] for task, rs in drawn.items()}


def mean_metric(config: TrainConfig, scores: Sequence[tuple[float, float]]) -> float | None:
    """The mean metric over items given each item's mean (hard, soft); None with no item."""
    if not scores:
        return None
    return sum(config.metric(h, s) for h, s in scores) / len(scores)
