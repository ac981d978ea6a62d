"""The model's merge and ranking of a step's edits, as the run directory shows them: paraphrases
merged into one edit by the model where word overlap keeps them apart, the word-overlap merge
when the model's reply is unusable, the model's choice of edits past the budget, overridable
prompts, and a step's optimizer calls asked concurrently."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from skillopt_sleep import TrainConfig, train
from skillopt_sleep.backends.base import Completion, Health, Request
from skillopt_sleep.backends.scripted import ScriptedBackend
from skillopt_sleep.backends.simulated import SimulatedBackend
from skillopt_sleep.backends.simulated_merge import merge_reply

from .conftest import UNLIMITED

LONG = "Keep every summary under 300 characters."
SHORT = "Keep summaries under 300 characters."
ONE_STEP = {"epochs": 1, "steps_per_epoch": 1, "batch_size": 8, "minibatch": 1, "seed": 4}
ONE_STEP |= {"slow_update": False, "meta_skill": False, "test_k": 1, "val_k": 1}


def _edits(*contents: str) -> str:
    return json.dumps(
        {"edits": [{"target": "skill", "op": "add", "content": c, "cases": [1]} for c in contents]}
    )


def _optimizer(reflect: Any, merge: Any = merge_reply, rank: Any = None) -> ScriptedBackend:
    """An optimizer whose analysts answer ``reflect(request)``, whose merge calls answer
    ``merge(prompt)`` and whose ranking calls answer ``rank(prompt)``."""

    def respond(request: Request) -> str:
        if request.tag.startswith("merge-"):
            return str(merge(request.prompt))
        if request.tag == "rank":
            return str(rank(request.prompt)) if rank else "{}"
        return str(reflect(request))

    return ScriptedBackend(responder=respond)


def _unit(run: Path, name: str) -> list[dict[str, Any]]:
    unit = next((run / "units").iterdir())
    return json.loads((unit / name).read_text())  # type: ignore[no-any-return]


def _run(planted: Path, skill: Path, out: Path, optimizer: ScriptedBackend, **config: Any) -> Path:
    cfg = TrainConfig(**{**ONE_STEP, **config})
    train(planted, skill, out, target=SimulatedBackend(), optimizer=optimizer, config=cfg,
          budget=UNLIMITED)  # fmt: skip
    return out


def _paraphrases(request: Request) -> str:  # one analyst says it one way, the next another
    return _edits(LONG if (request.seed or 0) % 2 else SHORT)


def test_paraphrases_from_two_analysts_become_one_edit_citing_both(
    planted: Path, skill: Path, tmp_path: Path
) -> None:
    run = _run(planted, skill, tmp_path / "run", _optimizer(_paraphrases))
    merged = [m for m in _unit(run, "merged.json") if "300" in m["edit"]["content"]]
    assert len(merged) == 1, merged
    one = merged[0]
    assert one["merged_by"] == "model" and one["support"] >= 2
    assert {one["edit"]["content"], *one["merged"]} == {LONG, SHORT}
    proposed = [p for p in _unit(run, "proposed.json") if "300" in p["edit"]["content"]]
    cited = {c for p in proposed for c in p["edit"]["cites"]}
    assert set(one["edit"]["cites"]) == cited and len(cited) >= 2


def test_the_word_overlap_merge_keeps_the_paraphrases_apart(
    planted: Path, skill: Path, tmp_path: Path
) -> None:
    run = _run(planted, skill, tmp_path / "run", _optimizer(_paraphrases), merge="lexical")
    merged = {m["edit"]["content"] for m in _unit(run, "merged.json")}
    assert {LONG, SHORT} <= merged


def test_an_unusable_merge_reply_falls_back_to_the_word_overlap_merge(
    planted: Path, skill: Path, tmp_path: Path
) -> None:
    optimizer = _optimizer(lambda r: _edits(SHORT), merge=lambda prompt: "no JSON here")
    run = _run(planted, skill, tmp_path / "run", optimizer)
    merged = _unit(run, "merged.json")
    assert [(m["edit"]["content"], m["merged_by"]) for m in merged] == [(SHORT, "words")]
    merges = [r for r in optimizer.history if r.tag.startswith("merge-")]
    assert len(merges) == 2  # asked once more, then the fallback


def test_a_group_of_out_of_range_indices_is_an_unusable_reply(
    planted: Path, skill: Path, tmp_path: Path
) -> None:
    bad = json.dumps({"edits": [{"from": [0, 99], "content": SHORT}]})
    optimizer = _optimizer(_paraphrases, merge=lambda prompt: bad)
    run = _run(planted, skill, tmp_path / "run", optimizer)
    merged = {m["edit"]["content"] for m in _unit(run, "merged.json")}
    assert {LONG, SHORT} <= merged  # the word-overlap merge: apart, nothing lost


def test_past_the_budget_the_model_chooses_which_edits_are_tested(
    planted: Path, skill: Path, tmp_path: Path
) -> None:
    rules = ["Use the logging module, never print().", SHORT, "Run the tests with `pytest -q`."]

    def pick_last(prompt: str) -> str:
        return json.dumps({"selected_indices": [2]})

    optimizer = _optimizer(lambda r: _edits(*rules), rank=pick_last)
    run = _run(planted, skill, tmp_path / "run", optimizer, edit_budget=1)
    ranked = _unit(run, "ranked.json")
    assert len(ranked) == 3
    gate = json.loads((next((run / "units").iterdir()) / "gate.json").read_text())
    assert gate["ranked_by"] == "model"
    ask = next(r for r in optimizer.history if r.tag == "rank")
    chosen = json.loads(ask.prompt.split("\n## EDITS", 1)[1].split("\n", 1)[1].rsplit("\n\n", 1)[0])
    assert ranked[0]["edit"]["content"] == chosen[2]["content"]


def test_a_merge_prompt_is_overridden_by_its_file(
    planted: Path, skill: Path, tmp_path: Path
) -> None:
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "merge_failure.txt").write_text("Merge these edits, our way.\n")
    optimizer = _optimizer(_paraphrases)
    cfg = TrainConfig(**ONE_STEP)
    out = tmp_path / "run"
    train(planted, skill, out, target=SimulatedBackend(), optimizer=optimizer, config=cfg,
          budget=UNLIMITED, prompts_dir=prompts)  # fmt: skip
    merges = [r for r in optimizer.history if r.tag == "merge-failure"]
    assert merges and {r.system for r in merges} == {"Merge these edits, our way.\n"}
    record = json.loads((out / "prompts.json").read_text())
    assert record["merge_failure"]["source"] == str((prompts / "merge_failure.txt").resolve())
    assert record["ranking"]["source"] == "package"


class _Counting:
    """An optimizer that holds each call a moment and counts how many are in flight at once."""

    name = "counting"
    model = "counting"

    def __init__(self) -> None:
        self.inflight = self.most = 0

    async def check(self) -> Health:
        return Health(True, "counting")

    async def complete(self, request: Request) -> Completion:
        self.inflight += 1
        self.most = max(self.most, self.inflight)
        await asyncio.sleep(0.02)
        self.inflight -= 1
        text = merge_reply(request.prompt) if request.tag.startswith("merge-") else _edits(SHORT)
        return Completion(text, 10, 10, 0.0, self.model)


def test_a_steps_analyst_calls_run_concurrently_under_the_limit(
    planted: Path, skill: Path, tmp_path: Path
) -> None:
    counting = _Counting()
    cfg = TrainConfig(**{**ONE_STEP, "concurrency": 3})
    train(planted, skill, tmp_path / "run", target=SimulatedBackend(), optimizer=counting,  # type: ignore[arg-type]
          config=cfg, budget=UNLIMITED)  # fmt: skip
    assert counting.most == 3


def test_the_seeds_merge_batch_size_and_merge_and_ranking_overrides_reach_the_run(
    tmp_path: Path,
) -> None:
    from skillopt_sleep.compat import SimpleQAEnv, SkillOptConfig, SkillOptTrainer
    from skillopt_sleep.optimize.prompts import load_prompts

    items = [{"id": "1", "question": "Capital of France?", "answers": ["Paris"]}]
    trainer = SkillOptTrainer(
        config=SkillOptConfig(merge_batch_size=3),
        env=SimpleQAEnv(train_items=items, val_items=items, test_items=items),
        optimizer_client=ScriptedBackend(),
        target_client=ScriptedBackend(),
        initial_skill="Answer in one short phrase.",
        prompt_overrides={"merge_failure": "Merge, our way.", "ranking": "Rank, our way."},
    )
    assert trainer.train_config(1).merge_batch_size == 3
    folder = trainer._prompts(tmp_path)
    prompts = load_prompts(folder)
    assert (prompts["merge_failure"], prompts["ranking"]) == ("Merge, our way.", "Rank, our way.")
