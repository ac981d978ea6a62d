"""What an edit must show to be adopted, as read from the night settings."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...settings import NightSettings


@dataclass(frozen=True)
class EvidencePolicy:
    """The levels and sizes of the edit-by-edit gate (see :mod:`.trials`)."""

    alpha: float = 0.05  # family-wise error of a night's efficacy tests, split over rounds and edits
    steps: int = 2
    efficacy_rollouts: int = 16  # fresh rollouts per side where the edit should act, at least
    efficacy_looks: int = 2
    harm_rollouts: int = 32  # fresh rollouts per side on the other tasks, at least
    harm_alpha: float = 0.05  # refused tonight at this level of "fewer passes elsewhere"
    harm_conclusive: float = 0.01  # and remembered as harmful (never proposed again) at this one
    unseen_alpha: float = 0.2
    evidence_alpha: float = 0.005
    evidence_odds: float = 4.0
    min_effect: float = 0.25
    harm_max_tasks: int = 64
    max_error_rate: float = 0.3
    max_efficacy_tasks: int = 12

    @classmethod
    def from_settings(cls, night: NightSettings) -> EvidencePolicy:
        return cls(
            alpha=night.alpha, steps=night.steps, efficacy_rollouts=night.efficacy_rollouts,
            efficacy_looks=night.efficacy_looks, harm_rollouts=night.harm_rollouts,
            harm_alpha=night.harm_alpha, harm_conclusive=night.harm_conclusive, unseen_alpha=night.unseen_alpha,
            evidence_alpha=night.evidence_alpha, evidence_odds=night.evidence_odds,
            min_effect=night.min_effect, harm_max_tasks=night.harm_max_tasks,
            max_error_rate=night.max_error_rate,
        )

    def round_alpha(self) -> float:
        """Each round of a night spends an equal share of ``alpha`` (Bonferroni over rounds)."""
        return self.alpha / self.steps

    def per_look(self, total: int, tasks: int) -> int:
        """Rollouts per task and side at each look, so the looks together reach ``total`` per side."""
        return max(1, math.ceil(total / (self.efficacy_looks * max(1, tasks))))

    def accumulated_enough(self, log_e: float) -> bool:
        """Whether evidence carried over nights reaches the e-value threshold ``1/evidence_alpha``."""
        return log_e >= -math.log(self.evidence_alpha)
