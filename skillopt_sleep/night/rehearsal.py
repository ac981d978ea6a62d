"""What tonight's rounds will call, predicted by running the night's own rounds on a rehearsal.

``run --estimate`` cannot know what the optimizer will propose or what the replays will answer. But
what a night spends past its train replay is decided by :class:`~.rounds.Rounds`: which cases a
round shows, whether a round runs at all (a small night runs out of cases once an accepted edit
covers its tasks), the edit budget, the gate's looks and early stops, harm on the others, the joint
check. So the rehearsal runs that very code with imagined collaborators: a proposer that, for each
kind of task among a round's cases, proposes a rule citing the cases of that kind some of the time
when one of them failed (and one off-target rule some of the time); a guard that applies any edit; and a drawer that
answers each task at its pass rate, raised where a helpful rule acts. The mean over rehearsals is
the expected number of reflections and fresh rollouts.

A night is bimodal: one whose edit passes its efficacy test pays for a harm check and a joint check
(on a small project, hundreds of rollouts), one whose edits all fail pays for none. So the forecast
also keeps each rehearsal's own spend and whether it proved an edit: one night is one draw, and
the mean stands for none of them (:mod:`.estimate_ways`).
"""

from __future__ import annotations

import asyncio
import random
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..evidence.allocation import PARTS
from ..evidence.kinds import kind_of
from ..evidence.pool import Want
from ..models import Edit, EditEvidence, TaskRecord
from ..optimize.reflect import Case
from ..optimize.rounds import Rounds, Tonight
from ..optimize.select import Selection
from ..rollouts.replay import Rollout
from ..rules.guards import EditOutcome
from ..settings import NightSettings

REHEARSALS = 24
HELPS = 0.85  # a helpful rehearsed rule fixes this share of its kind's failures
FAILING = 0.75  # the failure rate of a kind the user keeps correcting: a rule is likeliest there
# verdicts of an edit that did not pass its efficacy test (every other verdict went on to harm)
UNPROVEN = ("worse", "no_effect", "inconclusive", "no_evidence")


def proved_any(evidence: Sequence[EditEvidence]) -> bool:
    """Whether a night proved an edit: one passed its efficacy test (so the night paid for harm)."""
    return any(e.verdict not in UNPROVEN for e in evidence)


@dataclass(frozen=True)
class Proposals:
    """What the optimizer is expected to propose a round: for each kind among its cases, a rule with
    chance ``per_kind`` (helpful with chance ``helpful``); and one rule aimed at no kind (that helps
    nothing) with chance ``off_target``."""

    per_kind: float = 0.5
    off_target: float = 0.5
    helpful: float = 0.9


@dataclass(frozen=True)
class Run:
    """One rehearsal: its reflections and fresh gate rollouts, and whether it proved an edit."""

    reflections: int
    rollouts: int
    proven: bool


@dataclass(frozen=True)
class RoundsForecast:
    """Reflections and fresh gate rollouts a night's rounds are expected to make, and every
    rehearsal's own (what a single night may spend is spread wide: see ``runs``)."""

    reflections: float
    rollouts: float
    parts: dict[str, float] = field(default_factory=dict)
    saved: dict[str, float] = field(default_factory=dict)
    runs: tuple[Run, ...] = ()


def forecast_rounds(
    sel: Selection,
    rates: Mapping[str, float],
    settings: NightSettings,
    night_index: int,
    proposals: Proposals,
    seed: int = 0,
) -> RoundsForecast:
    """The mean over :data:`REHEARSALS` rehearsals of tonight's rounds over ``sel``, each task
    passing at ``rates[task.id]``."""
    if not sel.train:
        return RoundsForecast(0.0, 0.0, runs=(Run(0, 0, False),))
    rng = random.Random(seed)

    async def rehearsals() -> list[tuple[int, dict[str, int], dict[str, int], bool]]:  # one loop
        return [
            await _rehearse(sel, rates, settings, night_index, proposals, rng)
            for _ in range(REHEARSALS)
        ]

    runs = asyncio.run(rehearsals())
    return RoundsForecast(
        statistics.fmean(r[0] for r in runs),
        statistics.fmean(sum(r[1].values()) for r in runs),
        {p: statistics.fmean(r[1].get(p, 0) for r in runs) for p in PARTS},
        {p: statistics.fmean(r[2].get(p, 0) for r in runs) for p in PARTS},
        tuple(Run(r[0], sum(r[1].values()), r[3]) for r in runs),
    )


