"""Is ``run --estimate`` honest? Its prediction against what each night spent, small projects included.

Usage::

    python -m bench.estimate              # 6 users x 5 nights of every project size below
    python -m bench.estimate --json       # one JSON object, a row per night
    python -m bench.estimate --seeds 3 --projects 1x1,5x3   # a quick look: tasks x kinds
    python -m bench.estimate --first-seed 6   # users the estimator was never looked at on

For every night of every simulated user (:class:`~worlds.preference_world.PreferenceWorld`, as in
``bench/learning.py``, ``night.auto_adopt`` on) of every project size (new tasks a night, and the
kinds of preference they come in: one project corrects one thing, another a few), the estimate is
made the way ``skillopt-sleep run --estimate`` makes it, then the night runs and its summary is the
actual. The estimator as it was before (``bench/estimate_before/``, a frozen copy) estimates the
same nights, so one run prints the before and the after.

Printed, by project size and over all nights: the mean of |expected - actual| / actual of the
night's calls (the goal: at most 25%), of its tokens and of its money at a list price (the world's
answers are a line long where a model's run to hundreds of tokens: tokens and money are shown, the
calls are what the goal is on), the share of nights that cost more than the upper bound (the goal:
none: the bound is a promise), and the spread of the calls' error over the users. Over all nights
also the median error, the share of nights within 25%, and where the error comes from: a night is
bimodal (one that proves an edit pays for its harm check) and spread within each way, so the error
is split into the nights whose way the estimate bet wrong and the cost within the way, beside what
an oracle of each night's way would reach, what the estimate's mean would, what its rehearsals
themselves expect, and how well the way is predicted before the night. A night with
nothing to learn from (a one-task project whose task is held out) calls nothing: it counts as right
when the estimate says 0 too, and is left out of the means.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import statistics
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TypedDict

from bench.estimate_before.estimate import estimate_night as estimate_before
from bench.worlds.preference_kinds import KINDS, MODULES
from bench.worlds.preference_world import PreferenceWorld
from bench.worlds.seed_home import seed_home
from skillopt_sleep.clock import FixedClock
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.night.project import Backends, estimate_project_night, run_project_night
from skillopt_sleep.night.rehearsal import proved_any
from skillopt_sleep.optimize.seeds import NightSeeds
from skillopt_sleep.optimize.select import select_tasks
from skillopt_sleep.rules.workspace import load_workspace
from skillopt_sleep.settings import BudgetSettings, NightSettings, Price, Settings
from skillopt_sleep.store import Store

GOAL = 0.25
MODEL = "bench-model"
PRICE = Price(input=3.0, output=15.0)  # USD per million tokens: a mid-size model's list price


@dataclass(frozen=True)
class Project:
    """A project's size: new tasks a night, and how many kinds of preference they come in."""

    tasks: int
    kinds: int

    @property
    def name(self) -> str:
        return f"{self.tasks}x{self.kinds}"


# tiny projects (one or a few tasks a night, of one kind or a few), and the usual ten of all kinds
PROJECTS = tuple(
    Project(t, k) for t, k in ((1, 1), (2, 1), (2, 2), (3, 1), (3, 3), (5, 1), (5, 3), (10, 8))
)


class Row(TypedDict):
    project: str
    seed: int
    night: int
    expected: int
    bound: int
    before: int
    actual: int
    tokens_expected: int
    tokens: int
    cost_expected: float
    cost: float
    mean: int  # the estimate's mean calls (``expected`` is its single number for one night)
    miss: float  # how far the estimate expects ``expected`` to miss, |est - actual| / actual
    p_proven: float  # the estimate's chance that the night proves an edit
    if_proven: int | None  # its calls if one is proven, and if none is
    if_not: int | None
    proven: bool  # whether the night did


