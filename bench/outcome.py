"""Verdicts on adopted rules after weeks of simulated sessions: how often each is right.

A simulated user corrects the agent on requests of one kind ("run the tests": "no, use
`pytest -q`") at a rate ``p`` for four weeks; a rule is adopted from three of those corrected
requests; then the weeks go on with requests of that kind among others. Three worlds after adoption:

- *working*: the agent follows the rule, the correction rate falls to ``p / 6``;
- *ignored*: the agent does not, it stays at ``p``;
- *contradicted*: the user now wants the opposite ("don't use `pytest -q`") at rate 0.4.

For N requests of the kind since adoption, the bench runs the product's own assessment
(:func:`skillopt_sleep.review.outcome.assess`) on the task records over many seeds and prints
each verdict's accuracy, how often a rule that does not work is called *working* (goal <= 5%),
and the median number of requests of the kind a verdict needed.

    python3 bench/outcome.py --seeds 200 --json
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from datetime import datetime, timedelta, timezone
from typing import Literal, TypedDict

from skillopt_sleep.models import Edit, TaskRecord, TurnNote
from skillopt_sleep.review.ledger import AdoptedRule, rule_id
from skillopt_sleep.review.outcome import assess

PROJECT = "/work/demo"
START = datetime(2026, 9, 1, 9, tzinfo=timezone.utc)
MODULES = [
    "parser",
    "cache",
    "router",
    "auth",
    "billing",
    "search",
    "export",
    "report",
    "queue",
    "mailer",
]
KIND = "run the tests for the {} module"
OTHER = [
    "write the changelog entry for {}",
    "rename the {} settings class",
    "explain how {} handles errors",
    "draft release notes about {}",
]
SAME = "no, always use `pytest -q`"
OPPOSITE = "don't use `pytest -q` any more, run plain `pytest`"
RULE = "Run the tests with `pytest -q`."
World = Literal["working", "ignored", "contradicted"]
WORLDS: tuple[World, ...] = ("working", "ignored", "contradicted")


class Row(TypedDict):
    """After ``after_requests`` requests of the kind: each world's share of each verdict, and
    how often a rule that does not work was called working."""

    after_requests: int
    working: dict[str, float]
    ignored: dict[str, float]
    contradicted: dict[str, float]
    false_working: float


class Needed(TypedDict):
    """How many requests of the kind a verdict needed in one world (the median over seeds)."""

    world: World
    median_requests_to_verdict: float


class Report(TypedDict):
    """The whole run: the table by size, the requests a verdict needed, and the goal."""

    p_before: float
    seeds: int
    table: list[Row]
    needed: list[Needed]
    worst_false_working: float
    goal_false_working: float
    met: bool


def _task(i: int, when: datetime, intent: str, correction: str | None) -> TaskRecord:
    turns = (
        [TurnNote(kind="correction", text=correction, at=when + timedelta(minutes=5))]
        if correction
        else []
    )
    return TaskRecord(
        source="claude-code",
        project=PROJECT,
        session_id=f"s{i}",
        turn=0,
        created_at=when,
        intent=intent,
        turns=turns,
        feedback=correction or "",
    )


def _world(
    world: World, after_n: int, p: float, rng: random.Random
) -> tuple[list[TaskRecord], AdoptedRule]:
    tasks: list[TaskRecord] = []
    i = 0
    when = START
    per_day_before = 1  # a request of the kind a day for four weeks, before adoption
    for _ in range(28 * per_day_before):
        tasks.append(
            _task(i, when, KIND.format(rng.choice(MODULES)), SAME if rng.random() < p else None)
        )
        tasks.append(
            _task(
                i + 1,
                when + timedelta(hours=2),
                rng.choice(OTHER).format(rng.choice(MODULES)),
                None,
            )
        )
        i, when = i + 2, when + timedelta(days=1)
    corrected = [t for t in tasks if t.turns]
    cited = corrected[-3:]
    adopted_at = when
    edit = Edit(target="memory", content=RULE, status="applied", cites=[t.id for t in cited])
    rule = AdoptedRule(
        id=rule_id(edit),
        project=PROJECT,
        text=RULE,
        target="memory",
        files=[],
        night_id="n1",
        adopted_at=adopted_at,
        edit=edit,
        task_ids=[t.id for t in cited],
        cited=[t.id for t in cited],
        exemplars=[t.intent for t in cited],
        preference_keys=[],
        checks=["contains 'pytest -q'"],
    )
    rate_same = {"working": p / 6, "ignored": p, "contradicted": p / 6}[world]
    rate_opposite = 0.4 if world == "contradicted" else 0.0
    for _ in range(after_n):
        u = rng.random()
        said = SAME if u < rate_same else OPPOSITE if u < rate_same + rate_opposite else None
        tasks.append(_task(i, when, KIND.format(rng.choice(MODULES)), said))
        tasks.append(
            _task(
                i + 1,
                when + timedelta(hours=2),
                rng.choice(OTHER).format(rng.choice(MODULES)),
                None,
            )
        )
        i, when = i + 2, when + timedelta(hours=12)
    return tasks, rule


def _shares(world: World, n: int, p: float, seeds: int) -> dict[str, float]:
    """Each verdict's share over ``seeds`` runs of ``world`` with ``n`` requests since adoption."""
    verdicts: dict[str, int] = {}
    for seed in range(seeds):
        rng = random.Random(f"{world}:{n}:{seed}")
        tasks, rule = _world(world, n, p, rng)
        v = assess(rule, tasks).verdict
        verdicts[v] = verdicts.get(v, 0) + 1
    return {k: round(c / seeds, 3) for k, c in sorted(verdicts.items())}


