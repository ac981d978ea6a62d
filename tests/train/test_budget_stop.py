"""A run stopped by its budget says which limit to raise and to what: the same command with the
same budget would resume, spend nothing new and stop again."""

from __future__ import annotations

import re
from pathlib import Path

from skillopt_sleep.sample.train_sets import SKILL

SAMPLE = Path(__file__).parents[2] / "skillopt_sleep" / "sample" / "train"


def test_a_budget_stop_names_the_limit_that_lets_the_next_run_go_on(cli, tmp_path: Path) -> None:
    skill = tmp_path / "SKILL.md"
    skill.write_text(SKILL)
    out = tmp_path / "run"
    args = [
        "train", str(SAMPLE / "tasks.jsonl"), "--skill", str(skill), "--out", str(out),
        "--backend", "simulated", "--epochs", "2", "--steps-per-epoch", "2", "--seed", "1",
    ]  # fmt: skip

    def units() -> list[str]:
        return sorted(p.name for p in (out / "units").iterdir())

    first = cli(*args, env={"SKILLOPT_SLEEP_BUDGET__MAX_CALLS": "400"})
    assert first.code == 7, first.err
    said = re.search(
        r"call budget reached \(400/400 calls\); step 0002-e1-s2 needs about (\d+) more calls: "
        r"raise budget\.max_calls to at least (\d+) \(SKILLOPT_SLEEP_BUDGET__MAX_CALLS=(\d+)\), "
        r"then run the same command again to resume$",
        first.err.splitlines()[-1],
    )
    assert said, first.err
    need, raise_to = int(said[1]), int(said[2])
    assert said[3] == said[2] and raise_to >= 400 + need
    stop = first.err.splitlines()[-1].removeprefix("skillopt-sleep: error: ")
    assert f"stopped early: {stop}\n" in first.out
    assert units() == ["0001-e1-s1"]

    again = cli(*args, env={"SKILLOPT_SLEEP_BUDGET__MAX_CALLS": "400"})  # the same budget: stuck
    assert again.code == 7 and units() == ["0001-e1-s1"]
    assert "raise budget.max_calls to at least" in again.err

    raised = cli(*args, env={"SKILLOPT_SLEEP_BUDGET__MAX_CALLS": str(raise_to)})
    assert units()[:2] == ["0001-e1-s1", "0002-e1-s2"], raised.err