def project_tasks(
    world: PreferenceWorld, project: Project, night: int, where: str
) -> list[TaskRecord]:
    """The ``project.tasks`` tasks of day ``night``, each of one of the user's ``project.kinds``
    kinds (the same kinds every night), corrected as the world's own tasks are."""
    kinds = random.Random(f"kinds:{world.seed}").sample(KINDS, project.kinds)
    rng = random.Random(f"tasks:{world.seed}:{night}")
    out = []
    for i in range(project.tasks):
        kind = rng.choice(kinds)
        out.append(
            TaskRecord(
                source="claude-code",
                project=where,
                session_id=f"world-{world.seed}-{night}-{i}",
                turn=0,
                created_at=world.day(night) + timedelta(hours=9, minutes=30 * i),
                intent=rng.choice(kind.templates).format(module=rng.choice(MODULES)),
                attempt=kind.wrong,
                outcome="failure",
                feedback=kind.feedback,
                checks=[kind.check],
            )
        )
    return out


def nights_of(project: Project, seed: int, nights: int, workdir: Path) -> list[Row]:
    """Each night of user ``seed`` on a project of size ``project``: the estimates and the actual."""
    world = PreferenceWorld(seed, model=MODEL)
    where, paths, store = seed_home(workdir / project.name, seed)
    settings = Settings(
        night=NightSettings(auto_adopt=True), budget=BudgetSettings(prices={MODEL: PRICE})
    )
    backends = Backends(world, world, world)
    rows: list[Row] = []
    try:
        for night in range(nights):
            clock = FixedClock(world.night_time(night))
            store.upsert_tasks(project_tasks(world, project, night, str(where)), clock.now())
            est = estimate_project_night(
                project=where, settings=settings, store=store, backends=backends
            )
            before = _before(where, settings, store, backends)
            summary = run_project_night(
                project=where,
                settings=settings,
                store=store,
                paths=paths,
                backends=backends,
                clock=clock,
            ).summary
            rows.append(
                Row(
                    project=project.name,
                    seed=seed,
                    night=night + 1,
                    expected=est.calls,
                    bound=est.calls_bound,
                    before=before,
                    actual=summary.calls,
                    tokens_expected=est.input_tokens + est.output_tokens,
                    tokens=summary.tokens,
                    cost_expected=est.cost_usd or 0.0,
                    cost=sum(u.list_cost_usd for u in summary.usage_by_role.values()),
                    mean=est.calls_mean,
                    miss=est.calls_miss,
                    p_proven=est.p_proven,
                    if_proven=est.calls_if_proven,
                    if_not=est.calls_if_not,
                    proven=proved_any(summary.evidence),
                )
            )
    finally:
        store.close()
        shutil.rmtree(where.parent, ignore_errors=True)
    return rows


def _before(where: Path, settings: Settings, store: Store, backends: Backends) -> int:
    """The calls the estimator as it was before expects of tonight (as ``estimate_project_night``
    selects tonight's tasks)."""
    nights = [
        n
        for n in store.nights(project=str(where), limit=1000)
        if not n.summary.dry_run and n.summary.decision != "outage"
    ]
    last = datetime.fromisoformat(nights[0].started_at) if nights else None
    sel = select_tasks(
        store.list_tasks(project=str(where)),
        settings.night,
        NightSeeds.of(settings.night.seed, len(nights)).select,
        last,
    )
    ws = load_workspace(where, settings.files)
    return estimate_before(sel, ws, settings, backends.target, store, len(nights)).calls


def error(rows: Sequence[Row], key: str = "expected", actual: str = "actual") -> float | None:
    """Mean |estimate - actual| / actual over the nights that spent something."""
    spent = [r for r in rows if r[actual]]  # type: ignore[literal-required]
    if not spent:
        return None
    return round(
        statistics.fmean(
            abs(r[key] - r[actual]) / r[actual]  # type: ignore[literal-required]
            for r in spent
        ),
        3,
    )


def misses(rows: Sequence[Row], key: str = "expected") -> dict[str, float | None]:
    """The calls' |estimate - actual| / actual over the nights that spent: mean, median, and the
    share of nights within the goal."""
    each = [abs(r[key] - r["actual"]) / r["actual"] for r in rows if r["actual"]]  # type: ignore[literal-required]
    if not each:
        return {"mean": None, "median": None, "within": None}
    return {
        "mean": round(statistics.fmean(each), 3),
        "median": round(statistics.median(each), 3),
        "within": round(sum(e <= GOAL for e in each) / len(each), 3),
    }


