"""The gates the benchmarks compare the product's with, passed in through the night's one ``gate``.

:class:`OracleGate` knows the truth: it accepts exactly the edits its ``truth`` calls good, with no
rollout drawn, and carries nothing to later nights (its verdicts are not evidence).

:class:`ClassicGate` is the product's evidence gate spending its rollouts the way it used to (the
baseline of its calls): each efficacy test at ``efficacy_looks`` equal looks, every edit that passes
efficacy checked for harm alone (``harm_rollouts`` per side and look, up to three looks while the
pass rate fell), then the accepted edits checked against each other once (each edit's efficacy
tasks redrawn in full under the joint files).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from skillopt_sleep.counting import Counts
from skillopt_sleep.evidence import Candidate, EvidencePolicy, Trials
from skillopt_sleep.evidence.allocation import LEAN, Allocation
from skillopt_sleep.evidence.exact import Stratum
from skillopt_sleep.evidence.pool import fell
from skillopt_sleep.evidence.together import Joint
from skillopt_sleep.models import Edit, EditEvidence
from skillopt_sleep.settings import NightSettings


@dataclass(frozen=True)
class OracleGate:
    """A perfect judge: an edit is accepted when ``truth`` says it is good, refused otherwise."""

    truth: Callable[[Edit], bool]
    evidential: bool = False
    allocation: Allocation = LEAN  # where an edit would be tested: no rollout is drawn

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


@dataclass(frozen=True)
class ClassicAllocation(Allocation):
    """Every efficacy look equal and full; harm at ``harm_rollouts`` a look while the pass rate fell."""

    def efficacy_schedule(
        self, policy: EvidencePolicy, addressed: Sequence[str], unseen: Sequence[str]
    ) -> dict[str, tuple[int, ...]]:
        n, last = len(addressed) + len(unseen), self.efficacy_steps[-1]
        unit = max(1, math.ceil(policy.efficacy_rollouts / (last * max(1, n))))
        m_unseen = max(unit, math.ceil(policy.unseen_rollouts / (last * max(1, len(unseen)))))
        return {
            t: tuple((m_unseen if t in unseen else unit) * s for s in self.efficacy_steps)
            for t in [*addressed, *unseen]
        }

    def harm_steps(self, policy: EvidencePolicy, tasks: int) -> list[int]:
        full = max(policy.harm_rollouts, tasks)
        return [full * look for look in range(1, min(policy.harm_looks, 3) + 1)]

    def looks_again(
        self, policy: EvidencePolicy, strata: Sequence[Stratum], counts: Counts, looks: int
    ) -> bool:
        return fell(counts)

    def passes_early(
        self, adjusted: Mapping[str, float], alpha: float, unseen_shows: Callable[[str], bool]
    ) -> set[str]:
        """p at most ``alpha`` over the round's edits (Bonferroni), whatever the unseen tasks show."""
        return {k for k, p in adjusted.items() if p <= alpha / max(1, len(adjusted))}


def classic_allocation(night: NightSettings | None = None) -> ClassicAllocation:
    """The classic allocation at the ``efficacy_looks`` of ``night`` (the defaults when None)."""
    policy = EvidencePolicy.from_settings(night)
    looks = policy.efficacy_looks
    return ClassicAllocation(
        "classic", tuple(range(1, looks + 1)), tuple(policy.look_weights()), pooled_harm=False
    )


@dataclass(frozen=True)
class ClassicGate:
    """The evidence gate under the classic allocation: harm edit by edit, then conflicts."""

    allocation: Allocation = field(default_factory=classic_allocation)
    evidential: bool = True

    @classmethod
    def of(cls, night: NightSettings | None) -> ClassicGate:
        """The classic gate at the looks ``night`` sets."""
        return cls(classic_allocation(night))

    async def judge(self, trials: Trials, cands: Sequence[Candidate]) -> dict[str, EditEvidence]:
        return await trials.efficacy(cands, cands[0].round)

    async def confirm(self, trials: Trials, cand: Candidate, ev: EditEvidence) -> EditEvidence:
        return await trials.judge_harm(cand, ev)

    async def settle(
        self,
        trials: Trials,
        accepted: Sequence[Candidate],
        verdicts: dict[str, EditEvidence],
        joint: Joint,
    ) -> dict[str, EditEvidence]:
        out = dict(verdicts)
        if len(accepted) > 1:
            for key in await trials.conflicts(accepted, joint(accepted)):
                out[key] = out[key].model_copy(
                    update={
                        "verdict": "conflict",
                        "reason": "conflicts with another edit accepted tonight",
                    }
                )
        return out
