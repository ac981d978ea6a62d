"""``train --estimate`` against what a run then spends: the calls it predicts track the loop's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_sleep import TrainConfig, train
from skillopt_sleep.backends.simulated import SimulatedBackend
from skillopt_sleep.train.data import load_task_set
from skillopt_sleep.train.estimate import estimate_train

from .conftest import UNLIMITED

OVER = 1.5  # the estimate is at most this many times the calls made
UNDER = 0.8  # ... and at least this share of them


@pytest.mark.parametrize(
    "config",
    [
        TrainConfig(epochs=1, steps_per_epoch=2, batch_size=8, seed=1),
        TrainConfig(epochs=2, steps_per_epoch=2, batch_size=6, seed=2, edit_budget=2),
    ],
    ids=["one-epoch", "two-epochs"],
)
def test_the_estimate_is_within_its_stated_factor_of_the_calls_a_run_makes(
    planted: Path, skill: Path, tmp_path: Path, config: TrainConfig
) -> None:
    data = load_task_set(planted, split_ratio=config.split_ratio, seed=config.seed)
    est = estimate_train(
        config, data, skill.read_text(), UNLIMITED, target_model="sim", optimizer_model="sim"
    )
    made = train(
        planted, skill, tmp_path / "run", target=SimulatedBackend(), config=config, budget=UNLIMITED
    ).summary.usage.calls
    assert UNDER * made <= est.calls <= OVER * made, (est.calls, made)
    assert est.calls == est.target_calls + est.optimizer_calls


def test_a_longer_run_is_estimated_to_cost_more(planted: Path, skill: Path) -> None:
    def calls(**change: object) -> int:
        config = TrainConfig(epochs=1, steps_per_epoch=2, seed=1).model_copy(update=change)
        data = load_task_set(planted, split_ratio=config.split_ratio, seed=config.seed)
        return estimate_train(
            config, data, skill.read_text(), UNLIMITED, target_model="m", optimizer_model="m"
        ).calls

    base = calls()
    assert calls(epochs=2) > base and calls(k=8) > base and calls(slow_update=False) < base
