"""What a step's gate decided, and the candidates it is given.

The product's gate is the night's edit-by-edit evidence gate, run as one round of the night's
rounds (:mod:`.step`, :mod:`.step_gate`): each edit tested alone where it acts, harm checked
elsewhere, the accepted edits checked together, at the gate's share of the run's ``alpha``
(:mod:`.spending`). The older gates kept to compare with live in the benchmarks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..evidence import Candidate
from ..models import Edit, EditEvidence
from ..optimize.seams import Guard


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
