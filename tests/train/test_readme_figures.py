"""The README's training figures are what its commands print: the sample run's three lines and its
calls, and the QA quick start's test pass rates (regenerate them from these runs when they move)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
SAMPLE = REPO / "skillopt_sleep" / "sample"


def test_the_sample_runs_output_and_calls_are_the_readmes(cli, tmp_path: Path) -> None:
    out = tmp_path / "sleep-train"
    r = cli(
        "train", str(SAMPLE / "train/tasks.jsonl"), "--skill", str(SAMPLE / "train/SKILL.md"),
        "--out", str(out), "--backend", "simulated", "--epochs", "2", "--steps-per-epoch", "2",
        "--seed", "1",
    )  # fmt: skip
    assert r.code == 0, r.err
    shown = r.out.replace(str(out), "/tmp/sleep-train")
    block = re.search(r"--seed 1\n```\n```\n(trained .*?)```", README, re.S)
    assert block and shown == block[1]
    again = cli("train", "--resume", "--out", str(out), "--json")
    assert f"above takes {again.json()['usage']['calls']} calls;" in README


def test_the_qa_quick_starts_pass_rates_are_the_readmes(cli, tmp_path: Path) -> None:
    r = cli(
        "train", str(SAMPLE / "qa.jsonl"), "--skill", str(SAMPLE / "QA_SKILL.md"), "--env", "qa",
        "--backend", "simulated", "--epochs", "2", "--steps-per-epoch", "2", "--seed", "1",
        "--out", str(tmp_path / "qa"), "--json",
    )  # fmt: skip
    assert r.code == 0, r.err
    base, best = r.json()["baseline"]["test_hard"], r.json()["best"]["test_hard"]
    assert f"until the skill says otherwise; {base:.2f} -> {best:.2f} on the test split" in README
