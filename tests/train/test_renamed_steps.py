"""``TrainConfig(steps=...)``, the old name of ``steps_per_epoch``, still works, and its warning
points at the line that wrote it, not into pydantic."""

from __future__ import annotations

import pytest

from skillopt_sleep import TrainConfig


def test_the_old_name_warns_at_the_callers_line() -> None:
    with pytest.warns(FutureWarning, match="steps is named steps_per_epoch now") as caught:
        config = TrainConfig(epochs=2, steps=3, seed=1)
    assert config.steps_per_epoch == 3
    assert [w.filename for w in caught] == [__file__]
    with pytest.warns(FutureWarning) as caught:
        TrainConfig.model_validate({"steps": 2})
    assert [w.filename for w in caught] == [__file__]
