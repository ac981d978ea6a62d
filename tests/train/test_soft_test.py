"""A mixed gate metric keeps partial credit's power: on release notes that pass only with both
planted rules, the scores' permutation test learns both where passes drawn from the scores do not."""

from __future__ import annotations

from pathlib import Path

from bench.worlds.partial_credit import SKILL, PartialCreditBackend, items, parts_in
from skillopt_sleep import TrainConfig, train
from skillopt_sleep.sample.train_sets import write_jsonl

from .conftest import UNLIMITED


def _learned(tmp_path: Path, soft_test: str) -> dict[str, bool]:
    data = write_jsonl(tmp_path / "notes.jsonl", items(20))
    config = TrainConfig.model_validate(
        {
            "epochs": 2,
            "steps_per_epoch": 3,
            "seed": 1,
            "gate_metric": "mixed",
            "soft_test": soft_test,
        }
    )
    r = train(
        data,
        None,
        tmp_path / f"run-{soft_test}",
        skill_text=SKILL,
        target=PartialCreditBackend(),
        config=config,
        budget=UNLIMITED,
    )
    return parts_in(r.best_skill)


def test_a_mixed_metric_learns_both_planted_rules_on_its_scores_not_on_drawn_passes(
    tmp_path: Path,
) -> None:
    assert all(_learned(tmp_path, "permutation").values())
    assert not all(_learned(tmp_path, "drawn").values())


def test_the_soft_test_is_named_in_the_error_when_unknown() -> None:
    try:
        TrainConfig.model_validate({"soft_test": "coin"})
    except ValueError as exc:
        assert "permutation" in str(exc) and "drawn" in str(exc)
    else:
        raise AssertionError("an unknown soft_test was accepted")
