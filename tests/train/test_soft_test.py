"""A mixed gate metric keeps partial credit's power: on release notes that pass only with both
planted rules, the scores' permutation test learns both where passes drawn from the scores (the
benchmarks' DRAWN gate) do not; a config still naming the drawn test is refused, naming the fix."""

from __future__ import annotations

from pathlib import Path

from bench.train_gates import DRAWN
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
        gate=DRAWN if soft_test == "drawn" else None,
    )
    return parts_in(r.best_skill)


def test_a_mixed_metric_learns_both_planted_rules_on_its_scores_not_on_drawn_passes(
    tmp_path: Path,
) -> None:
    assert all(_learned(tmp_path, "permutation").values())
    assert not all(_learned(tmp_path, "drawn").values())


def test_a_config_naming_the_drawn_test_or_the_mean_gate_is_refused_naming_the_fix() -> None:
    for key, old in (("soft_test", "drawn"), ("gate", "mean")):
        try:
            TrainConfig.model_validate({key: old})
        except ValueError as exc:
            assert f"remove {key}" in str(exc) and "one gate" in str(exc), exc
        else:
            raise AssertionError(f"{key} = {old} was accepted")


def test_a_run_directory_from_before_naming_the_default_gate_still_reads() -> None:
    config = TrainConfig.model_validate({"gate": "evidence", "soft_test": "permutation"})
    assert config == TrainConfig()
