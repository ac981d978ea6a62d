"""``train`` as a user types it: a budget stop exits as a night's does, a failed start leaves no run
behind to refuse the fixed command, and ``train stage`` is told where to stage."""

from __future__ import annotations

import json
from pathlib import Path

from skillopt_sleep.testing import Error, ModelServer


def _train(planted: Path, skill: Path, out: Path, *more: str) -> list[str]:
    return [
        "train",
        str(planted),
        "--skill",
        str(skill),
        "--out",
        str(out),
        "--epochs",
        "1",
        "--steps-per-epoch",
        "1",
        "--seed",
        "2",
        *more,
    ]


def test_a_run_stopped_by_its_budget_exits_7_in_one_line_and_resumes(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    config = tmp_path / ".skillopt-sleep.toml"
    config.write_text("[budget]\nmax_calls = 30\n")
    args = _train(planted, skill, tmp_path / "run", "--backend", "simulated")
    stopped = cli(*args, cwd=tmp_path)
    assert stopped.code == 7
    assert stopped.err.splitlines()[-1] == (
        "skillopt-sleep: error: call budget reached (30/30 calls); the initial skill's validation "
        "and step 0001-e1-s1 needs about 261 more calls: raise budget.max_calls to at least 357 "
        "(SKILLOPT_SLEEP_BUDGET__MAX_CALLS=357), then run the same command again to resume"
    )
    assert "stopped early: call budget reached" in stopped.out
    config.write_text("[budget]\nmax_calls = 2000\n")
    resumed = cli(*args, "--json", cwd=tmp_path)
    assert resumed.code == 0 and "error" not in resumed.err
    assert resumed.json()["steps"] == 1 and resumed.json()["stopped"] == ""


def test_a_start_refused_for_a_bad_env_leaves_nothing_and_the_fixed_command_runs(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    bad = cli(*_train(planted, skill, run, "--backend", "simulated", "--env", "qaa"))
    assert bad.code == 2 and "unknown environment 'qaa'" in bad.err
    assert not run.exists()
    fixed = cli(*_train(planted, skill, run, "--backend", "simulated", "--env", "task-record"))
    assert fixed.code == 0, fixed.err
    assert (run / "summary.json").is_file()


def test_a_start_refused_by_the_backend_leaves_nothing_and_the_fixed_command_runs(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    with ModelServer(responder=lambda call: Error(401, message="invalid x-api-key")) as srv:
        refused = cli(
            *_train(planted, skill, run, "--backend", "openai", "--base-url", srv.v1),
            "--model",
            "gpt-typo",
            env={"OPENAI_API_KEY": "sk-test"},
        )
    assert refused.code == 6 and refused.err.count("skillopt-sleep: error:") == 1
    assert not run.exists()
    fixed = cli(*_train(planted, skill, run, "--backend", "simulated"))
    assert fixed.code == 0, fixed.err


def test_a_run_killed_before_its_first_step_is_started_again_with_the_new_settings(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"env": "qa", "k": 9}))  # what a killed start left
    (run / "prompts.json").write_text("{}")
    (run / "data.json").write_text("{}")
    r = cli(*_train(planted, skill, run, "--backend", "simulated", "--json"))
    assert r.code == 0, r.err
    assert json.loads((run / "config.json").read_text())["k"] != 9


def test_a_run_with_finished_steps_is_still_kept_from_other_settings(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    assert cli(*_train(planted, skill, run, "--backend", "simulated")).code == 0
    other = cli(*_train(planted, skill, run, "--backend", "simulated", "--k", "2"))
    assert other.code == 2 and "holds a run with other settings (k)" in other.err


def test_train_stage_without_project_is_refused_and_stages_nothing(
    cli, planted: Path, skill: Path, tmp_path: Path, sandbox_home: Path
) -> None:
    run = tmp_path / "run"
    assert cli(*_train(planted, skill, run, "--backend", "simulated")).code == 0
    r = cli("train", "stage", str(run), cwd=tmp_path)
    assert (r.code, r.out) == (2, "")
    assert r.err == (
        "skillopt-sleep: error: train stage needs --project DIR: the project whose skill the "
        f"run's best replaces (skillopt-sleep train stage {run} --project DIR)\n"
    )
    assert not (sandbox_home / "sleep-home" / "data" / "nights").exists()
    missing = cli("train", "stage", str(run), "--project", str(tmp_path / "nowhere"))
    assert missing.code == 2 and "no project directory" in missing.err
