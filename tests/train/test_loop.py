"""Training runs on the simulated backend: what a user sees in the result and the run directory."""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from bench.train_gates import GATES
from skillopt_sleep import TrainConfig, train
from skillopt_sleep.backends.simulated import SimulatedBackend
from skillopt_sleep.envs import EnvResult, TaskRecordEnv
from skillopt_sleep.sample.train_sets import null_backend, planted_rules_in
from skillopt_sleep.testing import kill_train
from skillopt_sleep.train.data import load_task_set

from .conftest import UNLIMITED

SMALL = TrainConfig(epochs=1, steps_per_epoch=2, batch_size=8, seed=1)


class Counting(TaskRecordEnv):
    """The task-record environment, counting rollouts per item."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: Counter[str] = Counter()

    async def rollout(self, item, instructions, backend, *, seed, max_tokens=1024):  # type: ignore[no-untyped-def]
        self.seen[item.id] += 1
        return await super().rollout(item, instructions, backend, seed=seed, max_tokens=max_tokens)


def test_planted_rules_are_learned_and_the_test_gain_excludes_zero(
    planted: Path, skill: Path, tmp_path: Path
) -> None:
    env = Counting()
    r = train(
        planted,
        skill,
        tmp_path / "run",
        target=SimulatedBackend(),
        config=SMALL,
        env=env,
        budget=UNLIMITED,
    )
    s = r.summary
    assert s.best.test_hard is not None and s.baseline.test_hard is not None
    assert (
        s.best.test_hard > s.baseline.test_hard
        and s.gain_hard is not None
        and s.gain_hard.ci_low > 0
    )
    assert s.gain_hard.p_value < 0.01 and s.best_step >= 1
    assert all(planted_rules_in(r.best_skill).values()), r.best_skill
    assert (
        "Double-check your work" not in r.best_skill
    )  # the simulated optimizer's useless rule was refused
    test_ids = {t.id for t in load_task_set(planted).test}
    assert {env.seen[i] for i in test_ids} == {
        2 * SMALL.test_k
    }  # the test split: the initial and the best skill
    run = Path(r.run_dir)
    on_disk = json.loads((run / "summary.json").read_text())
    assert on_disk["best"]["test_hard"] == s.best.test_hard and on_disk["best_step"] == s.best_step
    assert (run / "best.md").read_text() == r.best_skill and (
        run / "initial.md"
    ).read_text() == skill.read_text()
    first = min((run / "units").iterdir())
    assert {p.name for p in first.iterdir()} >= {
        "rollouts.jsonl",
        "proposed.json",
        "merged.json",
        "ranked.json",
        "applied.json",
        "evidence.json",
        "reflections.json",
    }
    assert json.loads((run / "prompts.json").read_text())["reflect_failure"]["source"] == "package"
    state = json.loads((run / "state.json").read_text())
    assert (
        state["unit"] == 3
        and state["schedule"] == [3, 3]
        and state["alpha_spent"] <= SMALL.run_alpha
    )


@pytest.mark.slow
def test_where_no_rule_helps_the_evidence_gate_accepts_nothing_and_the_mean_gate_does(
    null_set: Path, skill: Path, tmp_path: Path
) -> None:
    evidence = mean = 0
    for seed in (1, 2, 3):
        for gate in ("evidence", "mean"):
            cfg = TrainConfig(epochs=2, steps_per_epoch=3, seed=seed)
            r = train(
                null_set,
                skill,
                tmp_path / f"{gate}{seed}",
                target=null_backend(),
                config=cfg,
                budget=UNLIMITED,
                gate=GATES[gate],
            )
            n = len(r.summary.accepted_edits)
            evidence, mean = (evidence + n, mean) if gate == "evidence" else (evidence, mean + n)
    assert evidence == 0 and mean > 0


class Flaky(TaskRecordEnv):
    """Errors on every rollout of one item (as an outage of one request would)."""

    async def rollout(self, item, instructions, backend, *, seed, max_tokens=1024):  # type: ignore[no-untyped-def]
        if item.id == "readme-title-1":
            return EnvResult.errored("the model timed out")
        return await super().rollout(item, instructions, backend, seed=seed, max_tokens=max_tokens)


def test_an_item_that_always_errors_is_counted_never_scored_zero(
    planted: Path, skill: Path, tmp_path: Path
) -> None:
    r = train(
        planted,
        skill,
        tmp_path / "run",
        target=SimulatedBackend(),
        config=SMALL,
        env=Flaky(),
        budget=UNLIMITED,
    )
    assert r.summary.errored_rollouts > 0 and r.summary.gain_hard is not None
    assert r.summary.gain_hard.n_items == r.summary.n_test - (
        "readme-title-1" in {t.id for t in load_task_set(planted).test}
    )


def test_document_mode_trains_the_whole_skill(planted: Path, skill: Path, tmp_path: Path) -> None:
    cfg = SMALL.model_copy(update={"mode": "document"})
    r = train(
        planted, skill, tmp_path / "run", target=SimulatedBackend(), config=cfg, budget=UNLIMITED
    )
    assert "skillopt-sleep:begin" not in r.best_skill and r.best_skill.startswith(
        skill.read_text().split("# Project")[0]
    )
    assert r.summary.best.test_hard is not None and r.summary.best.test_hard > (
        r.summary.baseline.test_hard or 0
    )


@pytest.mark.slow
def test_a_run_killed_mid_step_resumes_and_ends_with_the_same_summary(
    planted: Path, skill: Path, tmp_path: Path, subprocess_env: dict[str, str]
) -> None:
    def run(out: Path, mode: str) -> int:
        return subprocess.run(
            kill_train.argv(planted, skill, out, mode, every=50, seed=5),
            check=False,
            env=subprocess_env,
            capture_output=True,
            timeout=300,
        ).returncode

    def run_here(out: Path) -> int:  # a run to its end (or a resumed one): no process to kill
        return kill_train.main(
            [str(planted), str(skill), str(out), "keep", "--every", "50", "--seed", "5"]
        )

    assert run_here(tmp_path / "whole") == 0
    assert run(tmp_path / "killed", "kill") == -9
    state = json.loads((tmp_path / "killed" / "state.json").read_text())
    assert state["unit"] == 2 and not (tmp_path / "killed" / "summary.json").exists()
    assert run_here(tmp_path / "killed") == 0
    whole = (tmp_path / "whole" / "summary.json").read_text()
    assert (tmp_path / "killed" / "summary.json").read_text() == whole
    assert sorted(os.listdir(tmp_path / "killed" / "units")) == sorted(
        os.listdir(tmp_path / "whole" / "units")
    )


def test_a_run_that_hits_its_budget_stops_cleanly_and_resumes_with_more(
    planted: Path, skill: Path, tmp_path: Path
) -> None:
    from skillopt_sleep.settings import BudgetSettings

    whole = train(
        planted,
        skill,
        tmp_path / "whole",
        target=SimulatedBackend(),
        config=SMALL,
        budget=UNLIMITED,
    )
    short = train(
        planted,
        skill,
        tmp_path / "run",
        target=SimulatedBackend(),
        config=SMALL,
        budget=BudgetSettings(max_calls=150, max_tokens=None, max_cost_usd=None),
    )
    s = short.summary
    assert s.stopped_by == "budget" and s.stopped.startswith("call budget reached (150/150 calls)")
    assert (
        s.best.test_hard is None and not (tmp_path / "run" / "summary.json").exists()
    )  # no test report
    done = train(
        planted, skill, tmp_path / "run", target=SimulatedBackend(), config=SMALL, budget=UNLIMITED
    )
    assert done.summary.stopped == "" and done.best_skill == whole.best_skill
    assert (
        done.summary.best == whole.summary.best
        and done.summary.gain_hard == whole.summary.gain_hard
    )
    assert (
        done.summary.usage.calls > whole.summary.usage.calls
    )  # what the stopped attempt spent is counted


def test_a_question_answer_set_trains_through_the_qa_environment(
    tmp_path: Path, skill: Path
) -> None:
    import json as _json
    import random

    from skillopt_sleep.backends.base import Request
    from skillopt_sleep.backends.scripted import ScriptedBackend

    rule = "Answer with the capital city only, in English."
    capitals = {
        "France": "Paris",
        "Italy": "Rome",
        "Spain": "Madrid",
        "Japan": "Tokyo",
        "Peru": "Lima",
        "Kenya": "Nairobi",
        "Chile": "Santiago",
        "Egypt": "Cairo",
        "Norway": "Oslo",
        "Cuba": "Havana",
        "Greece": "Athens",
        "Poland": "Warsaw",
    }
    items = [
        {
            "id": c,
            "question": f"What is the capital of {c}?",
            "answers": [a],
            "split": ["train", "val", "test"][i % 3],
        }
        for i, (c, a) in enumerate(capitals.items())
    ]
    data = tmp_path / "qa.jsonl"
    data.write_text("".join(_json.dumps(i) + "\n" for i in items))

    def respond(request: Request) -> str:
        if request.role == "optimizer":
            return _json.dumps({"edits": [{"target": "skill", "content": rule, "cases": [1]}]})
        country = request.prompt.split("capital of ")[1].split("?")[0]
        follows = rule in request.system
        right = random.Random(request.seed).random() < (0.95 if follows else 0.3)
        return (
            f"It is\n{capitals[country]}"
            if right
            else f"The capital of {country} is {capitals[country]}."
        )

    cfg = TrainConfig(
        epochs=1, steps_per_epoch=1, seed=3, env="qa", slow_update=False, meta_skill=False, test_k=4
    )
    r = train(
        data,
        skill,
        tmp_path / "run",
        target=ScriptedBackend(responder=respond),
        config=cfg,
        budget=UNLIMITED,
    )
    s = r.summary
    assert [e.content for e in s.accepted_edits] == [rule]
    assert s.best.test_hard is not None and s.baseline.test_hard is not None
    assert s.best.test_hard > s.baseline.test_hard and s.best.test_soft > s.baseline.test_soft  # type: ignore[operator]
    assert (
        s.baseline.test_soft > s.baseline.test_hard
    )  # the token F1 gives partial credit to a long answer
