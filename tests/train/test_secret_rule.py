"""A rule the optimizer proposes with a secret in it is refused in training, never adopted redacted."""

from __future__ import annotations

import json
import random
from pathlib import Path

from skillopt_sleep import TrainConfig, train
from skillopt_sleep.backends.base import Request
from skillopt_sleep.backends.scripted import ScriptedBackend

from .conftest import UNLIMITED

TOKEN = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"
SECRET_RULE = f"Authenticate to the registry with the token {TOKEN}."
RULE = "Answer with the capital city only, in English."
CAPITALS = {
    "France": "Paris",
    "Italy": "Rome",
    "Spain": "Madrid",
    "Japan": "Tokyo",
    "Peru": "Lima",
    "Kenya": "Nairobi",
    "Chile": "Santiago",
    "Egypt": "Cairo",
    "Norway": "Oslo",
}


def respond(request: Request) -> str:
    if request.role == "optimizer":
        edits = [
            {"target": "skill", "content": SECRET_RULE, "rationale": f"uses {TOKEN}", "cases": [1]},
            {"target": "skill", "content": RULE, "cases": [1]},
        ]
        return json.dumps({"edits": edits})
    country = request.prompt.split("capital of ")[1].split("?")[0]
    right = random.Random(request.seed).random() < (0.95 if RULE in request.system else 0.3)
    return CAPITALS[country] if right else f"The capital of {country} is {CAPITALS[country]}."


def test_a_trained_rule_carrying_a_secret_is_refused_and_the_run_dir_says_why(
    tmp_path: Path, skill: Path
) -> None:
    items = [
        {
            "id": c,
            "question": f"What is the capital of {c}?",
            "answers": [a],
            "split": ["train", "val", "test"][i % 3],
        }
        for i, (c, a) in enumerate(CAPITALS.items())
    ]
    data = tmp_path / "qa.jsonl"
    data.write_text("".join(json.dumps(i) + "\n" for i in items))
    cfg = TrainConfig(
        epochs=1, steps_per_epoch=1, seed=3, env="qa", slow_update=False, meta_skill=False
    )
    r = train(
        data,
        skill,
        tmp_path / "run",
        target=ScriptedBackend(responder=respond),
        config=cfg,
        budget=UNLIMITED,
    )
    assert [e.content for e in r.summary.accepted_edits] == [RULE]  # the other rule still learned
    assert "registry" not in r.best_skill and "REDACTED" not in r.best_skill
    [refused_file] = (tmp_path / "run").rglob("refused.json")
    refused = json.loads(refused_file.read_text())
    assert [e["reason"] for e in refused] == ["contains a secret (github-token)"]
    assert "registry" in refused[0]["content"] and TOKEN not in refused[0]["content"]
    written = [p.read_text() for p in (tmp_path / "run").rglob("*") if p.is_file()]
    assert written and not any(TOKEN in text for text in written)  # redacted wherever it is kept
