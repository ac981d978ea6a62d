"""What a run trains is what the model sees; the seeds' knobs (gate metric, failure_only, their
names); stratified batches; per-step skills and the test rollouts in the run directory."""

from __future__ import annotations

import json
import random
from pathlib import Path

from bench.worlds.partial_credit import SKILL as NOTE_SKILL
from bench.worlds.partial_credit import PartialCreditBackend, items, parts_in
from skillopt_sleep import TrainConfig, train
from skillopt_sleep.backends.base import Completion, Health, Request
from skillopt_sleep.backends.simulated import SimulatedBackend
from skillopt_sleep.envs.seed_items import NOW
from skillopt_sleep.evidence.exact import Stratum, stratified_p
from skillopt_sleep.harvest.hand_written import Defaults, make_record
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.rollouts.replay import Rollout
from skillopt_sleep.sample.train_sets import write_jsonl
from skillopt_sleep.train.batches import stratified, task_type
from skillopt_sleep.train.metric import as_pass

from .conftest import UNLIMITED

SAMPLE = Path(__file__).resolve().parents[2] / "skillopt_sleep" / "sample"
QA_SKILL = "Answer the user's question.\n"


class Recording:
    """The simulated backend, with every target request's system prompt kept."""

    name, model = "simulated", "sim"

    def __init__(self) -> None:
        self.inner, self.systems = SimulatedBackend(), []  # type: ignore[var-annotated]

    async def complete(self, request: Request) -> Completion:
        if request.role == "target":
            self.systems.append(request.system)
        return await self.inner.complete(request)

    async def check(self) -> Health:
        return await self.inner.check()


def test_a_qa_skill_given_as_text_is_the_whole_system_prompt_and_is_learned(
    tmp_path: Path,
) -> None:
    backend = Recording()
    result = train(
        SAMPLE / "qa.jsonl",
        None,
        tmp_path / "run",
        skill_text=QA_SKILL,  # no frontmatter, rules mode
        target=backend,
        config=TrainConfig(env="qa", epochs=1, steps_per_epoch=3, seed=1),
        budget=UNLIMITED,
    )
    assert backend.systems and all(s.startswith(QA_SKILL) for s in backend.systems)
    assert not any("coding agent" in s or "# Skill (SKILL.md)" in s for s in backend.systems)
    assert result.summary.accepted_edits
    best = result.summary.best.test_hard or 0.0
    assert best > (result.summary.baseline.test_hard or 0.0) + 0.3
    assert result.best_skill.startswith(QA_SKILL) and "---" not in result.best_skill
    assert result.best_skill in backend.systems  # the trained text is what the model saw


def test_frame_agent_keeps_the_nights_framing(tmp_path: Path) -> None:
    backend = Recording()
    train(
        SAMPLE / "qa.jsonl",
        None,
        tmp_path / "run",
        skill_text=QA_SKILL,
        target=backend,
        config=TrainConfig(env="qa", epochs=1, steps_per_epoch=1, seed=1, frame="agent"),
        budget=UNLIMITED,
    )
    assert all(s.startswith("You are a coding agent") for s in backend.systems)


def _notes(tmp_path: Path, metric: str) -> tuple[dict[str, bool], float, float]:
    data = write_jsonl(tmp_path / f"notes-{metric}.jsonl", items(20))
    r = train(
        data,
        None,
        tmp_path / f"run-{metric}",
        skill_text=NOTE_SKILL,
        target=PartialCreditBackend(),
        config=TrainConfig(epochs=2, steps_per_epoch=3, seed=1, gate_metric=metric),  # type: ignore[arg-type]
        budget=UNLIMITED,
    )
    s = r.summary
    return parts_in(r.best_skill), s.baseline.test_hard or 0.0, s.best.test_hard or 0.0


def test_a_rule_seen_only_in_partial_credit_is_learned_on_soft_scores_not_on_passes(
    tmp_path: Path,
) -> None:
    hard_rules, hard_before, hard_after = _notes(tmp_path, "hard")
    soft_rules, _, soft_after = _notes(tmp_path, "soft")
    assert not any(hard_rules.values()) and hard_after == hard_before == 0.0
    assert all(soft_rules.values()) and soft_after >= 0.5


def test_rounding_a_score_to_a_pass_keeps_the_exact_test_valid_under_the_null() -> None:
    """Scores with the same mean before and after (different laws): the stratified exact test on
    the drawn passes rejects at most alpha of the time."""
    config = TrainConfig(gate_metric="soft", seed=3)
    rng = random.Random(7)
    alpha, trials, rejected = 0.05, 600, 0
    for trial in range(trials):
        strata = []
        for task in range(3):
            before = [rng.choice((0.0, 1.0)) for _ in range(8)]  # mean 0.5, all or nothing
            after = [0.5] * 8  # mean 0.5, always half
            b = [
                as_pass(config, Rollout(f"t{task}", i, "", x), f"b{trial}")
                for i, x in enumerate(before)
            ]
            a = [
                as_pass(config, Rollout(f"t{task}", i, "", x), f"a{trial}")
                for i, x in enumerate(after)
            ]
            strata.append(Stratum(sum(r.passed for r in b), 8, sum(r.passed for r in a), 8))
        rejected += stratified_p(strata, "greater") <= alpha
    assert rejected / trials <= alpha + 0.02


def test_under_the_hard_metric_a_rollout_passes_as_judged() -> None:
    r = Rollout("t", 0, "", 0.9, passed=False)
    assert as_pass(TrainConfig(), r, "x") is r
    assert as_pass(TrainConfig(gate_metric="soft"), Rollout("t", 0, "", 1.0), "x").passed
    assert not as_pass(TrainConfig(gate_metric="soft"), Rollout("t", 0, "", 0.0, True), "x").passed


def test_a_batch_holds_every_type_of_the_set() -> None:
    def record(i: int, kind: str) -> TaskRecord:
        fields = {"id": f"{kind}-{i}", "intent": f"question {i}", "tags": [f"type:{kind}"]}
        return make_record(fields, Defaults(project="/", now=NOW, source="import"))

    records = [record(i, "common") for i in range(20)] + [record(0, "rare")]
    for seed in range(20):
        batch = stratified(records, 4, random.Random(seed))
        assert len(batch) == 4 and {task_type(t) for t in batch} == {"common", "rare"}


def test_failure_only_shows_no_success_and_the_run_directory_keeps_each_skill_and_test_rollouts(
    tmp_path: Path,
) -> None:
    result = train(
        SAMPLE / "qa.jsonl",
        None,
        tmp_path / "run",
        skill_text=QA_SKILL,
        target=SimulatedBackend(),
        config=TrainConfig.model_validate(
            {"env": "qa", "num_epochs": 1, "steps_per_epoch": 2, "seed": 1, "failure_only": True}
        ),
        budget=UNLIMITED,
    )
    run = Path(result.run_dir)
    units = sorted(p for p in (run / "units").iterdir() if p.is_dir())
    tags = [c.get("tag") for u in units for c in json.loads((u / "reflections.json").read_text())]
    assert tags and "reflect-success" not in tags
    assert (units[-1] / "skill.md").read_text() == result.current_skill
    base = [json.loads(line) for line in (run / "test_baseline.jsonl").read_text().splitlines()]
    assert base and {r["phase"] for r in base} == {"test-baseline"}
    if result.best_skill != result.initial_skill:
        assert (run / "test_best.jsonl").is_file()
    config = json.loads((run / "config.json").read_text())
    assert config["epochs"] == 1 and config["failure_only"] is True
