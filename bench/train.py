"""Does training learn planted rules, accept nothing where no rule helps, and resume after kill -9?

Usage::

    python -m bench.train --json              # everything below, one JSON object
    python -m bench.train --null-seeds 20     # (b) and (c) over 20 seeded runs (the default)
    python -m bench.train --quick             # fewer seeds, a quick look

All on the simulated backend (``skillopt_sleep/sample/train_sets.py`` has the task sets):

(a) *planted*: five recurring preferences, each scored by its check; the simulated optimizer
    proposes their rules when the attempts it is shown reveal them, and sometimes a useless or
    a harmful rule. Per seed: the best skill's test pass rate against the initial one (paired 95%
    interval), and which planted rules the best skill holds.
(b) *null*: requests scored by type hints, replayed by an agent a rule cannot move (it follows
    one at the base rate): every accepted edit is a false accept. Over ``--null-seeds`` runs:
    runs with any accepted edit, against the run's stated error rate ``alpha``.
(c) the same sets under the older gate, "the validation mean went up" (``gate="mean"``): false
    accepts and test gain side by side; the ratio of false-accept rates is printed.
(d) a run killed with SIGKILL in the middle of a step (from inside a rollout), started again,
    must end with a ``summary.json`` byte-identical to an uninterrupted run with the same seed.
(e) ``train --estimate`` against each run's calls: the estimate / actual ratio per run.
(f) *partial credit* (``bench/worlds/partial_credit.py``): release notes that pass only with both
    planted rules, so one rule alone shows in the soft score and in no pass. Per gate metric
    (hard, mixed at 0.5, soft; mixed also with the older soft test, passes drawn from the scores:
    ``mixed-drawn``) and seed: the planted rules the best skill holds, test pass rates.
(g) *QA without a preamble*: the shipped QA set trained from a one-line skill given as text, no
    frontmatter, through ``--env qa``: every target request's system prompt is checked to be the
    skill itself (no coding-agent preamble), and the test pass rates before and after.

``--only partial,qa`` runs just those parts.

*merge* (``bench/worlds/paraphrases.py``): 26 wordings of 12 rules, each its own patch (some rules
said several ways, some alike in words and other in meaning), merged by word overlap and by the
model stage (``merge_batch_size`` 8): merges found and wrong merges over pairs of wordings. The
model is the simulated backend's reader of edits (a synonym table), not a real model: the
numbers show the stage carrying a model's groups and the word overlap's misses. A model whose
replies are unusable is run too, and must equal the word overlap (the fallback).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

from bench.train_gates import DRAWN, GATES
from bench.worlds import paraphrases
from bench.worlds import partial_credit as notes
from skillopt_sleep import TrainConfig, train
from skillopt_sleep.backends.simulated import SimulatedBackend
from skillopt_sleep.sample.train_sets import (
    SKILL,
    null_backend,
    null_items,
    planted_items,
    planted_rules_in,
    with_splits,
    write_jsonl,
)
from skillopt_sleep.settings import BudgetSettings
from skillopt_sleep.testing import kill_train
from skillopt_sleep.train.config import GateMetric
from skillopt_sleep.train.data import load_task_set
from skillopt_sleep.train.estimate import estimate_train
from skillopt_sleep.train.step_gate import StepGate

UNLIMITED = BudgetSettings(max_calls=None, max_tokens=None, max_cost_usd=None)
SoftTest = Literal["permutation", "drawn"]  # drawn: the bench gate DRAWN


def planted(root: Path, seeds: int, gate: str) -> dict[str, Any]:
    data = write_jsonl(root / "planted.jsonl", with_splits(planted_items(12), (3, 2, 5), 0))
    runs: list[dict[str, Any]] = []
    for seed in range(1, seeds + 1):
        cfg = TrainConfig(epochs=2, steps_per_epoch=3, seed=seed)
        r = train(
            data,
            root / "SKILL.md",
            root / f"planted-{gate}-{seed}",
            target=SimulatedBackend(),
            config=cfg,
            budget=UNLIMITED,
            gate=GATES[gate],
        )
        s, g = r.summary, r.summary.gain_hard
        rules = planted_rules_in(r.best_skill)
        runs.append(
            {
                "seed": seed,
                "initial": s.baseline.test_hard,
                "best": s.best.test_hard,
                "gain": g.mean if g else None,
                "ci": [g.ci_low, g.ci_high] if g else None,
                "p": g.p_value if g else None,
                "ci_excludes_0": bool(g and g.ci_low > 0),
                "rules_recovered": sum(rules.values()),
                "rules_planted": len(rules),
                "accepted": len(s.accepted_edits),
                "calls": s.usage.calls,
                "estimated_calls": _estimate(data, cfg, GATES[gate]),
            }
        )
    return {
        "runs": runs,
        "estimate_over_actual": _ratios(runs),
        "all_ci_exclude_0": all(r["ci_excludes_0"] for r in runs),
        "mean_gain": _mean([r["gain"] for r in runs]),
        "rules_recovered": f"{sum(r['rules_recovered'] for r in runs)}/{sum(r['rules_planted'] for r in runs)}",
    }


def null(root: Path, seeds: int, gate: str, alpha: float) -> dict[str, Any]:
    data = write_jsonl(root / "null.jsonl", with_splits(null_items(30), (1, 1, 1), 0))
    accepted, runs_with, gains, tested, calls = 0, 0, [], 0, []
    for seed in range(1, seeds + 1):
        cfg = TrainConfig(epochs=2, steps_per_epoch=3, seed=seed, run_alpha=alpha)
        r = train(
            data,
            root / "SKILL.md",
            root / f"null-{gate}-{seed}",
            target=null_backend(),
            config=cfg,
            budget=UNLIMITED,
            gate=GATES[gate],
        )
        n = len(r.summary.accepted_edits)
        accepted += n
        runs_with += n > 0
        tested += sum(h.tested for h in r.history)
        calls.append(
            {"calls": r.summary.usage.calls, "estimated_calls": _estimate(data, cfg, GATES[gate])}
        )
        gains.append(r.summary.gain_hard.mean if r.summary.gain_hard else 0.0)
    return {
        "runs": seeds,
        "edits_tested": tested,
        "edits_accepted": accepted,
        "runs_with_a_false_accept": runs_with,
        "false_accept_run_rate": runs_with / seeds,
        "stated_error_rate": alpha,
        "within_error_rate": runs_with / seeds <= alpha,
        "mean_test_gain": _mean(gains),
        "estimate_over_actual": _ratios(calls),
    }


# (label, metric, mixed weight, soft test): "mixed-drawn" is the soft test before the scores'
# permutation test, a pass drawn with probability equal to each score, kept to compare with
METRICS: tuple[tuple[str, GateMetric, float, SoftTest], ...] = (
    ("hard", "hard", 0.5, "permutation"),
    ("mixed-drawn", "mixed", 0.5, "drawn"),
    ("mixed", "mixed", 0.5, "permutation"),
    ("soft", "soft", 0.5, "permutation"),
)


def partial_credit(root: Path, seeds: int) -> dict[str, Any]:
    data = write_jsonl(root / "notes.jsonl", notes.items(20))
    out: dict[str, Any] = {}
    for label, metric, weight, test in METRICS:
        runs: list[dict[str, Any]] = []
        for seed in range(1, seeds + 1):
            cfg = TrainConfig(
                epochs=2,
                steps_per_epoch=3,
                seed=seed,
                gate_metric=metric,
                gate_mixed_weight=weight,
            )
            r = train(
                data,
                None,
                root / f"notes-{label}-{seed}",
                skill_text=notes.SKILL,
                target=notes.PartialCreditBackend(),
                config=cfg,
                budget=UNLIMITED,
                gate=DRAWN if test == "drawn" else None,
            )
            held = notes.parts_in(r.best_skill)
            runs.append(
                {
                    "seed": seed,
                    "rules_learned": sum(held.values()),
                    "rules_planted": len(held),
                    "test_hard": [r.summary.baseline.test_hard, r.summary.best.test_hard],
                    "test_soft": [r.summary.baseline.test_soft, r.summary.best.test_soft],
                }
            )
        out[label] = {
            "runs": runs,
            "rules_learned": f"{sum(x['rules_learned'] for x in runs)}/{sum(x['rules_planted'] for x in runs)}",
            "mixed_weight": weight if metric == "mixed" else None,
            "soft_test": test if metric != "hard" else None,
        }
    return out


class _Recording:
    """The simulated backend, every target request's system prompt kept."""

    name, model = "simulated", "sim"

    def __init__(self) -> None:
        self.inner, self.systems = SimulatedBackend(), []  # type: ignore[var-annotated]

    async def complete(self, request: Any) -> Any:
        if request.role == "target":
            self.systems.append(request.system)
        return await self.inner.complete(request)

    async def check(self) -> Any:
        return await self.inner.check()


