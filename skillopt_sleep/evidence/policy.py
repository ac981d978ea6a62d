"""What an edit must show to be adopted, as read from the night settings."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from ..settings import NightSettings


@dataclass(frozen=True)
class EvidencePolicy:
    """The levels and sizes of the edit-by-edit gate (see :mod:`.trials`): the ``[night]``
    settings of the same names, where each is documented."""

    alpha: float  # family-wise error of a night's efficacy tests, split over rounds and edits
    steps: int
    efficacy_rollouts: int  # fresh rollouts per side where the edit should act, over all looks
    efficacy_looks: int
    harm_rollouts: int  # fresh rollouts per side and look on the other tasks, at least
    harm_looks: int  # looks at most: another while harm is neither conclusive nor ruled out
    harm_odds: float  # harm ruled out once a cut of the odds of a pass by this much is rejected
    harm_beta: float  # ... at this level (Bonferroni over the looks)
    harm_alpha: float  # refused tonight at this level of "fewer passes elsewhere"
    harm_conclusive: float  # and remembered as harmful (never proposed again) at this one
    unseen_alpha: float
    unseen_rollouts: int  # fresh rollouts per side on the unseen tasks of the kind, at least
    evidence_alpha: float
    evidence_odds: float
    min_effect: float
    harm_max_tasks: int
    harm_kind_power: float  # a kind-breaking rule is caught by the sampled harm check this often
    max_error_rate: float
    max_efficacy_tasks: int = 12  # cited and unseen tasks an efficacy test replays, at most
    allocation: str = "lean"  # how the tests spend their rollouts (see :mod:`.allocation`)

    @classmethod
    def from_settings(cls, night: NightSettings | None = None) -> EvidencePolicy:
        """The policy of ``night`` (the defaults when None)."""
        night = night or NightSettings()
        return cls(
            **{
                f.name: getattr(night, f.name)
                for f in fields(cls)
                if f.name in NightSettings.model_fields
            }
        )

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
