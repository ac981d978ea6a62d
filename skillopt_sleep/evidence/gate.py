"""The product's gate: each edit tested alone where it acts, harm checked on the accepted edits together.

One allocation ships (the lean one, :mod:`.allocation`): efficacy looks that start small and grow,
harm checked once on the files the night would stage, each edit alone only when that check sees
harm (:mod:`.together`). It is the :class:`~skillopt_sleep.optimize.seams.Gate` every night and
training run uses unless a benchmark composes them with another.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..models import EditEvidence
from .allocation import LEAN, Allocation
from .together import Joint, settle
from .trials import Candidate, Trials


@dataclass(frozen=True)
class EvidenceGate:
    """Efficacy edit by edit (Holm over a round), then harm and conflicts on the accepted set."""

    evidential: bool = True
    allocation: Allocation = LEAN

    async def judge(self, trials: Trials, cands: Sequence[Candidate]) -> dict[str, EditEvidence]:
        """Each edit's efficacy where it acts, at the round's level (``cands[0].round``)."""
        return await trials.efficacy(cands, cands[0].round)

    async def confirm(self, trials: Trials, cand: Candidate, ev: EditEvidence) -> EditEvidence:
        """Nothing alone: harm is checked on the accepted edits together, in :meth:`settle`."""
        return ev

    async def settle(
        self,
        trials: Trials,
        accepted: Sequence[Candidate],
        verdicts: dict[str, EditEvidence],
        joint: Joint,
    ) -> dict[str, EditEvidence]:
        """Harm of the accepted edits together, then conflicts between them (:func:`.together.settle`)."""
        return await settle(trials, accepted, verdicts, joint)
