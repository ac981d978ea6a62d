"""What the edit gate will draw tonight, predicted by running its own code on imagined rollouts.

``run --estimate`` cannot know what the optimizer will propose or what the replays will answer,
but it can run the very tests the night runs (:class:`.trials.Trials`, :func:`.together.settle`,
with their looks and early stops) on a rehearsal: edits that cite tonight's tasks, some of them
helping the tasks of their kind, and rollouts drawn from each task's pass rate (from the cached
train replay where there is one). The mean over rehearsals is the expected number of fresh
rollouts; the bound is the allocation's full course for every test the night could start, with at
most ``proposals_max`` edits a round, all passing efficacy and all checked for harm twice.
"""

from __future__ import annotations

import asyncio
import math
import random
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..models import Edit, EditEvidence, TaskRecord
from ..rollouts.replay import Rollout
from .allocation import LEAN, PARTS
from .policy import EvidencePolicy
from .pool import Draw, Want
from .spend import Spend
from .together import settle
from .trials import Candidate, Trials

HELPS = 0.7  # a helpful rehearsed edit fixes this share of its kind's failures
PRIOR_RATE = 0.5  # a task's pass rate when nothing is known of it
REHEARSALS = 24


@dataclass(frozen=True)
class Outlook:
    """What tonight's night is expected to propose: edits a round and the share that help."""

    proposals: float = 1.5
    helpful: float = 0.5
    proposals_max: int = 8
    cases: int = 6  # cases shown to the optimizer a round


@dataclass(frozen=True)
class GateForecast:
    """Fresh rollouts the gate is expected to draw, and at most."""

    expected: float
    bound: int
    parts: dict[str, float] = field(default_factory=dict)  # expected rollouts by part of the gate
    saved: dict[str, float] = field(
        default_factory=dict
    )  # expected rollouts early stops save, by part


def forecast(
    tasks: Sequence[TaskRecord],
    train: Sequence[TaskRecord],
    rates: Mapping[str, float],
    policy: EvidencePolicy,
    budget: int,
    outlook: Outlook,
    seed: int = 0,
) -> GateForecast:
    """The gate's rollouts over ``tasks`` (edits cite ``train`` tasks), by rehearsal and by bound."""
    if not tasks or not train or budget < 1:
        return GateForecast(0.0, 0)
    rng = random.Random(seed)
    known = {
        t.id: rates.get(t.id, statistics.fmean(rates.values()) if rates else PRIOR_RATE)
        for t in tasks
    }

    async def rehearsals() -> list[Spend]:  # one after another, on one event loop
        return [
            await _rehearse(tasks, train, known, policy, budget, outlook, rng)
            for _ in range(REHEARSALS)
        ]

    spent = asyncio.run(rehearsals())
    return GateForecast(
        statistics.fmean(s.total for s in spent),
        bound(len(tasks), policy, budget, outlook.proposals_max),
        {p: statistics.fmean(s.drawn[p] for s in spent) for p in PARTS},
        {p: statistics.fmean(s.saved[p] for s in spent) for p in PARTS},
    )


def _world(rates: Mapping[str, float], helped: dict[str, set[str]], rng: random.Random) -> Draw:
    """Rollouts drawn from each task's pass rate, raised where the files help the task."""

    async def draw(
        wants: list[Want], files: dict[str, str], nonce: str
    ) -> dict[str, list[Rollout]]:
        fixed = set().union(*(helped.get(name, set()) for name in files))
        out: dict[str, list[Rollout]] = {}
        for task, first, count in wants:
            rate = rates[task.id]
            rate += (1 - rate) * HELPS if task.id in fixed else 0.0
            out[task.id] = [
                Rollout(task.id, s, "", float(ok), ok)
                for s in range(first, first + count)
                for ok in [rng.random() < rate]
            ]
        return out

    return draw


async def _rehearse(
    tasks: Sequence[TaskRecord],
    train: Sequence[TaskRecord],
    rates: Mapping[str, float],
    policy: EvidencePolicy,
    budget: int,
    outlook: Outlook,
    rng: random.Random,
) -> Spend:
    helped: dict[str, set[str]] = {}  # rehearsal files -> the tasks they help
    trials = Trials(_world(rates, helped, rng), {}, tasks, policy, "rehearsal", rng)
    accepted: list[Candidate] = []
    verdicts: dict[str, EditEvidence] = {}
    for step in range(1, policy.steps + 1):
        cands = _propose(trials, train, outlook, helped, rng, step)
        if not cands:
            continue
        got = await trials.efficacy(cands, step)
        passed = [c for c in cands if got[c.key].verdict == "accepted"][
            : max(0, budget - len(accepted))
        ]
        verdicts |= {c.key: got[c.key] for c in passed}
        accepted += passed
    await settle(trials, accepted, verdicts, _joint)
    return trials.spend


def _joint(cands: Sequence[Candidate]) -> dict[str, str]:
    return {name: "" for c in cands for name in c.files}


def _propose(
    trials: Trials,
    train: Sequence[TaskRecord],
    outlook: Outlook,
    helped: dict[str, set[str]],
    rng: random.Random,
    step: int,
) -> list[Candidate]:
    """A rehearsed round's edits: each cites a case shown this round, and some help its kind."""
    pool = [t for t in train if t.id not in trials.shown] or list(train)
    shown = rng.sample(pool, min(len(pool), outlook.cases))
    trials.shown |= {t.id for t in shown}
    count = math.floor(outlook.proposals) + (rng.random() < outlook.proposals % 1)
    cands = []
    for i in range(count):
        name = f"rehearsed-{step}-{i}"
        cand = Candidate(
            Edit(target="memory", content=name, cites=[rng.choice(shown).id]), {name: ""}, step
        )
        trials.place(cand, shown)
        if rng.random() < outlook.helpful:
            helped[name] = {t.id for t in cand.efficacy_tasks}
        cands.append(cand)
    return cands


def bound(tasks: int, policy: EvidencePolicy, budget: int, proposals: int) -> int:
    """The most fresh rollouts the gate can draw over ``tasks`` tasks with at most ``proposals``
    edits a round: every efficacy test to its last look on its largest set of tasks (both sides,
    nothing shared), ``budget`` edits checked for harm together and alone to the last look, and
    checked against each other."""
    alloc = LEAN
    n = min(tasks, policy.max_efficacy_tasks)
    largest = max(
        sum(
            c[-1]
            for c in alloc.efficacy_schedule(
                policy, [str(i) for i in range(a)], [str(i) for i in range(a, n)]
            ).values()
        )
        for a in range(1, n + 1)
    )
    efficacy = 2 * largest * proposals * policy.steps
    harm = 2 * alloc.harm_steps(policy, tasks)[-1] + tasks
    return efficacy + harm * (budget + 1) + budget * largest
