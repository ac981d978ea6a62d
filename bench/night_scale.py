"""Does a night's cost grow slower than its work? Nights of 10, 40 and 200 tasks, in one run.

Usage::

    python -m bench.night_scale                 # 3 seeds x 3 nights, each size, reuse on and off
    python -m bench.night_scale --seeds 2 --nights 2 --json
    python -m bench.night_scale --sizes 10,200  # other sizes (the ratio is largest over smallest)

Each seed is one user of :class:`worlds.sparse_world.SparseWorld` (each night works on its own
day's tasks, ``recall = 0``) run end to end through ``run_project_night`` (what ``skillopt-sleep
run`` calls) with ``auto_adopt`` on, as in ``bench/learning.py --regime sparse``, at each size.
Two gates run on the same seeds (common random numbers): the product's (``reuse``: tonight's replay
is the before side on a reserve of tasks set aside by id, :mod:`skillopt_sleep.evidence.reserve`)
and the same gate without it (``fresh``: every before side drawn, the optimizer picks among every
train task), the baseline, which lives here only.

It prints, for each gate and size: calls a night, power (good proposals adopted / reached), false
accepts, harmful adoptions (harmful proposals adopted, and runs ending with one), before sides
reused a night and harm checks sampled a night; and the ratio of calls of the largest size to the
smallest against :data:`RATIO_TARGET` (4x: the same power and harm guarantee at every size).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.learning import RunRecord, _scratch, metrics, run_nights
from bench.worlds.sparse_world import SparseWorld
from skillopt_sleep.evidence.allocation import LEAN
from skillopt_sleep.evidence.gate import EvidenceGate
from skillopt_sleep.lock import night_lock
from skillopt_sleep.settings import NightSettings, Settings

RATIO_TARGET = 4.0  # calls of a 200-task night against a 10-task night, at most
GATES = {
    "reuse": EvidenceGate(),
    "fresh": EvidenceGate(allocation=replace(LEAN, same_night_before=False)),
}


def run_seed(
    seed: int, gate: str, tasks: int, nights: int, workdir: Path
) -> tuple[RunRecord, list[tuple[int, int]]]:
    """``nights`` nights of one user at ``tasks`` tasks a night under ``gate``; the record and,
    a night, (before sides reused, harm checks sampled)."""
    said: list[tuple[int, int]] = []
    record = run_nights(
        SparseWorld(seed),
        seed,
        gate,
        Settings(night=NightSettings(auto_adopt=True, recall=0)),
        {"gate": GATES[gate]},
        nights=nights,
        tasks=tasks,
        workdir=workdir,
        told=lambda s: said.append((s.before_reused, s.harm_sampled)),
    )
    return record, said


def one(seeds: int, gate: str, tasks: int, nights: int, workdir: Path) -> dict[str, Any]:
    runs, said = [], []
    for seed in range(seeds):
        with night_lock(workdir / "bench.lock"):
            run, told = run_seed(seed, gate, tasks, nights, workdir)
        runs.append(run)
        said += told
    m = metrics(runs)
    keys = ("calls_per_night", "power", "false_accepts", "harmful_adopted", "harmful_reached")
    return {
        **{k: m[k] for k in keys},
        "harmful_runs": m["harmful_runs"],
        "gain_mean": m["gain_mean"],
        "before_reused_per_night": statistics.fmean(r for r, _ in said),
        "harm_sampled_per_night": statistics.fmean(h for _, h in said),
    }


def run_bench(
    seeds: int, nights: int, sizes: Sequence[int], workdir: Path, say: Any = print
) -> dict[str, Any]:
    out: dict[str, Any] = {"seeds": seeds, "nights": nights, "sizes": list(sizes), "gates": {}}
    workdir.mkdir(parents=True, exist_ok=True)
    for gate in GATES:
        out["gates"][gate] = {}
        for n in sizes:
            out["gates"][gate][str(n)] = one(seeds, gate, n, nights, workdir)
            say(f"{gate}: {n} tasks done")
        calls = [out["gates"][gate][str(n)]["calls_per_night"] for n in (sizes[0], sizes[-1])]
        ratio = calls[1] / calls[0] if calls[0] else None
        out["gates"][gate]["ratio"] = {
            "value": None if ratio is None else round(ratio, 2),
            "of": f"{sizes[-1]} vs {sizes[0]} tasks",
            "target": RATIO_TARGET,
            "met": ratio is not None and ratio <= RATIO_TARGET,
        }
    return out


def _f(value: Any, spec: str = ".2f") -> str:
    return "-" if value is None else format(value, spec)


def report(r: dict[str, Any]) -> str:
    lines = [
        f"night scale: {r['seeds']} seeds x {r['nights']} nights, sparse world, sizes {r['sizes']}",
        (
            f"{'gate':6} {'tasks':>5} {'calls':>8} {'power':>6} {'false':>6} {'harmful':>8} "
            f"{'reused':>7} {'sampled':>7} {'gain':>6}"
        ),
    ]
    for gate, by_size in r["gates"].items():
        for n in r["sizes"]:
            m = by_size[str(n)]
            lines.append(
                f"{gate:6} {n:>5} {_f(m['calls_per_night'], '.1f'):>8} {_f(m['power']):>6} "
                f"{_f(m['false_accepts']):>6} {m['harmful_adopted']:>3}/{m['harmful_reached']:<4} "
                f"{_f(m['before_reused_per_night'], '.1f'):>7} "
                f"{_f(m['harm_sampled_per_night'], '.1f'):>7} {_f(m['gain_mean']):>6}"
            )
        ratio = by_size["ratio"]
        lines.append(
            f"{gate}: calls {ratio['of']}: {_f(ratio['value'])}x (target <= {ratio['target']}x: "
            f"{'met' if ratio['met'] else 'NOT met'})"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="simulated users per gate and size")
    parser.add_argument("--nights", type=int, default=3)
    parser.add_argument("--sizes", default="10,40,200", help="tasks a night, comma-separated")
    parser.add_argument("--workdir", type=Path, default=_scratch() / "skillopt-sleep-night-scale")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        sizes = sorted(int(s) for s in args.sizes.split(","))
    except ValueError:
        parser.error("--sizes takes whole numbers separated by commas, e.g. 10,40,200")
    if min(args.seeds, args.nights, *sizes) < 1:
        parser.error("--seeds, --nights and every size must be at least 1")
    say = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    result = run_bench(args.seeds, args.nights, sizes, args.workdir.resolve(), say)
    print(json.dumps(result, sort_keys=True) if args.json else report(result))
    return 0 if result["gates"]["reuse"]["ratio"]["met"] else 1


if __name__ == "__main__":
    sys.exit(main())
