"""The training run's gate seam: what decides a step's edits, chosen once where a run is composed.

A user's run has one gate, :class:`EvidenceStepGate` (the night's edit-by-edit evidence gate, run
as one round of its rounds: :func:`.step.evidence_step`). A benchmark passes its own to
:func:`skillopt_sleep.train` (``gate=``) to compare with, built from these public pieces.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from ..evidence.score_gate import ScoreGate
from ..models import TaskRecord
from ..optimize.seams import Drawer
from .config import TrainConfig
from .gate import GateOutcome
from .spending import GateLevels
from .step import AnalystProposer, SkillGuard, evidence_step

Score = Callable[[str], Awaitable[float | None]]


@dataclass(frozen=True)
class StepInput:
    """What a step hands its gate: the proposer and its cases, the guard over the current skill,
    the drawer and items of the evidence tests, the gate's number, levels and edit budget, and the
    validation score of a skill (``fresh_score``: replayed fresh for this step)."""

    config: TrainConfig
    proposer: AnalystProposer
    guard: SkillGuard
    drawer: Drawer
    tasks: list[TaskRecord]
    levels: GateLevels
    gate: int
    budget: int
    nonce: str
    rng: random.Random
    ledger: dict[str, float]
    val_score: Score
    fresh_score: Score


class StepGate(Protocol):
    """Decides a training step's edits.

    ``name`` is recorded in the run's summary. ``decide`` proposes through ``step.proposer`` and
    returns what it accepted, with every tested edit's evidence; the edits whose verdict is
    conclusive are never tried again in the run when ``remembers`` is True. ``fresh_rollouts``
    is the rollouts the gate draws at one step for ``train --estimate`` (None: the evidence
    gate's forecast)."""

    @property
    def name(self) -> str: ...

    @property
    def remembers(self) -> bool: ...

    async def decide(self, step: StepInput) -> GateOutcome: ...

    def fresh_rollouts(self, config: TrainConfig, val: int, shown: bool) -> float | None: ...


@dataclass(frozen=True)
class EvidenceStepGate:
    """The product's gate: each edit tested alone where it acts, harm checked, the accepted ones
    together. A soft or mixed metric is tested on its scores (``scored``: their permutation test);
    with ``scored`` off, on passes drawn from the scores (a benchmark's comparison)."""

    scored: bool = True
    name: str = "evidence"
    remembers: bool = True

    async def decide(self, step: StepInput) -> GateOutcome:
        c = step.config
        judge = ScoreGate() if self.scored and c.gate_metric != "hard" else None
        return await evidence_step(
            c,
            proposer=step.proposer,
            cases=step.proposer.cases,
            guard=step.guard,
            drawer=step.drawer,
            tasks=step.tasks,
            levels=step.levels,
            gate=step.gate,
            budget=step.budget,
            nonce=step.nonce,
            rng=step.rng,
            ledger=step.ledger,
            judge=judge,
        )

    def fresh_rollouts(self, config: TrainConfig, val: int, shown: bool) -> float | None:
        return None
