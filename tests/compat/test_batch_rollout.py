"""A SkillOpt adapter's batch rollout is called once per batch, as SkillOpt's trainer calls it:
its rows reach their items, the run's concurrency limit holds its model calls, and the budget
stops it cleanly."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from skillopt_sleep import TrainConfig, train
from skillopt_sleep.backends.base import Completion, Health, Request
from skillopt_sleep.backends.simulated import SimulatedBackend
from skillopt_sleep.backends.simulated_qa import FACTS
from skillopt_sleep.envs.registry import load_env
from skillopt_sleep.settings import BudgetSettings

HERE = Path(__file__).parent


def _items() -> dict[str, dict]:
    text = (HERE.parents[1] / "skillopt_sleep" / "sample" / "qa.jsonl").read_text()
    return {i["id"]: i for i in map(json.loads, text.splitlines()) if i}


def _answers_its_item(line: dict, items: dict[str, dict]) -> bool:
    """Whether a rollout's answer is the simulated agent's answer to its own item's question."""
    question = items[line["task_id"]]["question"].lower()
    fact = next(f for f in FACTS if f.key in question)
    said = line["text"].lower()
    return fact.answer.lower() in said or (bool(fact.spoken) and fact.spoken in said)


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


@pytest.fixture
def adapter(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.syspath_prepend(str(HERE))
    import batch_adapter

    batch_adapter.BatchAdapter.batches.clear()
    return batch_adapter.BatchAdapter


def test_each_batch_is_one_rollout_call_and_each_row_reaches_its_item(
    cli, tmp_path: Path, adapter
) -> None:
    run = tmp_path / "run"
    r = cli(
        "train", "--env", "batch_adapter:BatchAdapter", "--skill-text", "Answer the question.",
        "--mode", "document", "--out", str(run), "--backend", "simulated", "--epochs", "1",
        "--steps-per-epoch", "1", "--batch-size", "6", "--k", "2",
        "--seed", "1", "--json",
    )  # fmt: skip
    assert r.code == 0, r.err
    calls = [set(c) for c in adapter.batches]
    assert all(len(c) == len(ids) for c, ids in zip(calls, adapter.batches, strict=True))
    (unit,) = (run / "units").glob("*-e1-s1")
    step = [x for x in _lines(unit / "rollouts.jsonl") if x["phase"] == "batch"]
    batch = {x["task_id"] for x in step}
    assert (len(batch), len(step)) == (6, 12)
    assert calls.count(batch) == 2  # the step's batch: one call per sample (K = 2), not twelve
    items = _items()
    val = {i for i, x in items.items() if x["split"] == "val"}
    test = {i for i, x in items.items() if x["split"] == "test"}
    assert calls.count(val) >= 2 and calls.count(test) >= 2  # a split is one batch per sample
    assert sum(map(len, calls)) > 3 * len(calls)  # far fewer calls than rollouts
    # the adapter returned its rows as its threads finished them: each reached its own item
    tested = _lines(run / "test_baseline.jsonl")
    assert all(_answers_its_item(x, items) for x in step + tested)


class Slow:
    """The simulated backend, each answer taking a moment, counting the calls at once."""

    def __init__(self) -> None:
        self.sim, self.name, self.model = SimulatedBackend(), "slow", "slow"
        self.now = self.peak = self.calls = 0

    async def complete(self, request: Request) -> Completion:
        self.now, self.calls = self.now + 1, self.calls + 1
        self.peak = max(self.peak, self.now)
        try:
            await asyncio.sleep(0.01)
            return await self.sim.complete(request)
        finally:
            self.now -= 1

    async def check(self) -> Health:
        return Health(True, "slow")


def _train(tmp_path: Path, target: Slow, budget: BudgetSettings | None = None):  # type: ignore[no-untyped-def]
    config = TrainConfig(
        epochs=1, steps_per_epoch=1, batch_size=6, k=2, concurrency=3, mode="document", seed=1
    )
    return train(
        None, None, tmp_path / "run", target=target, optimizer=SimulatedBackend(),
        config=config, env=load_env("batch_adapter:BatchAdapter"), skill_text="Answer.",
        budget=budget,
    )  # fmt: skip


def test_the_concurrency_limit_holds_the_adapters_own_threads(tmp_path: Path, adapter) -> None:
    target = Slow()
    result = _train(tmp_path, target)
    assert not result.summary.stopped
    assert target.peak == 3  # sixteen threads of the adapter, three model calls at once


def test_the_budget_stops_a_batch_cleanly_before_it_spends_more(tmp_path: Path, adapter) -> None:
    target = Slow()
    budget = BudgetSettings(max_calls=20, max_tokens=None, max_cost_usd=None)
    result = _train(tmp_path, target, budget)
    assert result.summary.stopped_by == "budget"
    assert target.calls <= 20
    assert "budget" in result.summary.stopped
