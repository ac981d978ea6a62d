"""The seeds' edit-budget schedulers under their names (``ConstantScheduler``,
``LinearScheduler``, ``CosineScheduler``, ``build_scheduler``), with their PyTorch-like API
(``step()``, ``get_lr(step)``, ``state_dict()``).

The budget of a step is the one a training run uses (:func:`skillopt_sleep.rules.guards.edit_budget`,
which is also the night's): from ``max_lr`` at the first step to ``min_lr`` at ``total_steps``.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError
from ..rules.guards import edit_budget
from ..settings import NightSettings


class LRScheduler:
    """An edit budget per step (1-indexed), decaying over ``total_steps``."""

    mode = "constant"

    def __init__(self, max_lr: int, min_lr: int, total_steps: int) -> None:
        self.max_lr, self.min_lr = int(max_lr), int(min_lr)
        self.total_steps = max(int(total_steps), 1)
        self._current_step = 0

    def get_lr(self, step: int) -> int:
        settings = NightSettings(
            edit_budget=self.max_lr,
            edit_budget_min=min(self.min_lr, self.max_lr),
            edit_schedule=self.mode,  # type: ignore[arg-type]
            schedule_horizon=max(1, self.total_steps - 1),
        )
        return max(1, edit_budget(settings, step - 1))

    def step(self) -> int:
        self._current_step += 1
        return self.get_lr(self._current_step)

    def state_dict(self) -> dict[str, Any]:
        return {"current_step": self._current_step}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self._current_step = int(state.get("current_step", 0) or 0)


class ConstantScheduler(LRScheduler):
    """``max_lr`` at every step."""


class LinearScheduler(LRScheduler):
    """Linear decay from ``max_lr`` to ``min_lr``."""

    mode = "linear"


class CosineScheduler(LRScheduler):
    """Cosine decay from ``max_lr`` to ``min_lr``."""

    mode = "cosine"


SCHEDULERS: dict[str, type[LRScheduler]] = {
    "constant": ConstantScheduler,
    "linear": LinearScheduler,
    "cosine": CosineScheduler,
}


def build_scheduler(
    mode: str = "cosine", max_lr: int = 4, min_lr: int = 2, total_steps: int = 8
) -> LRScheduler:
    """The scheduler ``mode`` names; an unknown name lists the choices."""
    if mode not in SCHEDULERS:
        raise ConfigError(
            f"unknown scheduler {mode!r}", hint=f"choose one of: {', '.join(SCHEDULERS)}"
        )
    return SCHEDULERS[mode](max_lr=max_lr, min_lr=min_lr, total_steps=total_steps)
