"""What a step's gate decided, and the older gate kept for comparison: the validation mean.

The product's gate is the night's edit-by-edit evidence gate, run as one round of the night's
rounds (:mod:`.step`): each edit tested alone where it acts, harm checked elsewhere, the accepted
edits checked together, at the gate's share of the run's ``alpha`` (:mod:`.spending`).

``mean`` is the older rule, kept for comparison: apply the step's edits together and keep them
when the validation mean went up, by any amount.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from ..evidence import Candidate
from ..models import Edit, EditEvidence, EditVerdict
from ..optimize.seams import Guard
from .update import SKILL


@dataclass
class GateOutcome:
    """What a gate decided: the skill after it, the applied edits and every edit's evidence."""

    skill: str
    applied: list[Edit] = field(default_factory=list)
    evidence: list[EditEvidence] = field(default_factory=list)
    ledger: dict[str, float | None] = field(
        default_factory=dict
    )  # edit key -> log e (None: forget)
    tested: int = 0  # edits that passed the guards and went to the gate
    reason: str = ""


def candidates(guard: Guard, edits: Sequence[Edit], room: int, gate: int) -> list[Candidate]:
    """Up to ``room`` of ``edits`` that pass the guards alone, in order, each with the files it makes."""
    cands: list[Candidate] = []
    for edit in edits:
        if len(cands) >= room:
            break
        outcome = guard.guard([edit], budget=1)
        if outcome.applied:
            cands.append(Candidate(outcome.applied[0], outcome.files, gate))
    return cands


Score = Callable[[str], Awaitable[float | None]]


async def mean_gate(
    skill: str,
    cands: list[Candidate],
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
