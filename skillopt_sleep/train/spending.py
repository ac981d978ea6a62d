"""Spending a run's error rate over its gates, and the edit budget of each step.

A run tests edits at many gates (every step, every slow update). Each gate at its own level
``alpha`` would give a run of 40 steps 40 fresh chances at a false accept. Instead gate ``g``
(counted from 1) is held to ``alpha * 6 / (pi**2 * g**2)``: the levels sum to at most ``alpha``
over any number of gates, so the chance that *any* edit that does not help is accepted anywhere
in the run is at most ``alpha`` (a union bound), however long the run.

The level of a gate is split between its two ways to accept: the exact test of the gate's own
rollouts (``P_SHARE``, Holm's step-down over the gate's edits) and evidence carried over from
earlier gates (an e-value per edit, the product over the gates that tested it: a test martingale).
The e-value route's level is divided by the most edits a gate may test, and only shrinks from
gate to gate, so each edit's martingale is held to at most the level of the gate that first
tested it (Ville's inequality).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..rules.guards import edit_budget
from ..settings import NightSettings
from .config import TrainConfig

P_SHARE = 0.8


def weight(gate: int) -> float:
    """Share of the run's ``alpha`` that gate number ``gate`` (from 1) spends; they sum to 1."""
    return 6.0 / (math.pi**2 * gate**2)


@dataclass(frozen=True)
class GateLevels:
    """The levels of one gate: its exact tests' family-wise level and its e-value threshold's."""

    alpha: float
    evidence_alpha: float

    @property
    def spent(self) -> float:
        return self.alpha / P_SHARE


def gate_levels(config: TrainConfig, gate: int) -> GateLevels:
    total = config.run_alpha * weight(gate)
    return GateLevels(total * P_SHARE, total * (1 - P_SHARE) / config.edit_budget)


def spent(config: TrainConfig, gates: int) -> float:
    """The part of the run's ``alpha`` spent by its first ``gates`` gates."""
    return config.run_alpha * sum(weight(g) for g in range(1, gates + 1))


def step_budget(config: TrainConfig, step: int) -> int:
    """Edits step ``step`` (from 0 over the whole run) may accept: the night's edit-budget schedule
    (constant, linear or cosine), decaying over the run's steps instead of over nights."""
    settings = NightSettings(
        edit_budget=config.edit_budget,
        edit_budget_min=min(config.edit_budget_min, config.edit_budget),
        edit_schedule=config.schedule,
        schedule_horizon=max(1, config.total_steps - 1),
    )
    return max(1, edit_budget(settings, step))
