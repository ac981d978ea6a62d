"""One step of a training run through the night's rounds (:class:`~skillopt_sleep.optimize.rounds.Rounds`).

A training step is one round of a night: the same reflection (the proposer), aggregation (edits
merged with the edits already in the round) and gate (each edit guarded alone, tested where it
acts, harm checked, the accepted ones checked together and applied in the order of their
evidence). Only the collaborators are the training run's own: the analysts as proposer
(:class:`AnalystProposer`: one call per analyst and minibatch, their edits merged and ranked by
:mod:`.aggregate`), the skill's guard in the run's mode (:class:`SkillGuard`), and the run's
replayer as drawer. The round's levels are the gate's share of the run's ``alpha``
(:mod:`.spending`), and it tests at most as many edits as the step may accept.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from ..envs.base import CalledBackend
from ..models import Edit, TaskRecord
from ..optimize import aggregate
from ..optimize.aggregate import Proposed
from ..optimize.analysts import Context, reflect, seed_of
from ..optimize.optimizer import Optimizer
from ..optimize.prompts import Prompts
from ..optimize.proposer import redacted
from ..optimize.reflect import Case
from ..optimize.rounds import Rounds, Tonight
from ..optimize.seams import Drawer, Gate, Proposer
from ..redact import redact
from ..rules.guards import EditOutcome, GuardLimits
from ..settings import NightSettings
from ..settings.gate import GateSettings
from .config import Mode, TrainConfig
from .gate import GateOutcome
from .merging import Stages, model_merge
from .ranking import model_rank
from .spending import GateLevels
from .update import SKILL, apply_mode


class SkillGuard:
    """The run's guard: edits applied to ``skill`` in the run's ``mode`` under ``limits``; each
    edit it refuses alone (a secret, a harmful or overlong rule, ...) is appended to ``refused``."""

    def __init__(self, mode: Mode, skill: str, limits: GuardLimits, refused: list[Edit]) -> None:
        self.mode, self.skill, self._limits, self.refused = mode, skill, limits, refused

    def guard(self, edits: Sequence[Edit], *, budget: int) -> EditOutcome:
        outcome = self.combine(edits, budget=budget)
        self.refused += outcome.rejected
        return outcome

    def combine(self, edits: Sequence[Edit], *, budget: int) -> EditOutcome:
        return apply_mode(self.mode, self.skill, edits, budget=budget, limits=self._limits)


@dataclass
class AnalystProposer:
    """The run's proposer: every analyst over its ``groups`` of the unit's cases, one optimizer
    call per minibatch; the edits merged, ranked, and those already refused in the run left out.
    What it proposed, merged and ranked is kept for the unit's record."""

    optimizer: Optimizer
    prompts: Prompts
    groups: dict[str, list[Case]]
    ctx: Context
    minibatch: int
    unit: str
    head: str = ""
    analyst_of: dict[str, str] | None = None
    env_analyst: Callable[..., Awaitable[list[Edit]]] | None = None
    stages: Stages | None = None  # the model's merge and ranking; None: word overlap and support
    budget: int = 0  # edits the step may test (more are ranked by the model)
    ranked_by: str = "support"
    proposals: list[aggregate.Proposed] = field(default_factory=list)
    merged: list[aggregate.Proposed] = field(default_factory=list)
    ranked: list[aggregate.Proposed] = field(default_factory=list)

    @property
    def cases(self) -> list[Case]:
        return [case for cases in self.groups.values() for case in cases]

    async def propose(
        self, cases: Sequence[Case], accepted: Sequence[str], refused: Sequence[Edit], step: int
    ) -> list[Edit] | None:
        """The ranked edits for ``cases`` (the unit's cases, as grouped for the analysts)."""
        mine: list[Edit] = []
        if self.env_analyst is None:
            self.proposals = await self._reflect()
        else:  # the environment's own reflect, as one more analyst, asked with the others
            self.proposals, mine = await asyncio.gather(self._reflect(), self._environment())
        batch = max((p.batch for p in self.proposals), default=-1) + 1
        self.proposals += [Proposed(e, "environment", batch, i) for i, e in enumerate(mine)]
        for p in self.proposals:  # every edit of a run targets the skill
            p.edit = p.edit.model_copy(update={"target": "skill"})
        if self.stages is None:
            self.merged = aggregate.merge(self.proposals)
        else:
            self.merged = await model_merge(self.stages, self.proposals)
        tried = {e.key() for e in (*self.ctx.tried, *refused)}
        ranked = [p for p in aggregate.rank(self.merged) if p.edit.key() not in tried]
        if self.stages is not None and self.budget:
            ranked, self.ranked_by = await model_rank(self.stages, ranked, self.budget)
        self.ranked = ranked
        return [p.edit for p in self.ranked]

    async def _reflect(self) -> list[Proposed]:
        return await reflect(
            self.optimizer,
            self.prompts,
            {g: v for g, v in self.groups.items() if v},
            self.ctx,
            minibatch=self.minibatch,
            unit=self.unit,
            head=self.head,
            analyst_of=self.analyst_of,
        )

    async def _environment(self) -> list[Edit]:
        assert self.env_analyst is not None
        return await self.env_analyst(
            self.cases,
            self.ctx.skill,
            CalledBackend(self.optimizer.backend, self.optimizer.calls),
            self.ctx.notes,
            seed_of(self.unit, "environment"),
        )


