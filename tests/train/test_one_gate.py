"""A user's ``train`` has one gate, the evidence gate: the older mean gate and the drawn-pass soft
test are the benchmarks' comparisons now, so naming them is refused in one line that says what to
do, and a run directory written before (naming the default) still resumes."""

from __future__ import annotations

import json
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "skillopt_sleep" / "sample" / "train"


def _train(cli, tmp_path: Path, *more: str):  # type: ignore[no-untyped-def]
    return cli(
        "train",
        str(SAMPLE / "tasks.jsonl"),
        "--skill",
        str(SAMPLE / "SKILL.md"),
        "--out",
        str(tmp_path / "run"),
        "--backend",
        "simulated",
        *more,
        cwd=tmp_path,
    )


def test_train_gate_mean_is_refused_in_one_line_and_runs_nothing(cli, sandbox_home, tmp_path):
    r = _train(cli, tmp_path, "--estimate", "--gate", "mean")
    assert r.code == 2 and r.err.count("\n") == 1, r.err
    assert r.err.startswith(
        "skillopt-sleep: error: --gate mean is no longer a choice: a run has one gate, the evidence gate"
    )
    assert "remove --gate" in r.err
    assert not (tmp_path / "run").exists()


def test_a_run_directory_naming_the_drawn_test_is_refused_and_one_naming_the_defaults_resumes(
    cli, sandbox_home, tmp_path
):
    args = ("--epochs", "1", "--steps-per-epoch", "1", "--seed", "1", "--json")
    first = _train(cli, tmp_path, *args)
    assert first.code == 0, first.err
    path = tmp_path / "run" / "config.json"
    config = json.loads(path.read_text())
    path.write_text(json.dumps({**config, "gate": "evidence", "soft_test": "permutation"}))
    again = _train(cli, tmp_path, *args)
    assert again.code == 0, again.err
    path.write_text(json.dumps({**config, "soft_test": "drawn"}))
    refused = _train(cli, tmp_path, *args)
    assert refused.code != 0 and refused.err.count("\n") == 1, refused.err
    assert "soft_test = 'drawn' is no longer a choice" in refused.err
    assert "remove soft_test" in refused.err
