"""``train`` reads the night's ``[night] prompts`` too: one setting replaces the shipped prompts for
both loops, and ``--prompts`` given on the command line still wins."""

from __future__ import annotations

import json
from pathlib import Path


def _train(cli, planted: Path, skill: Path, out: Path, *extra: str, env: dict[str, str]):  # type: ignore[no-untyped-def]
    return cli(
        "train",
        str(planted),
        "--skill",
        str(skill),
        "--out",
        str(out),
        "--backend",
        "simulated",
        "--epochs",
        "1",
        "--steps-per-epoch",
        "1",
        *extra,
        env=env,
    )


def test_train_uses_the_prompts_the_night_setting_names(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    mine = tmp_path / "my-prompts"
    mine.mkdir()
    (mine / "reflect_failure.txt").write_text("Name the one rule the failure broke.\n")
    r = _train(
        cli, planted, skill, tmp_path / "run", env={"SKILLOPT_SLEEP_NIGHT__PROMPTS": str(mine)}
    )
    assert r.code == 0, r.err
    record = json.loads((tmp_path / "run" / "prompts.json").read_text())
    assert record["reflect_failure"]["source"] == str((mine / "reflect_failure.txt").resolve())
    assert record["reflect_success"]["source"] == "package"


def test_a_missing_prompts_directory_stops_train_in_one_line(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    env = {"SKILLOPT_SLEEP_NIGHT__PROMPTS": str(tmp_path / "absent")}
    r = _train(cli, planted, skill, tmp_path / "run", env=env)
    assert r.code == 3
    assert "\n" not in r.err.strip() and "no such prompts directory" in r.err
    assert not (tmp_path / "run").exists()
