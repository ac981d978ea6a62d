"""What an edit must show to be adopted, as read from the night settings."""

from __future__ import annotations

import math

from pydantic import ConfigDict

from ..settings import NightSettings
from ..settings.gate import NightGateSettings


class EvidencePolicy(NightGateSettings):
    """The levels and sizes of the edit-by-edit gate (see :mod:`.trials`): the gate's settings
    themselves (:class:`~skillopt_sleep.settings.gate.NightGateSettings`, each documented there),
    with the rounds a night spends its ``alpha`` over."""

    model_config = ConfigDict(frozen=True)

    steps: int = 2  # rounds of a night: alpha is split over them
    max_efficacy_tasks: int = 12  # cited and unseen tasks an efficacy test replays, at most

    @classmethod
    def from_settings(cls, night: NightSettings | None = None) -> EvidencePolicy:
        """The policy of ``night`` (the defaults when None)."""
        night = night or NightSettings()
        return cls.model_validate(night.model_dump(include=set(cls.model_fields)))

    def round_alpha(self, step: int) -> float:
        """The share of ``alpha`` round ``step`` (from 1) spends: halving from round to round, the
        shares summing to ``alpha`` (Bonferroni over rounds, weighted to the first, where most
        proposals are made)."""
        weights = [0.5**r for r in range(1, self.steps + 1)]
        return self.alpha * weights[step - 1] / sum(weights)

    def look_weights(self) -> list[float]:
        """How the level of one efficacy test is split over its looks (weighted Bonferroni): a small
        share for each early look, most for the last, so an early stop costs the full test little."""
        if self.efficacy_looks == 1:
            return [1.0]
        early = 0.25 / (self.efficacy_looks - 1)
        return [early] * (self.efficacy_looks - 1) + [0.75]

    def per_look(self, total: int, tasks: int) -> int:
        """Rollouts per task and side at each look, so the looks together reach ``total`` per side."""
        return max(1, math.ceil(total / (self.efficacy_looks * max(1, tasks))))

    def accumulated_enough(self, log_e: float) -> bool:
        """Whether evidence carried over nights reaches the e-value threshold ``1/evidence_alpha``."""
        return log_e >= -math.log(self.evidence_alpha)

    def planned_rollouts(self, tasks: int, proposals: int, adopted: int) -> int:
        """Tonight's fresh rollouts over ``tasks`` tasks, for ``proposals`` edits a round and
        ``adopted`` accepted, when every comparison runs its full course except harm, which takes
        a second look half the time (a third when the pass rate keeps falling is rare): efficacy
        after-rollouts for every edit and their share of the baseline, harm for each adopted edit
        (after, and the baseline once), and the joint check (one look)."""
        efficacy = self.efficacy_rollouts + self.unseen_rollouts
        look = max(self.harm_rollouts, tasks)
        harm = look * min(self.harm_looks, 1.5)
        tested = self.steps * proposals
        joint = adopted * efficacy + look if adopted > 1 else 0
        return int(tested * efficacy * 1.5 + adopted * harm + harm + joint)