def qa_no_preamble(root: Path, seeds: int) -> dict[str, Any]:
    qa = Path(__file__).resolve().parent.parent / "skillopt_sleep" / "sample" / "qa.jsonl"
    skill = "Answer the user's question.\n"
    runs = []
    for seed in range(1, seeds + 1):
        backend = _Recording()
        r = train(
            qa,
            None,
            root / f"qa-{seed}",
            skill_text=skill,
            target=backend,
            config=TrainConfig(env="qa", epochs=2, steps_per_epoch=2, seed=seed),
            budget=UNLIMITED,
        )
        runs.append(
            {
                "seed": seed,
                "target_requests": len(backend.systems),
                "system_prompt_is_the_skill": all(s.startswith(skill) for s in backend.systems)
                and r.best_skill in backend.systems,
                "agent_preamble_seen": any("coding agent" in s for s in backend.systems),
                "test_hard": [r.summary.baseline.test_hard, r.summary.best.test_hard],
                "accepted": [e.content for e in r.summary.accepted_edits],
            }
        )
    return {"runs": runs, "skill": skill}


def kill_resume(root: Path) -> dict[str, Any]:
    data = write_jsonl(root / "kill.jsonl", with_splits(planted_items(8), (3, 2, 3), 0))
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))

    def run(out: str, mode: str) -> int:
        args = kill_train.argv(data, root / "SKILL.md", root / out, mode, every=40, seed=7)
        return subprocess.run(
            args, check=False, env=env, capture_output=True, timeout=600
        ).returncode

    whole = run("whole", "keep")
    killed = run("killed", "kill")
    state = json.loads((root / "killed" / "state.json").read_text())
    resumed = run("killed", "keep")
    same = (root / "whole" / "summary.json").read_bytes() == (
        root / "killed" / "summary.json"
    ).read_bytes()
    return {
        "uninterrupted_exit": whole,
        "killed_exit": killed,
        "units_finished_when_killed": state["unit"],
        "resumed_exit": resumed,
        "same_summary_json": same,
    }


