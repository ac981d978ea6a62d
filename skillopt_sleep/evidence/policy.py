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

    def accumulated_enough(self, log_e: float) -> bool:
        """Whether evidence carried over nights reaches the e-value threshold ``1/evidence_alpha``."""
        return log_e >= -math.log(self.evidence_alpha)
