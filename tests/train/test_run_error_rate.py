"""The run's error rate holds over a whole run: where no edit can help, at most ``alpha`` of the runs
accept any edit, at any gate, through either way to accept (a gate's own test or evidence carried
over from earlier gates). Each run is the training step's own code (:func:`evidence_step`, the
night's rounds) at the spent levels of its gates, with a scripted proposer and a world where a
rollout passes at its task's rate whatever the skill says."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from datetime import datetime, timezone
from math import comb

import pytest

from skillopt_sleep.models import Check, Edit, TaskRecord
from skillopt_sleep.optimize.reflect import Case
from skillopt_sleep.optimize.seams import Want
from skillopt_sleep.rollouts.replay import Rollout
from skillopt_sleep.rules.guards import GuardLimits
from skillopt_sleep.sample.train_sets import SKILL
from skillopt_sleep.train import TrainConfig
from skillopt_sleep.train.spending import gate_levels
from skillopt_sleep.train.step import SkillGuard, carry, evidence_step

ALPHA = 0.15  # large, so that gates spending more than their share would show within the runs
RUNS, GATES = 100, 10
KINDS = ("report", "migration", "changelog", "release")
RULES = [
    "Write every report as a short table of findings.",
    "Run each migration inside one transaction.",
    "Keep the changelog sorted by date, newest first.",
    "Tag every release with its semantic version.",
    "Name report files after the week they cover.",
    "Check a migration against a copy of the data first.",
]
DAY = datetime(2026, 1, 5, tzinfo=timezone.utc)


def _tasks() -> list[TaskRecord]:
    return [
        TaskRecord(
            source="manual",
            project="/p",
            session_id=f"{kind}-{i}",
            created_at=DAY,
            intent=f"update the {kind} for item {i}",
            checks=[Check(kind="contains", value=kind)],
            tags=[kind],
        )
        for kind in KINDS
        for i in range(4)
    ]


class NoEffect:
    """A world where each task passes at its own rate, whatever the skill says."""

    def __init__(self, rates: dict[str, float], rng: random.Random) -> None:
        self.rates, self.rng = rates, rng

    async def draw(
        self, wants: list[Want], files: dict[str, str], nonce: str
    ) -> dict[str, list[Rollout]]:
        return {
            t.id: [
                Rollout(t.id, s, "", float(ok), ok)
                for s in range(first, first + count)
                for ok in [self.rng.random() < self.rates[t.id]]
            ]
            for t, first, count in wants
        }


class Scripted:
    """Proposes the given edits, once."""

    def __init__(self, edits: list[Edit]) -> None:
        self.edits = edits

    async def propose(
        self, cases: Sequence[Case], accepted: Sequence[str], refused: Sequence[Edit], step: int
    ) -> list[Edit] | None:
        return self.edits


async def _run(seed: int, config: TrainConfig) -> int:
    """Edits accepted in one run of ``GATES`` gates; rules come back while their evidence is kept."""
    rng = random.Random(seed)
    tasks = _tasks()
    world = NoEffect({t.id: rng.uniform(0.2, 0.8) for t in tasks}, rng)
    ledger: dict[str, float] = {}
    for gate in range(1, GATES + 1):
        shown = rng.sample(tasks, 4)
        cases = [Case("contrast", t, None, None) for t in shown]
        edits = [
            Edit(target="skill", op="add", content=rule, cites=[t.id])
            for rule, t in zip(rng.sample(RULES, 3), shown, strict=False)
        ]
        outcome = await evidence_step(
            config,
            proposer=Scripted(edits),
            cases=cases,
            guard=SkillGuard("rules", SKILL, GuardLimits(), []),
            drawer=world,
            tasks=tasks,
            levels=gate_levels(config, gate),
            gate=gate,
            budget=config.edit_budget,
            nonce=f"{seed}:{gate}",
            rng=rng,
            ledger=ledger,
        )
        carry(ledger, outcome.ledger)
        if outcome.applied:
            return len(outcome.applied)
    return 0


def _tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), exactly."""
    return sum(comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


@pytest.mark.slow
def test_runs_where_no_edit_helps_accept_an_edit_at_most_alpha_of_the_time() -> None:
    config = TrainConfig(
        run_alpha=ALPHA,
        epochs=1,
        steps_per_epoch=GATES,
        edit_budget=2,
        efficacy_rollouts=8,
        harm_rollouts=8,
    )

    async def all_runs() -> list[int]:
        return [await _run(seed, config) for seed in range(RUNS)]

    accepted = asyncio.run(all_runs())
    runs_with = sum(n > 0 for n in accepted)
    # an exact one-sided binomial test of "the rate is at most ALPHA" on the observed count
    assert _tail(runs_with, RUNS, ALPHA) > 0.001, (runs_with, RUNS)
