"""Is ``run --estimate`` honest? Its prediction against what each night of the learning world spent.

Usage::

    python bench/estimate.py              # 10 seeds x 5 nights x 10 new tasks a night
    python bench/estimate.py --json       # one JSON object, a row per night
    python bench/estimate.py --allocation classic   # the gate's older way of spending rollouts

For every night of every simulated user (:class:`~worlds.preference_world.PreferenceWorld`,
as in ``bench/learning.py``, ``night.auto_adopt`` on), the estimate is made the way ``skillopt-sleep
run --estimate`` makes it, then the night runs and its summary's calls are the actual. Printed: per
night the expected calls, the bound and the actual; over all nights, expected / actual (the goal:
within 25% of 1) and night by night the mean of |expected - actual| / actual (wide: what the
optimizer proposes varies from night to night); and whether the bound was ever below the actual
(the goal: never). The baseline
in the same run is the estimate as it was made before: every test to its full course
(``EvidencePolicy.planned_rollouts``), against the same nights.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from worlds.preference_world import PreferenceWorld
from worlds.seed_home import seed_home

from skillopt_sleep.clock import FixedClock
from skillopt_sleep.night.evidence import EvidencePolicy
from skillopt_sleep.night.evidence.allocation import Name as AllocationName
from skillopt_sleep.night.project import Backends, estimate_project_night, run_project_night
from skillopt_sleep.settings import NightSettings, Settings

GOAL = 0.25


def nights_of(
    seed: int, nights: int, tasks: int, workdir: Path, allocation: AllocationName
) -> list[dict[str, Any]]:
    """Each night of user ``seed``: the estimate (expected, bound, the old plan) and the actual calls."""
    world = PreferenceWorld(seed)
    project, paths, store = seed_home(workdir, seed)
    settings = Settings(night=NightSettings(auto_adopt=True, allocation=allocation))
    backends = Backends(world, world, world)
    rows = []
    try:
        for night in range(nights):
            clock = FixedClock(world.night_time(night))
            store.upsert_tasks(world.tasks(night, tasks, project=str(project)), clock.now())
            est = estimate_project_night(
                project=project, settings=settings, store=store, backends=backends
            )
            tonight = tasks + min(
                settings.night.recall, tasks * night
            )  # new tasks and the recalled ones
            old = est.calls - round(est.gate_expected) + _old_plan(settings, tonight)
            summary = run_project_night(
                project=project,
                settings=settings,
                store=store,
                paths=paths,
                backends=backends,
                clock=clock,
            ).summary
            rows.append(
                {
                    "seed": seed,
                    "night": night + 1,
                    "expected": est.calls,
                    "bound": est.calls_bound,
                    "old_estimate": old,
                    "actual": summary.calls,
                    "gate_expected": est.gate_expected,
                    "gate_actual": sum(summary.gate_rollouts.values()),
                }
            )
    finally:
        store.close()
        shutil.rmtree(project.parent, ignore_errors=True)
    return rows


def _old_plan(settings: Settings, tasks: int) -> int:
    """The gate's share of the estimate as it was made before: every test to its full course."""
    budget = max(1, settings.night.edit_budget)
    return EvidencePolicy.from_settings(settings.night).planned_rollouts(tasks, budget + 1, budget)


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    def error(key: str) -> float:
        return statistics.fmean(
            abs(r[key] - r["actual"]) / r["actual"] for r in rows if r["actual"]
        )

    bias = sum(r["expected"] for r in rows) / sum(r["actual"] for r in rows)
    return {
        "nights": len(rows),
        "mean_abs_error": round(error("expected"), 3),
        "mean_abs_error_old": round(error("old_estimate"), 3),
        "mean_expected": statistics.fmean(r["expected"] for r in rows),
        "mean_actual": statistics.fmean(r["actual"] for r in rows),
        "mean_old_estimate": statistics.fmean(r["old_estimate"] for r in rows),
        "bound_below_actual": sum(r["bound"] < r["actual"] for r in rows),
        "mean_bound": statistics.fmean(r["bound"] for r in rows),
        "goal": GOAL,
        "goal_met": abs(bias - 1) <= GOAL and all(r["bound"] >= r["actual"] for r in rows),
        "expected_over_actual": round(bias, 3),
        "old_over_actual": round(
            sum(r["old_estimate"] for r in rows) / sum(r["actual"] for r in rows), 3
        ),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--nights", type=int, default=5)
    parser.add_argument("--tasks", type=int, default=10, help="new tasks a night")
    parser.add_argument("--allocation", choices=("lean", "classic"), default="lean")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp") / "skillopt-sleep-estimate")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if min(args.seeds, args.nights, args.tasks) < 1:
        parser.error("--seeds, --nights and --tasks must be at least 1")
    rows = [
        row
        for seed in range(args.seeds)
        for row in nights_of(seed, args.nights, args.tasks, args.workdir.resolve(), args.allocation)
    ]
    result = {"allocation": args.allocation, **summarise(rows), "rows": rows}
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print(
            f"estimate against actual: {result['nights']} nights ({args.seeds} users x {args.nights}), "
            f"allocation {args.allocation}"
        )
        for r in rows:
            print(
                f"  seed {r['seed']} night {r['night']}: expected {r['expected']:>4}, bound {r['bound']:>5}, "
                f"actual {r['actual']:>4}   (old estimate {r['old_estimate']})"
            )
        print(
            f"  expected / actual over all nights: {result['expected_over_actual']:.3f} (goal: within "
            f"{GOAL:.0%} of 1); the old estimate: {result['old_over_actual']:.3f}"
        )
        print(
            f"  night by night, mean |expected - actual| / actual: {result['mean_abs_error']:.3f} "
            f"(old estimate: {result['mean_abs_error_old']:.3f}); what the optimizer proposes varies"
        )
        print(
            f"  bound below actual on {result['bound_below_actual']} of {result['nights']} nights (goal: 0)"
        )
    return 0 if result["goal_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
