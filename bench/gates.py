"""The gates the benchmarks compare the product's with, passed in through the night's one ``gate``.

:class:`OracleGate` knows the truth: it accepts exactly the edits its ``truth`` calls good, with no
rollout drawn, and carries nothing to later nights (its verdicts are not evidence).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from skillopt_sleep.evidence import Candidate, Trials
from skillopt_sleep.evidence.together import Joint
from skillopt_sleep.models import Edit, EditEvidence


@dataclass(frozen=True)
class OracleGate:
    """A perfect judge: an edit is accepted when ``truth`` says it is good, refused otherwise."""

    truth: Callable[[Edit], bool]
    evidential: bool = False

    async def judge(self, trials: Trials, cands: Sequence[Candidate]) -> dict[str, EditEvidence]:
        return {
            c.key: EditEvidence(
                edit=c.edit,
                round=c.round,
                verdict="accepted" if self.truth(c.edit) else "no_effect",
                reason="decided by the oracle",
            )
            for c in cands
        }

    async def confirm(self, trials: Trials, cand: Candidate, ev: EditEvidence) -> EditEvidence:
        return ev

    async def settle(
        self,
        trials: Trials,
        accepted: Sequence[Candidate],
        verdicts: dict[str, EditEvidence],
        joint: Joint,
    ) -> dict[str, EditEvidence]:
        return dict(verdicts)
