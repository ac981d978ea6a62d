"""``train --resume --out DIR`` resumes the run in DIR from what it recorded (its settings, its task
set's path, its initial skill, its backend), and refuses a DIR that holds no run."""

from __future__ import annotations

from pathlib import Path


def _start(planted: Path, skill: Path, out: Path) -> list[str]:
    return [
        "train", str(planted), "--skill", str(skill), "--out", str(out), "--backend",
        "simulated", "--epochs", "1", "--steps-per-epoch", "2", "--seed", "2", "--k", "3",
    ]  # fmt: skip


def test_resume_takes_the_run_in_out_from_its_record_to_its_end(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    stopped = cli(*_start(planted, skill, run), env={"SKILLOPT_SLEEP_BUDGET__MAX_CALLS": "250"})
    assert stopped.code == 7, stopped.err
    finished_before = sorted(p.name for p in (run / "units").iterdir())
    assert finished_before == ["0001-e1-s1"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    resumed = cli("train", "--resume", "--out", str(run), "--json", cwd=elsewhere)
    assert resumed.code == 0, resumed.err
    assert resumed.json()["steps"] == 2 and resumed.json()["stopped"] == ""
    assert sorted(p.name for p in (run / "units").iterdir())[: len(finished_before)] == (
        finished_before
    )
    whole = cli(*_start(planted, skill, tmp_path / "whole"), "--json")
    assert resumed.json()["accepted_edits"] == whole.json()["accepted_edits"]
    assert (run / "best.md").read_text() == (tmp_path / "whole" / "best.md").read_text()


def test_resume_with_another_setting_is_refused_as_a_rerun_with_it_is(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    assert cli(*_start(planted, skill, run)).code == 0
    other = cli("train", "--resume", "--out", str(run), "--k", "2")
    assert other.code == 2 and "holds a run with other settings (k)" in other.err


def test_resume_of_a_directory_without_a_run_is_refused_in_one_line(cli, tmp_path: Path) -> None:
    r = cli("train", "--resume", "--out", "empty", cwd=tmp_path)
    assert (r.code, r.out) == (2, "")
    assert r.err == (
        "skillopt-sleep: error: no training run in empty to resume (start one with "
        "`skillopt-sleep train DATA --skill FILE --out empty`)\n"
    )
    assert not (tmp_path / "empty").exists()
    r = cli("train", "--resume", cwd=tmp_path)
    assert r.code == 2 and r.err.startswith("skillopt-sleep: error: train --resume needs --out DIR")
