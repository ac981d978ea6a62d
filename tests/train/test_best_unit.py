"""Where the best skill was made is said in the run's own units (the names of ``units/``), the same
in the summary, ``summary.json`` and the proposal ``train stage`` makes."""

from __future__ import annotations

import json
from pathlib import Path

from skillopt_sleep import TrainConfig, train
from skillopt_sleep.backends.simulated import SimulatedBackend

from .conftest import UNLIMITED


def test_the_summary_and_the_staged_proposal_name_the_unit_of_the_best_skill(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    r = cli(
        "train", str(planted), "--skill", str(skill), "--out", str(run), "--backend",
        "simulated", "--epochs", "1", "--steps-per-epoch", "1", "--seed", "2",
    )  # fmt: skip
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0].startswith("trained 1 step and 1 slow update: ")
    best = "best: after 0002-e1-slow (the slow update of epoch 1)"
    assert lines[1].endswith(f"; {best}")
    summary = json.loads((run / "summary.json").read_text())
    assert (summary["best_step"], summary["best_unit"]) == (2, "0002-e1-slow")
    assert (run / "units/0002-e1-slow/skill.md").read_text() == (run / "best.md").read_text()
    project = tmp_path / "project"
    project.mkdir()
    assert cli("train", "stage", str(run), "--project", str(project)).code == 0
    decision = [
        x for x in cli("review", "--project", str(project)).out.splitlines() if "ACCEPT" in x
    ]
    assert decision and f"; {best}; test pass rate" in decision[0]


def test_a_best_skill_made_by_a_step_is_named_by_its_step(
    planted: Path, skill: Path, tmp_path: Path
) -> None:
    config = TrainConfig(epochs=1, steps_per_epoch=2, slow_update=False, meta_skill=False, seed=2)
    out = tmp_path / "run"
    s = train(planted, skill, out, target=SimulatedBackend(), config=config, budget=UNLIMITED)
    s_ = s.summary
    assert s_.best_step in (1, 2) and s_.best_unit == f"000{s_.best_step}-e1-s{s_.best_step}"
    assert s_.best_at() == f"after {s_.best_unit} (step {s_.best_step})"
    assert (out / "units" / s_.best_unit / "skill.md").read_text() == s.best_skill
