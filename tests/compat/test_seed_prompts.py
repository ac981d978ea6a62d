"""An analyst prompt in the seeds' own reply format gives proposals: skillrl's
``prompt_overrides`` with a prompt that asks for the seeds' patch, answered in that shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep import TrainConfig, train
from skillopt_sleep.backends.base import Request
from skillopt_sleep.backends.scripted import ScriptedBackend
from skillopt_sleep.backends.simulated import SimulatedBackend
from skillopt_sleep.compat import (
    BackendClient,
    BaseLLMClient,
    RolloutResult,
    SkillEnv,
    SkillOptConfig,
    SkillOptTrainer,
)
from skillopt_sleep.envs.registry import load_env

HERE = Path(__file__).parent

# An analyst prompt written for the seeds' reply format (a patch over the whole minibatch).
SEED_PROMPT = """You are a failure-analysis agent. Read every failed trajectory of the minibatch and
the current skill document, find the common failure patterns, and propose at most L edits.

Respond ONLY with a valid JSON object:
{
  "batch_size": <number of trajectories analysed>,
  "failure_summary": [{"failure_type": "<type>", "count": <int>, "description": "<one line>"}],
  "patch": {
    "reasoning": "<why these edits fix the batch's common failures>",
    "edits": [
      {"op": "append", "content": "<markdown to add at the end of the skill>"},
      {"op": "replace", "target": "<exact text to replace>", "content": "<replacement>"},
      {"op": "delete", "target": "<exact text to remove>"}
    ]
  }
}
"""
RULE = "Open every answer with the word READY."
REPLY = {
    "batch_size": 3,
    "failure_summary": [{"failure_type": "format", "count": 3, "description": "no READY"}],
    "patch": {
        "reasoning": "every failed answer lacked the opening word",
        "edits": [
            {"op": "append", "content": RULE},
            {"op": "replace", "target": "Be brief.", "content": "Be brief and plain."},
            {"op": "delete", "target": "Say nothing else."},
        ],
    },
}


class ReadyEnv(SkillEnv):
    """An answer passes when the skill tells the agent to open with READY (no model call)."""

    name = "ready"

    def get_items(self, split: str) -> list[dict[str, Any]]:
        n = {"train": 6, "val": 4, "test": 4}[split]
        return [{"id": f"{split}{i}", "question": f"Question {i}?"} for i in range(n)]

    def rollout_one(self, *, item: dict[str, Any], skill: str, target_client: Any) -> RolloutResult:
        hard = int(RULE in skill)
        return RolloutResult(
            id=str(item["id"]), hard=hard, soft=float(hard), fail_reason="" if hard else "no READY"
        )


class SeedAnalyst(BaseLLMClient):
    """Answers the seed-format prompt in the seeds' format; the rest as the simulated optimizer."""

    model = "seed-analyst"

    def __init__(self) -> None:
        self.other = BackendClient(SimulatedBackend(), role="optimizer")
        self.asked = 0

    def chat(self, *, system: str, user: str, **kwargs: Any) -> tuple[str, dict[str, int]]:
        if system.startswith(SEED_PROMPT):
            self.asked += 1
            return json.dumps(REPLY), {"prompt_tokens": 1, "completion_tokens": 1}
        return self.other.chat(system=system, user=user, **kwargs)


def test_an_analyst_prompt_in_the_seeds_reply_format_gives_proposals(tmp_path: Path) -> None:
    out = tmp_path / "run"
    analyst = SeedAnalyst()
    trainer = SkillOptTrainer(
        config=SkillOptConfig(
            num_epochs=1, batch_size=6, out_root=str(out), verbose=False, eval_test=False
        ),
        env=ReadyEnv(),
        optimizer_client=analyst,
        target_client=BackendClient(SimulatedBackend()),
        initial_skill="Be brief.\nSay nothing else.\n",
        prompt_overrides={"analyst_error": SEED_PROMPT},
    )
    trainer.train()
    assert analyst.asked >= 1
    (step,) = (out / "units").glob("*-e1-s1")
    proposed = json.loads((step / "proposed.json").read_text())
    got = {(p["edit"]["op"], p["edit"]["content"], p["edit"]["old"]) for p in proposed}
    assert {
        ("add", RULE, None),
        ("replace", "Be brief and plain.", "Be brief."),
        ("remove", "Say nothing else.", None),
    } <= got
    failure = [p for p in proposed if p["edit"]["content"] == RULE]
    assert failure[0]["analyst"] == "failure"
    assert failure[0]["edit"]["rationale"] == "every failed answer lacked the opening word"
    assert len(failure[0]["edit"]["cites"]) == 6  # the patch is the minibatch's: it cites its cases
    assert RULE in (out / "best_skill.md").read_text()  # and the gate proved it


def test_an_adapters_own_analyst_prompt_is_the_runs_and_its_reply_gives_proposals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    own = (HERE / "seed_prompted" / "prompts" / "analyst_error.md").read_text()
    reply = {
        "batch_size": 6,
        "patch": {"reasoning": "no READY", "edits": [REPLY["patch"]["edits"][0]]},
    }

    def optimizer(request: Request) -> str:
        return json.dumps(reply) if request.system.startswith(own) else '{"edits": []}'

    out = tmp_path / "run"
    config = TrainConfig(
        epochs=1, steps_per_epoch=1, batch_size=6, mode="document", merge="lexical",
        slow_update=False, meta_skill=False,
    )  # fmt: skip
    result = train(
        None, None, out, target=SimulatedBackend(), optimizer=ScriptedBackend(responder=optimizer),
        config=config, env=load_env("seed_prompted.adapter:PromptedAdapter"), skill_text="Be brief.",
    )  # fmt: skip
    sources = json.loads((out / "prompts.json").read_text())
    assert sources["reflect_failure"]["source"] == (
        "environment: PromptedAdapter.get_error_minibatch_prompt()"
    )
    assert sources["reflect_success"]["source"] == "package"  # it ships no success prompt
    assert RULE in result.best_skill