def run(seeds: int, sizes: list[int], p: float) -> Report:
    """The verdicts by size, the requests a verdict needed in each world, and the worst false
    'working' against its goal."""
    table: list[Row] = []
    for n in sizes:
        shares = {world: _shares(world, n, p, seeds) for world in WORLDS}
        false_working = max(
            shares["ignored"].get("working", 0.0), shares["contradicted"].get("working", 0.0)
        )
        table.append(
            Row(
                after_requests=n,
                working=shares["working"],
                ignored=shares["ignored"],
                contradicted=shares["contradicted"],
                false_working=round(false_working, 3),
            )
        )
    needed: list[Needed] = []
    for world in WORLDS:
        counts = []
        for seed in range(min(seeds, 100)):
            for n in range(2, 80, 2):
                tasks, rule = _world(world, n, p, random.Random(f"needed:{world}:{n}:{seed}"))
                if assess(rule, tasks).verdict not in ("no data yet",):
                    counts.append(n)
                    break
            else:
                counts.append(80)
        needed.append({"world": world, "median_requests_to_verdict": statistics.median(counts)})
    worst_false = max(r["false_working"] for r in table)
    return {
        "p_before": p,
        "seeds": seeds,
        "table": table,
        "needed": needed,
        "worst_false_working": worst_false,
        "goal_false_working": 0.05,
        "met": worst_false <= 0.05,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--sizes", default="5,10,20,40")
    ap.add_argument("--p", type=float, default=0.6, help="correction rate before adoption")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    out = run(args.seeds, [int(x) for x in args.sizes.split(",")], args.p)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"correction rate before adoption {out['p_before']}, {out['seeds']} seeds per cell")
    for row in out["table"]:
        cells = "  ".join(f"{w}: right {row[w].get(w, 0.0):.0%}" for w in WORLDS)
        print(
            f"after {row['after_requests']:>3} requests of the kind: {cells}  "
            f"not working but called working: {row['false_working']:.1%}"
        )
    for n in out["needed"]:
        print(
            f"{n['world']}: a verdict after a median of {n['median_requests_to_verdict']} requests of the kind"
        )
    print(
        f"worst false 'working' {out['worst_false_working']:.1%} (goal <= 5%): {'met' if out['met'] else 'NOT met'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