def _way(row: Row, proven: bool) -> int:
    """The estimate's calls for a night that goes this way (the other way's if it saw none)."""
    calls = row["if_proven"] if proven else row["if_not"]
    other = row["if_not"] if proven else row["if_proven"]
    return calls if calls is not None else other if other is not None else row["expected"]


def _guess(row: Row) -> bool:
    """The way the estimate's single number bets on: the way whose calls it is nearer (by ratio)."""
    if row["if_proven"] is None or row["if_not"] is None:
        return row["if_proven"] is not None
    est = max(1, row["expected"])
    return abs(math.log(est / max(1, row["if_proven"]))) < abs(
        math.log(est / max(1, row["if_not"]))
    )


def decomposition(rows: Sequence[Row]) -> dict[str, object]:
    """Where the calls' error comes from: nights whose way (an edit proven or not) the estimate
    got wrong against the cost within the way, what an oracle of the way would reach, what the
    mean would, what the rehearsals themselves expect to miss; and how well the way is predicted
    from what the estimate sees before the night (its own chance, the last night's way)."""
    spent = [r for r in rows if r["actual"]]
    if not spent:
        return {}
    guessed = [_guess(r) for r in spent]
    wrong = [r for r, g in zip(spent, guessed, strict=True) if g != r["proven"]]
    oracle = [{**r, "oracle": _way(r, r["proven"])} for r in spent]
    last: dict[tuple[str, int], bool] = {}
    by_last = []
    for r in sorted(spent, key=lambda r: (r["project"], r["seed"], r["night"])):
        by_last.append(last.get((r["project"], r["seed"]), r["p_proven"] > 0.5) == r["proven"])
        last[(r["project"], r["seed"])] = r["proven"]
    n = len(spent)
    return {
        "proven_share": round(sum(r["proven"] for r in spent) / n, 3),
        "mean_of_way_wrong": round(
            sum(abs(r["expected"] - r["actual"]) / r["actual"] for r in wrong) / n, 3
        ),
        "mean_of_way_right": round(
            sum(
                abs(r["expected"] - r["actual"]) / r["actual"]
                for r, g in zip(spent, guessed, strict=True)
                if g == r["proven"]
            )
            / n,
            3,
        ),
        "way_oracle": misses(oracle, "oracle"),  # type: ignore[arg-type]
        "the_mean": misses(spent, "mean"),
        "rehearsals_expect": round(statistics.fmean(r["miss"] for r in spent), 3),
        "way_accuracy": {
            "estimate": round(1 - len(wrong) / n, 3),
            "chance_over_half": round(
                statistics.fmean((r["p_proven"] > 0.5) == r["proven"] for r in spent), 3
            ),
            "last_night": round(statistics.fmean(by_last), 3),
            "never_proven": round(1 - sum(r["proven"] for r in spent) / n, 3),
            "brier": round(statistics.fmean((r["p_proven"] - r["proven"]) ** 2 for r in spent), 3),
        },
    }


def summarise(rows: Sequence[Row]) -> dict[str, object]:
    """The errors of one set of nights, the old estimator's beside, and the bound's misses."""
    idle = [r for r in rows if not r["actual"]]
    calls = misses(rows)
    return {
        "nights": len(rows),
        "calls_error": calls["mean"],
        "calls_error_median": calls["median"],
        "calls_within_goal": calls["within"],
        "calls_error_before": error(rows, "before"),
        "tokens_error": error(rows, "tokens_expected", "tokens"),
        "cost_error": error(rows, "cost_expected", "cost"),
        "above_bound": sum(r["actual"] > r["bound"] for r in rows),
        "idle_nights": len(idle),
        "idle_estimated_zero": sum(r["expected"] == 0 for r in idle),
    }


def spread(rows: Sequence[Row]) -> dict[str, float]:
    """The calls' error user by user (over every project size): min, mean, max, sd."""
    per_seed = [
        e
        for s in sorted({r["seed"] for r in rows})
        if (e := error([r for r in rows if r["seed"] == s])) is not None
    ]
    return {
        "min": min(per_seed),
        "mean": round(statistics.fmean(per_seed), 3),
        "max": max(per_seed),
        "sd": round(statistics.pstdev(per_seed), 3),
    }