async def _rehearse(
    sel: Selection,
    rates: Mapping[str, float],
    settings: NightSettings,
    night_index: int,
    proposals: Proposals,
    rng: random.Random,
) -> tuple[int, dict[str, int], dict[str, int], bool]:
    """One rehearsal: (reflections, fresh rollouts by part, rollouts saved by part, an edit proven)."""
    helped: dict[str, set[str]] = {}  # rule -> the tasks it helps
    drawer = _Drawer(rates, helped, rng)
    train = {
        t.id: await drawer.one(t, range(settings.k), {}) for t in sel.train
    }  # the train replay, as the rounds will pick their cases from it
    proposer = _Proposer(proposals, [*sel.train, *sel.holdout], rates, helped, rng)
    tonight = Tonight({}, settings, night_index, "rehearsal", rng)
    done = await Rounds(tonight, proposer=proposer, guard=_Guard(), drawer=drawer).run(sel, train)
    return proposer.calls, done.parts, done.saved_parts, proved_any(done.evidence)


class _Drawer:
    """Rollouts drawn at each task's pass rate, raised where the files hold a rule that helps it."""

    def __init__(
        self, rates: Mapping[str, float], helped: Mapping[str, set[str]], rng: random.Random
    ) -> None:
        self.rates, self.helped, self.rng = rates, helped, rng

    async def one(
        self, task: TaskRecord, samples: range, files: Mapping[str, str]
    ) -> list[Rollout]:
        rate = self.rates[task.id]
        if any(task.id in self.helped.get(name, ()) for name in files):
            rate += (1 - rate) * HELPS
        return [
            Rollout(task.id, s, "", float(ok), ok)
            for s in samples
            for ok in [self.rng.random() < rate]
        ]

    async def draw(
        self, wants: list[Want], files: dict[str, str], nonce: str
    ) -> dict[str, list[Rollout]]:
        return {
            task.id: await self.one(task, range(first, first + count), files)
            for task, first, count in wants
        }


class _Guard:
    """Applies every edit: a rehearsed rule is a file of its own name."""

    def guard(self, edits: Sequence[Edit], *, budget: int) -> EditOutcome:
        applied = list(edits[:budget])
        return EditOutcome({e.content: "" for e in applied}, applied, [])

    def combine(self, edits: Sequence[Edit], *, budget: int) -> EditOutcome:
        return self.guard(edits, budget=budget)


class _Proposer:
    """Rules for a round's cases (see :class:`Proposals`); counts its calls."""

    def __init__(
        self,
        proposals: Proposals,
        tasks: Sequence[TaskRecord],
        rates: Mapping[str, float],
        helped: dict[str, set[str]],
        rng: random.Random,
    ) -> None:
        self.p, self.helped, self.rng, self.calls = proposals, helped, rng, 0
        self.kinds = {t.id: kind_of(t) or t.id for t in tasks}
        failing: dict[str, list[float]] = {}
        for t in tasks:
            failing.setdefault(self.kinds[t.id], []).append(1 - rates[t.id])
        # the fewer failures a kind shows, the less often a rule is written for it
        self.chance = {
            k: proposals.per_kind * min(1.0, statistics.fmean(f) / FAILING)
            for k, f in failing.items()
        }
        self.ruled: set[str] = set()  # kinds a rule was proposed for tonight
        self.by_kind: dict[str, list[str]] = {}
        for t in tasks:
            self.by_kind.setdefault(self.kinds[t.id], []).append(t.id)

    async def propose(
        self, cases: Sequence[Case], accepted: Sequence[str], refused: Sequence[Edit], step: int
    ) -> list[Edit]:
        self.calls += 1
        shown: dict[str, list[str]] = {}
        for c in cases:
            shown.setdefault(self.kinds[c.task.id], []).append(c.task.id)
        failed = {self.kinds[c.task.id] for c in cases if c.bad is not None}
        edits: list[Edit] = []
        for kind, ids in shown.items():
            if kind in self.ruled or kind not in failed or self.rng.random() >= self.chance[kind]:
                continue  # a rule answers a failure; once a night (again, it is merged)
            self.ruled.add(kind)
            edits.append(self._rule(step, len(edits), ids))
            if self.rng.random() < self.p.helpful:
                self.helped[edits[-1].content] = set(self.by_kind[kind])
        if cases and self.rng.random() < self.p.off_target:
            edits.append(self._rule(step, len(edits), [self.rng.choice(cases).task.id]))
        return edits

    @staticmethod
    def _rule(step: int, index: int, cites: list[str]) -> Edit:
        return Edit(target="memory", content=f"rehearsed-{step}-{index}", cites=cites)
