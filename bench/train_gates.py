"""The training gates the benchmarks compare the product's with, passed to ``train(..., gate=)``.

A user's run has one gate, the evidence gate (:class:`~skillopt_sleep.train.step_gate.EvidenceStepGate`).
Kept here to compare with: :data:`MEAN`, the older rule (the step's edits applied together, kept
when the validation mean went up by any amount: no test, no error control), and :data:`DRAWN`,
the evidence gate testing a soft or mixed metric on passes drawn with probability equal to each
score instead of on the scores themselves (see :mod:`skillopt_sleep.train.metric`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from skillopt_sleep.evidence import Candidate
from skillopt_sleep.models import EditEvidence, EditVerdict
from skillopt_sleep.optimize.seams import Guard
from skillopt_sleep.train.config import TrainConfig
from skillopt_sleep.train.estimate import CHANGED
from skillopt_sleep.train.gate import GateOutcome, candidates
from skillopt_sleep.train.step_gate import EvidenceStepGate, Score, StepGate, StepInput
from skillopt_sleep.train.update import SKILL


async def mean_gate(
    skill: str,
    cands: Sequence[Candidate],
    *,
    guard: Guard,
    val_score: Score,
    fresh_score: Score,
    budget: int,
) -> GateOutcome:
    """The step's edits together, kept when the validation mean went up (no test, no error control):
    the current skill's validation score against the candidate's, replayed fresh for this step."""
    out = GateOutcome(skill, tested=len(cands))
    if not cands:
        return out
    joint = guard.combine([c.edit for c in cands], budget=budget)
    before, after = await val_score(skill), await fresh_score(joint.files[SKILL])
    up = before is not None and after is not None and after > before
    verdict: EditVerdict = "accepted" if up else "no_effect"
    reason = f"validation mean {before} -> {after}"
    out.evidence = [EditEvidence(edit=e, verdict=verdict, reason=reason) for e in joint.applied]
    if up:
        out.skill, out.applied = joint.files[SKILL], joint.applied
    out.reason = reason
    return out


@dataclass(frozen=True)
class MeanStepGate:
    """The older rule as a training gate. It remembers nothing: it may try an edit again."""

    name: str = "mean"
    remembers: bool = False

    async def decide(self, step: StepInput) -> GateOutcome:
        proposer = step.proposer
        edits = await proposer.propose(proposer.cases, [], [], 1) or []
        return await mean_gate(
            step.guard.skill,
            candidates(step.guard, edits, step.budget, step.gate),
            guard=step.guard,
            val_score=step.val_score,
            fresh_score=step.fresh_score,
            budget=step.budget,
        )

    def fresh_rollouts(self, config: TrainConfig, val: int, shown: bool) -> float | None:
        """The current skill's validation, and the candidate's replayed fresh when it changed."""
        return val * (1 + CHANGED) if shown else 0.0


MEAN: StepGate = MeanStepGate()
DRAWN: StepGate = EvidenceStepGate(scored=False)
GATES: dict[str, StepGate | None] = {"evidence": None, "mean": MEAN}