def round_settings(config: TrainConfig, levels: GateLevels, budget: int) -> NightSettings:
    """The night settings of a step's round: one round at the gate's ``levels`` (this gate's share
    of ``run_alpha``), the run's gate settings, ``budget`` edits."""
    gate = config.model_dump(include=set(GateSettings.model_fields))
    return NightSettings(
        **gate,
        alpha=levels.alpha,
        steps=1,
        evidence_alpha=levels.evidence_alpha,
        edit_budget=budget,
        edit_schedule="constant",
    )


async def evidence_step(
    config: TrainConfig,
    *,
    proposer: Proposer,
    cases: Sequence[Case],
    guard: SkillGuard,
    drawer: Drawer,
    tasks: Sequence[TaskRecord],
    levels: GateLevels,
    gate: int,
    budget: int,
    nonce: str,
    rng: random.Random,
    ledger: dict[str, float],
    judge: Gate | None = None,
) -> GateOutcome:
    """The step as one round of the night's rounds: ``proposer``'s edits for ``cases``, tested over
    ``tasks`` (the shown and validation items) with the evidence carried in ``ledger``, at the
    ``levels`` of the run's gate number ``gate``; ``judge`` decides (None: the rounds' own on
    passes; a soft or mixed metric passes :class:`~skillopt_sleep.evidence.score_gate.ScoreGate`)."""
    tonight = Tonight(
        {SKILL: guard.skill},
        round_settings(config, levels, budget),
        stream=nonce,
        rng=rng,
        ledger=ledger,
        max_tested=budget,
    )
    rounds = Rounds(tonight, proposer=proposer, guard=guard, drawer=drawer, gate=judge)
    trials = rounds.open(tasks)
    passed = await rounds.step(trials, cases, [], 1) or []
    done = await rounds.close(trials, passed)
    out = GateOutcome(
        done.files[SKILL] if done.files else guard.skill,
        done.adopted,
        [e.model_copy(update={"round": gate}) for e in done.evidence],  # the run's gate number
        done.ledger,
        tested=len(rounds.candidates),
    )
    if out.tested:
        out.reason = f"{len(out.applied)} of {out.tested} edits proven and applied"
    return out


def carry(ledger: dict[str, float], update: dict[str, float | None]) -> None:
    """The run's evidence by edit key after a gate: kept, grown, or forgotten (None)."""
    for key, log_e in update.items():
        if log_e is None:
            ledger.pop(key, None)
        else:
            ledger[key] = log_e


def step_artifacts(
    proposer: AnalystProposer,
    refused: Sequence[Edit],
    outcome: GateOutcome,
    gate: dict[str, object],
) -> dict[str, object]:
    """What a step's unit directory records (every proposed text with its secrets redacted)."""
    return {
        "proposed.json": [_proposal(p) for p in proposer.proposals],
        "merged.json": [_proposal(p) for p in proposer.merged],
        "ranked.json": [_proposal(p) for p in proposer.ranked],
        "refused.json": [e.model_dump() for e in refused],
        "applied.json": [e.model_dump() for e in outcome.applied],
        "evidence.json": [e.model_dump(mode="json") for e in outcome.evidence],
        "gate.json": {**gate, "reason": outcome.reason, "ranked_by": proposer.ranked_by},
    }


def _proposal(p: aggregate.Proposed) -> dict[str, object]:
    return {
        "edit": redacted(p.edit).model_dump(),
        "analyst": p.analyst,
        "batch": p.batch,
        "order": p.order,
        "support": p.support,
        "merged": [redact(m) for m in p.merged],
        "merged_by": p.merged_by,
    }