def _projects(text: str) -> tuple[Project, ...]:
    try:
        out = tuple(Project(*map(int, p.split("x"))) for p in text.split(","))
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(
            f"{text!r}: give TASKSxKINDS[,...], e.g. 1x1,5x3"
        ) from None
    if any(p.tasks < 1 or not 1 <= p.kinds <= len(KINDS) for p in out):
        raise argparse.ArgumentTypeError(f"{text!r}: at least 1 task, 1 to {len(KINDS)} kinds")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", type=int, default=6, help="users a project size")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--nights", type=int, default=5)
    parser.add_argument(
        "--projects", type=_projects, default=PROJECTS, help="TASKSxKINDS,... (tasks a night)"
    )
    parser.add_argument("--workdir", type=Path, default=Path("/tmp") / "skillopt-sleep-estimate")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if min(args.seeds, args.nights) < 1:
        parser.error("--seeds and --nights must be at least 1")
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    rows = [
        row
        for project in args.projects
        for seed in seeds
        for row in nights_of(project, seed, args.nights, args.workdir.resolve())
    ]
    by_project = {
        p.name: summarise([r for r in rows if r["project"] == p.name]) for p in args.projects
    }
    overall = summarise(rows)
    error = overall["calls_error"]
    goal_met = isinstance(error, float) and error <= GOAL and overall["above_bound"] == 0
    result = {
        **overall,
        "goal": GOAL,
        "goal_met": goal_met,
        "seeds": [seeds.start, seeds.stop - 1],
        "spread": spread(rows),
        "decomposition": decomposition(rows),
        "by_project": by_project,
        "rows": rows,
    }
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        _print(result, len(seeds), args.nights)
    return 0 if goal_met else 1


def _pct(x: object) -> str:
    return "  n/a" if not isinstance(x, float | int) else f"{x:5.0%}"


def _print(result: Mapping[str, object], seeds: int, nights: int) -> None:
    print(f"run --estimate against the night: {seeds} users x {nights} nights a project size")
    print(
        "  tasks x kinds  nights   calls error (before)   tokens  money   above bound  idle (said 0)"
    )
    table = result["by_project"]
    assert isinstance(table, dict)
    for name, s in [*table.items(), ("all", result)]:
        print(
            f"  {name:>13}  {s['nights']:>6}   {_pct(s['calls_error'])}  ({_pct(s['calls_error_before'])})"
            f"       {_pct(s['tokens_error'])}  {_pct(s['cost_error'])}   {s['above_bound']:>11}"
            f"  {s['idle_nights']:>4} ({s['idle_estimated_zero']})"
        )
    sp, d = result["spread"], result["decomposition"]
    assert isinstance(sp, dict) and isinstance(d, dict)
    print(
        f"  calls error over all nights: mean {_pct(result['calls_error'])}, median "
        f"{_pct(result['calls_error_median'])}, within {GOAL:.0%} on {_pct(result['calls_within_goal'])} of nights"
    )
    if d:
        w, o, m = d["way_accuracy"], d["way_oracle"], d["the_mean"]
        print(
            f"  where it comes from: the nights whose way (an edit proven or not, {d['proven_share']:.0%}"
            f" proven) it bet wrong {_pct(d['mean_of_way_wrong'])}, the cost within the way"
            f" {_pct(d['mean_of_way_right'])} (of the mean)"
        )
        print(
            f"  told each night's way, the estimate would miss by {_pct(o['mean'])} (median {_pct(o['median'])});"
            f" its mean by {_pct(m['mean'])}; its rehearsals expect it to miss by {_pct(d['rehearsals_expect'])}"
        )
        print(
            f"  the way predicted right: by the estimate {_pct(w['estimate'])}, by its chance over half"
            f" {_pct(w['chance_over_half'])}, by the last night's way {_pct(w['last_night'])},"
            f" by 'never' {_pct(w['never_proven'])}; Brier score of its chance {w['brier']:.3f}"
        )
    print(
        f"  calls error user by user: {sp['min']:.0%} to {sp['max']:.0%} (mean {sp['mean']:.0%}, "
        f"sd {sp['sd']:.0%}); goal: at most {GOAL:.0%} over all nights, none above the bound: "
        + ("met" if result["goal_met"] else "NOT met")
    )


if __name__ == "__main__":
    sys.exit(main())
