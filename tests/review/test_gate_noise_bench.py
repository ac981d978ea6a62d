"""The gate_noise benchmark meets its targets and prints what it promises."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "gate_noise.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("gate_noise", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measured_once(bench):
    """The benchmark with its measurement run once per set of arguments: it is seeded, so the
    JSON and the text output of one run show the same numbers, and each run costs minutes."""
    measure, done = bench.measure, {}

    def once(*args):
        key = repr(args)
        if key not in done:
            done[key] = measure(*args)
        return done[key]

    bench.measure = once
    return bench


@pytest.mark.slow
def test_gate_noise_over_200_nights_as_json_and_as_text(capsys):
    bench = measured_once(load_bench())
    code = bench.main(["--nights", "200", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert result["nights"] == 200
    assert result["false_accept_rate"] <= 0.05
    assert result["power"] >= 0.80
    # the strict mean comparison on the same noise accepts far more often
    assert result["baseline_false_accept_rate"] > 0.3
    assert code == 0 and result["meets_targets"] is True
    sparse = result["sparse"]
    assert sparse["kinds"] == 8 and set(sparse["gates"]) == set(bench.GATES)
    for rates in sparse["gates"].values():
        assert 0 <= rates["power"] <= 1 and isinstance(rates["meets_targets"], bool)
        assert (
            rates["false_accept_rate"] <= 0.05
        )  # a gate stays valid when the rule acts on few tasks
    # only the edit-by-edit gate sees a rule that acts on one kind of eight
    assert sparse["gates"]["edit"]["power"] >= 0.80 and sparse["gates"]["holdout"]["power"] < 0.3

    # the text output prints the sparse case for every gate
    assert bench.main(["--nights", "200"]) == 0
    text = capsys.readouterr().out
    assert "sparse case: a rule lifts one kind of 8 from 0.25 to 0.90" in text
    for name in bench.GATES:
        assert f"  {name:<8} power " in text


def mean_gain(bench, gain: float) -> float:
    rng = random.Random(0)
    diffs = []
    for _ in range(300):
        before, after = bench.simulate_night(rng, tasks=12, k=4, gain=gain)
        b = [s for v in before.values() for s in v if s is not None]
        a = [s for v in after.values() for s in v if s is not None]
        diffs.append(sum(a) / len(a) - sum(b) / len(b))
    return sum(diffs) / len(diffs)


def test_simulated_nights_have_the_true_effect_they_claim():
    bench = load_bench()
    assert abs(mean_gain(bench, 0.0)) < 0.01
    assert abs(mean_gain(bench, 0.15) - 0.15) < 0.01


def test_sparse_nights_lift_one_kind_of_eight_and_nothing_else():
    bench = load_bench()
    rng = random.Random(1)
    lifts, nulls = [], []
    for _ in range(400):
        for helps, out in ((True, lifts), (False, nulls)):
            night = bench.sparse_night(rng, tasks=12, helps=helps)
            for kind in night.kinds:
                before = [s for s in night.draw(rng, kind, False, 40) if s is not None]
                after = [s for s in night.draw(rng, kind, True, 40) if s is not None]
                out.append(
                    (kind == night.edit_kind, sum(after) / len(after) - sum(before) / len(before))
                )
    same_kind = [d for on_kind, d in lifts if on_kind]
    other_kinds = [d for on_kind, d in lifts if not on_kind]
    assert abs(sum(same_kind) / len(same_kind) - (0.9 - 0.25)) < 0.02
    assert abs(sum(other_kinds) / len(other_kinds)) < 0.01
    assert abs(sum(d for _, d in nulls) / len(nulls)) < 0.01
    # about one holdout task in eight is of the edit's kind
    assert abs(len(same_kind) / len(lifts) - 1 / 8) < 0.02


def test_the_bootstrap_interval_draws_what_rng_choices_draws():
    """The interval is drawn in one flat list for speed: the same resamples as one
    ``rng.choices(diffs, k=n)`` each, so the same interval and the same ``rng`` afterwards."""
    import math

    from skillopt_sleep.train.paired import CI_LEVEL, bootstrap_ci

    def by_choices(diffs, resamples, rng):
        n = len(diffs)
        means = sorted(sum(rng.choices(diffs, k=n)) / n for _ in range(resamples))
        tail = (1 - CI_LEVEL) / 2
        low = means[max(0, math.floor(tail * resamples))]
        return low, means[min(resamples - 1, math.ceil((1 - tail) * resamples) - 1)]

    src = random.Random(3)
    for seed in range(60):
        diffs = [src.uniform(-1, 1) for _ in range(src.randint(1, 20))]
        resamples = src.choice([1, 2, 97, 4096])
        fast, slow = random.Random(seed), random.Random(seed)
        assert bootstrap_ci(diffs, resamples, fast) == by_choices(diffs, resamples, slow), seed
        assert fast.random() == slow.random(), seed


def test_the_holdout_gate_without_its_interval_decides_the_same_and_leaves_rng_where_it_was():
    """The benchmark skips the bootstrap interval its decisions never read: the same decision,
    and ``rng`` advanced past the same draws, so every night after it is the one it would be."""
    from bench.holdout_gate import GatePolicy, decide

    bench = load_bench()
    src = random.Random(5)
    decisions = set()
    for seed in range(40):
        before, after = bench.simulate_night(src, tasks=src.randint(4, 12), k=4, gain=0.15)
        full, fast = random.Random(seed), random.Random(seed)
        kept = decide(before, after, GatePolicy(resamples=97), full)
        skipped = decide(before, after, GatePolicy(resamples=97), fast, interval=False)
        assert skipped.decision == kept.decision and skipped.p_value == kept.p_value, seed
        assert skipped.ci_low is None and kept.ci_low is not None
        assert fast.random() == full.random(), seed
        decisions.add(kept.decision)
    assert decisions == {"accept", "reject"}