def _estimate(data: Path, cfg: TrainConfig, gate: StepGate | None) -> int:
    tasks = load_task_set(data, split_ratio=cfg.split_ratio, seed=cfg.seed)
    skill = (data.parent / "SKILL.md").read_text()
    return estimate_train(
        cfg, tasks, skill, UNLIMITED, target_model="sim", optimizer_model="sim", gate=gate
    ).calls


def _ratios(runs: list[dict[str, Any]]) -> dict[str, float]:
    """``train --estimate`` over the calls each run made: lowest, mean and highest."""
    r = [x["estimated_calls"] / x["calls"] for x in runs if x["calls"]]
    return {"min": round(min(r), 3), "mean": round(sum(r) / len(r), 3), "max": round(max(r), 3)}


def _mean(xs: list[Any]) -> float | None:
    xs = [x for x in xs if x is not None]
    return round(sum(xs) / len(xs), 4) if xs else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--planted-seeds", type=int, default=3)
    ap.add_argument("--null-seeds", type=int, default=20)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--quick", action="store_true", help="1 planted seed, 5 null seeds")
    ap.add_argument("--partial-seeds", type=int, default=3)
    ap.add_argument("--only", metavar="PARTS", help="comma-separated: partial, qa")
    args = ap.parse_args()
    if args.quick:
        args.planted_seeds, args.null_seeds, args.partial_seeds = 1, 5, 1
    started = time.perf_counter()
    if args.only:
        with tempfile.TemporaryDirectory(prefix="bench-train-") as tmp:
            parts = set(args.only.split(","))
            some: dict[str, Any] = {}
            if "partial" in parts:
                some["partial_credit"] = partial_credit(Path(tmp), args.partial_seeds)
            if "qa" in parts:
                some["qa_no_preamble"] = qa_no_preamble(Path(tmp), args.partial_seeds)
        some["seconds"] = round(time.perf_counter() - started, 1)
        print(json.dumps(some, indent=2, sort_keys=True))
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-train-") as tmp:
        root = Path(tmp)
        (root / "SKILL.md").write_text(SKILL)
        out: dict[str, Any] = {"planted": {}, "null": {}}
        for gate in GATES:
            out["planted"][gate] = planted(root, args.planted_seeds, gate)
            out["null"][gate] = null(root, args.null_seeds, gate, args.alpha)
        out["kill_resume"] = kill_resume(root)
        out["merge"] = paraphrases.compare()
        out["partial_credit"] = partial_credit(root, args.partial_seeds)
        out["qa_no_preamble"] = qa_no_preamble(root, args.partial_seeds)
    ev, mean = out["null"]["evidence"], out["null"]["mean"]
    out["false_accept_rate_ratio_evidence_over_mean"] = (
        None
        if not mean["false_accept_run_rate"]
        else round(ev["false_accept_run_rate"] / mean["false_accept_run_rate"], 4)
    )
    out["seconds"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(out, indent=2, sort_keys=True))
        return 0
    for gate in GATES:
        p, n = out["planted"][gate], out["null"][gate]
        print(
            f"{gate:>8} gate: planted mean test gain {p['mean_gain']}, CI excludes 0 in every run: "
            f"{p['all_ci_exclude_0']}, rules recovered {p['rules_recovered']}; no-rule set: "
            f"{n['edits_accepted']} edits accepted in {n['runs_with_a_false_accept']}/{n['runs']} runs "
            f"(stated error rate {n['stated_error_rate']}),"
            f" mean test gain {n['mean_test_gain']}"
        )
        print(
            f"{gate:>8} gate: --estimate / calls made, planted {p['estimate_over_actual']}, "
            f"no-rule set {n['estimate_over_actual']}"
        )
    print(
        f"false-accept run rate, evidence / mean gate: {out['false_accept_rate_ratio_evidence_over_mean']}"
    )
    print(
        f"kill -9 mid-step and resume: same summary.json: {out['kill_resume']['same_summary_json']}"
    )
    m = out["merge"]
    print(
        f"merge of {m['wordings']} paraphrased patches, found / pairs (wrong): words "
        f"{m['lexical']['merges_found']}/{m['lexical']['merge_pairs']} "
        f"({m['lexical']['wrong_merges']}), simulated model {m['model']['merges_found']}/"
        f"{m['model']['merge_pairs']} ({m['model']['wrong_merges']}), unusable replies -> words "
        f"{m['unusable_model']['merges_found']}/{m['unusable_model']['merge_pairs']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
