"""The seeds' users, served unchanged: skillrl's quick start and a SkillOpt EnvAdapter run through
``skillopt_sleep.compat`` (only their import lines changed), offline."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from skillopt_sleep.backends.base import Message, Request, Role
from skillopt_sleep.backends.simulated import SimulatedBackend
from skillopt_sleep.optimize.prompts import load_prompts
from skillopt_sleep.testing import ModelCall, ModelServer, Reply, Text

HERE = Path(__file__).parent
REPO = HERE.parents[1]


def simulated_seed_models() -> object:
    """A responder that answers a skillrl QA rollout as the simulated agent and everything else
    as the simulated optimizer."""
    sim, meta = SimulatedBackend(), load_prompts()["meta_skill"][:60]

    def respond(call: ModelCall) -> Reply:
        last = call.last.text if call.last is not None else ""
        role: Role = "target" if last.rstrip().endswith("Answer:") else "optimizer"
        seed = call.body.get("seed") if isinstance(call.body, Mapping) else None
        tag = "meta" if call.system.startswith(meta) else ""
        request = Request(role, call.system, (Message("user", last),), seed=seed, tag=tag)
        return Text(asyncio.run(sim.complete(request)).text)

    return respond


def test_skillrl_quick_start_runs_with_only_its_import_line_changed(tmp_path: Path) -> None:
    with ModelServer(responder=simulated_seed_models()) as srv:  # type: ignore[arg-type]
        env = {
            "OPENAI_API_KEY": "sk-test",
            "OPENAI_BASE_URL": srv.v1,
            "SKILLOPT_SLEEP_HOME": str(tmp_path / "home"),
            "PYTHONPATH": str(REPO),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PATH": "/usr/bin:/bin",
        }
        done = subprocess.run(
            [sys.executable, str(HERE / "skillrl_quickstart.py")],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        calls = srv.model_calls("chat")
    assert done.returncode == 0, done.stderr[-2000:]
    best_val, test_hard = done.stdout.strip().splitlines()[-1].split()
    assert (float(best_val), float(test_hard)) == (1.0, 1.0)  # every answer names the capital
    out = tmp_path / "outputs" / "qa_demo"
    assert (out / "best_skill.md").read_text().startswith("You are a concise QA assistant.")
    summary = json.loads((out / "skillrl_summary.json").read_text())
    assert summary["env"] == "simple_qa" and summary["total_steps"] == 4  # 2 epochs, 1 step + slow
    # what was trained is what the model saw: the skill itself, as the whole system prompt
    rollouts = [c for c in calls if c.last is not None and c.last.text.endswith("Answer:")]
    initial = "You are a concise QA assistant. Answer in one short phrase."
    assert initial in {c.system for c in rollouts}
    assert all(c.system.startswith(initial) for c in rollouts)  # no preamble before the skill
    assert all(c.model == "gpt-4o-mini" for c in rollouts)


def test_a_skillopt_env_adapter_trains_through_train_env_unchanged(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    skill = tmp_path / "SKILL.md"
    skill.write_text("You are a concise question-answering assistant.\n")
    r = cli(
        "train", "--env", "qa_adapter:QAAdapter", "--skill", str(skill), "--mode", "document",
        "--out", str(tmp_path / "run"), "--backend", "simulated", "--epochs", "2", "--steps-per-epoch", "2",
        "--seed", "1", "--json",
    )  # fmt: skip
    assert r.code == 0, r.err
    s = r.json()
    assert (s["n_train"], s["n_val"], s["n_test"]) == (9, 6, 15)  # the adapter's own items
    assert s["best"]["test_hard"] > s["baseline"]["test_hard"]
    proposed = [
        json.loads(p.read_text())
        for p in sorted((tmp_path / "run" / "units").glob("*/proposed.json"))
    ]
    by_env = [p["edit"]["content"] for ps in proposed for p in ps if p["analyst"] == "environment"]
    assert "Write numbers as digits (8, not eight)." in by_env  # the adapter's own reflect


def test_a_skillrl_env_brings_its_items_and_skill_and_its_errors_are_no_evidence(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    r = cli(
        "train", "--env", "my_env:MyEnv", "--mode", "document", "--out", str(tmp_path / "run"),
        "--backend", "simulated", "--epochs", "1", "--steps-per-epoch", "1", "--json",
    )  # fmt: skip
    assert r.code == 0, r.err
    s = r.json()
    assert (s["n_train"], s["n_val"], s["n_test"]) == (2, 1, 1)
    assert (tmp_path / "run" / "initial.md").read_text() == "You are an expert quiz agent."


def test_an_object_that_is_no_environment_is_one_line_naming_the_fix(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    r = cli("train", "--env", "json:JSONDecoder", "--out", "o", "--backend", "simulated")
    assert (r.code, r.out) == (3, "")
    assert r.err.startswith("skillopt-sleep: error: json:JSONDecoder is not an environment")
    assert r.err.count("\n") <= 2


def test_the_qa_quick_start_learns_offline(cli, tmp_path: Path) -> None:
    sample = REPO / "skillopt_sleep" / "sample"
    r = cli(
        "train", str(sample / "qa.jsonl"), "--skill", str(sample / "QA_SKILL.md"), "--env", "qa",
        "--backend", "simulated", "--epochs", "2", "--steps-per-epoch", "2", "--seed", "1",
        "--out", str(tmp_path / "qa"), "--json",
    )  # fmt: skip
    assert r.code == 0, r.err
    s = r.json()
    assert s["best"]["test_hard"] > s["baseline"]["test_hard"] + 0.2
    assert (
        "Answer with the answer alone, with no sentence around it."
        in (tmp_path / "qa" / "best.md").read_text()
    )
