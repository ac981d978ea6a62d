"""A training run's own replays keep their conversation in rollouts.jsonl: what the target was
asked (the item's context and request) and what it answered."""

from __future__ import annotations

import json
from pathlib import Path


def test_the_replay_s_messages_are_kept_in_rollouts_jsonl(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    r = cli(
        "train", str(planted), "--skill", str(skill), "--out", str(tmp_path / "run"),
        "--backend", "simulated", "--epochs", "1", "--steps-per-epoch", "1", "--json",
    )  # fmt: skip
    assert r.code == 0, r.err
    items = {json.loads(line)["id"]: json.loads(line) for line in planted.read_text().splitlines()}
    path = next((tmp_path / "run" / "units").glob("*-s1/rollouts.jsonl"))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines
    for line in lines:
        asked, answered = line["conversation"]
        assert (asked["role"], answered) == ("user", {"role": "assistant", "content": line["text"]})
        assert asked["content"].endswith(items[line["task_id"]]["intent"])
        assert line["extras"] == {}
