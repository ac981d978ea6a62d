"""A seed user's run directory and gate names: what skillrl's trainer writes and exports, through
``skillopt_sleep.compat`` with only the import line changed, offline."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from skillopt_sleep import TrainConfig, train
from skillopt_sleep.backends.simulated import SimulatedBackend
from skillopt_sleep.compat import (
    BackendClient,
    GateResult,
    RolloutResult,
    SimpleQAEnv,
    SkillEnv,
    SkillOptConfig,
    SkillOptTrainer,
    evaluate_gate,
    select_gate_score,
)
from skillopt_sleep.envs.seed_envs import wrap
from skillopt_sleep.errors import ConfigError
from skillopt_sleep.models import Edit
from skillopt_sleep.train.gate import GateOutcome
from skillopt_sleep.train.step_gate import StepInput

HERE = Path(__file__).parent
INITIAL = "You are a concise QA assistant. Answer in one short phrase."
TRAIN = [
    {"id": "1", "question": "Capital of France?", "answers": ["Paris"]},
    {"id": "2", "question": "Largest ocean on Earth?", "answers": ["Pacific Ocean", "Pacific"]},
]
VAL = [{"id": "v1", "question": "Capital of Japan?", "answers": ["Tokyo"]}]
TEST = [{"id": "t1", "question": "Capital of Italy?", "answers": ["Rome"]}]


def run(tmp_path: Path, **given: object) -> tuple[Path, dict[str, object]]:
    out = tmp_path / "qa_demo"
    cfg = SkillOptConfig(
        num_epochs=2, batch_size=8, minibatch_size=4, out_root=str(out), verbose=False, **given
    )  # type: ignore[arg-type]
    env = SimpleQAEnv(train_items=TRAIN, val_items=VAL, test_items=TEST)
    trainer = SkillOptTrainer(
        config=cfg,
        env=env,
        optimizer_client=BackendClient(SimulatedBackend(), role="optimizer"),
        target_client=BackendClient(SimulatedBackend()),
        initial_skill=INITIAL,
    )
    return out, trainer.train()


def test_save_every_step_writes_skillrl_skill_snapshots(tmp_path: Path) -> None:
    out, _ = run(tmp_path)
    snaps = sorted(p.name for p in (out / "skills").iterdir())
    assert snaps == ["skill_v0000.md", "skill_v0001.md", "skill_v0002.md"]  # 2 epochs x 1 step
    assert (out / "skills" / "skill_v0000.md").read_text() == INITIAL
    (step2,) = (out / "units").glob("*-e2-s2")  # the skill after the run's second step
    assert (out / "skills" / "skill_v0002.md").read_text() == (step2 / "skill.md").read_text()


def test_each_step_records_its_candidate_and_the_seeds_apply_report(tmp_path: Path) -> None:
    out, _ = run(tmp_path)
    steps = sorted((out / "units").iterdir())  # steps and slow updates alike, as in SkillOpt
    assert len(steps) == 4
    keys = {"index", "op", "target", "content_preview", "status"}
    statuses = set()
    for step in steps:
        candidate = (step / "candidate_skill.md").read_text()
        assert candidate.startswith(INITIAL)
        report = json.loads((step / "edit_apply_report.json").read_text())
        assert [e["index"] for e in report] == list(range(1, len(report) + 1))
        for entry in report:
            assert keys <= set(entry)
            statuses.add(entry["status"])
            if entry["status"] == "applied":
                assert entry["content_preview"] in (step / "skill.md").read_text()
            if entry["status"] != "applied":
                assert entry["error"]
            if entry["status"] in ("applied", "skipped_gate"):
                assert entry["content_preview"] in candidate  # it was before the gate
    assert statuses and statuses <= {
        "applied",
        "skipped_refused",
        "skipped_gate",
        "skipped_untested",
    }


def test_save_every_step_off_writes_no_snapshot(tmp_path: Path) -> None:
    out, _ = run(tmp_path, save_every_step=False)
    assert (out / "best_skill.md").is_file()
    assert not (out / "skills").exists()


def test_eval_test_off_skips_the_test_report(tmp_path: Path) -> None:
    out, summary = run(tmp_path, eval_test=False)
    assert (summary["test_hard"], summary["baseline_test_hard"]) == (None, None)
    assert (out / "test_baseline.jsonl").read_text() == ""  # no test item was replayed
    on, summary_on = run(tmp_path / "on")
    assert summary_on["test_hard"] is not None
    assert "Capital of Italy?" in (on / "test_baseline.jsonl").read_text()


def test_select_gate_score_is_the_runs_gate_metric() -> None:
    assert select_gate_score(1.0, 0.4) == 1.0
    assert select_gate_score(1.0, 0.4, "soft") == 0.4
    assert select_gate_score(1.0, 0.5, "mixed", 0.25) == pytest.approx(0.875)
    assert select_gate_score(0.0, 1.0, "mixed", 7.0) == 1.0  # the weight clamped, as the seeds do
    with pytest.raises(ConfigError, match="unknown gate metric 'f1'"):
        select_gate_score(1.0, 1.0, "f1")


def test_evaluate_gate_decides_as_the_seeds_do() -> None:
    new_best = evaluate_gate("cand", 0.9, "cur", 0.5, "best", 0.8, 3, 7)
    assert new_best == GateResult("accept_new_best", "cand", 0.9, "cand", 0.9, 7)
    accept = evaluate_gate("cand", 0.0, "cur", 0.5, "best", 0.8, 3, 7, cand_soft=0.6, metric="soft")
    assert accept == GateResult("accept", "cand", 0.6, "best", 0.8, 3)
    tie = evaluate_gate("cand", 0.5, "cur", 0.5, "best", 0.8, 3, 7)
    assert tie == GateResult("reject", "cur", 0.5, "best", 0.8, 3)


def test_a_step_that_makes_a_new_skill_records_its_selection_eval(
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
    seen, evaluated = {skill.read_text()}, 0
    for unit in sorted((tmp_path / "run" / "units").iterdir()):
        text, sel = (unit / "skill.md").read_text(), unit / "selection_eval"
        assert sel.is_dir() == (text not in seen)  # a skill scored before is not replayed again
        if sel.is_dir():
            evaluated += 1
            results = json.loads((sel / "results.json").read_text())
            summary = json.loads((sel / "summary.json").read_text())
            assert summary["n"] == len(results) > 0 and 0 <= summary["hard"] <= 1
        seen.add(text)
    assert evaluated >= 1  # the adapter's run learns: some step makes a new skill


class MarkedEnv(SkillEnv):
    """An item passes when the skill holds GOOD and not BAD (no model call is needed)."""

    name = "marked"

    def get_items(self, split: str) -> list[dict[str, object]]:
        return [{"id": f"{split}{i}", "question": f"q{i}"} for i in range(2)]

    def rollout_one(self, *, item, skill, target_client):  # type: ignore[no-untyped-def]
        hard = int("GOOD" in skill and "BAD" not in skill)
        return RolloutResult(id=str(item["id"]), hard=hard, soft=float(hard))


@dataclass
class AddsLines:
    """A gate that applies one scripted line a step, proven or not."""

    lines: list[str]
    name: str = "scripted"
    remembers: bool = False

    async def decide(self, step: StepInput) -> GateOutcome:
        line = self.lines.pop(0)
        edit = Edit(target="skill", op="add", content=line)
        return GateOutcome(step.guard.skill.rstrip("\n") + "\n" + line + "\n", [edit], tested=1)

    def fresh_rollouts(self, config: object, val: int, shown: bool) -> float | None:
        return None


def test_the_run_records_its_baseline_and_final_selection_evals(tmp_path: Path) -> None:
    config = TrainConfig(
        epochs=1, steps_per_epoch=2, k=1, mode="document", slow_update=False, meta_skill=False
    )
    out = tmp_path / "run"
    result = train(
        None, None, out, target=SimulatedBackend(), config=config, env=wrap(MarkedEnv()),
        skill_text="Answer.", gate=AddsLines(["GOOD", "BAD"]),
    )  # fmt: skip
    assert result.best_skill == "Answer.\nGOOD\n" and result.current_skill.endswith("BAD\n")
    base = out / "baseline_selection_eval"
    assert json.loads((base / "summary.json").read_text()) == {"hard": 0.0, "soft": 0.0, "n": 4}
    assert len(json.loads((base / "results.json").read_text())) == 4  # 2 items x val_k 2
    final = out / "final_selection_eval"  # the run ended on a skill worse than its best
    (last,) = (out / "units").glob("*-e1-s2")
    for name in ("results.json", "summary.json"):
        assert (final / name).read_text() == (last / "selection_eval" / name).read_text()
    assert json.loads((final / "summary.json").read_text())["hard"] == 0.0


def test_a_run_that_ends_on_its_best_skill_has_no_final_selection_eval(tmp_path: Path) -> None:
    out, _ = run(tmp_path)
    assert (out / "baseline_selection_eval" / "results.json").is_file()
    assert (out / "best.md").read_text() == (out / "current.md").read_text()
    assert not (out / "final_selection_eval").exists()
