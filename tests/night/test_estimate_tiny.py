"""``run --estimate`` on tiny projects (one to three tasks a night, of one kind), against the calls
the same simulated nights then make: its mean close over the nights together, its single number
nearer each night than the mean is, and no night above its upper bound. (Night by night it still
misses widely: a night that proves an edit spends far more than one that proves none, and what
the optimizer proposes decides which; see bench/estimate.py's decomposition.)"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench"
BAND = 0.35  # expected / actual over these nights together, within this of 1


def _bench() -> ModuleType:
    sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location("estimate_bench", BENCH / "estimate.py")
    bench = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["estimate_bench"] = bench  # its dataclasses look their module up
    spec.loader.exec_module(bench)  # type: ignore[union-attr]
    return bench


def test_a_tiny_projects_estimate_is_near_its_nights_calls_and_its_bound_holds(tmp_path):
    bench = _bench()
    rows = [
        row
        for tasks in (1, 2, 3)
        for seed in (0, 1)
        for row in bench.nights_of(bench.Project(tasks, 1), seed, 3, tmp_path)
    ]
    spent = [r for r in rows if r["actual"]]
    assert len(spent) >= 12
    assert all(r["actual"] <= r["bound"] for r in rows)  # the bound is a promise
    actual = sum(r["actual"] for r in spent)
    ratio = sum(r["mean"] for r in spent) / actual
    before = sum(r["before"] for r in spent) / actual
    assert abs(ratio - 1) <= BAND, [(r["mean"], r["actual"]) for r in spent]
    assert abs(ratio - 1) < abs(before - 1)  # the estimate as it was missed these nights by more
    # night by night, the single number it shows misses by less than its mean would
    assert bench.error(rows) < bench.error(rows, "mean"), [
        (r["expected"], r["mean"], r["actual"]) for r in spent
    ]
