"""The whole-holdout gate the benchmarks compare with: what it accepts, refuses, and calls no evidence."""

from __future__ import annotations

import random

import pytest

from bench.holdout_gate import GatePolicy, decide, sign_flip_p


def uniform(n: int, value: float, k: int = 4) -> dict[str, list[float | None]]:
    return {f"t{i}": [value] * k for i in range(n)}


def test_clear_gain_on_twelve_tasks_is_accepted_with_its_interval():
    before = uniform(12, 0.25)
    after = {f"t{i}": [0.5, 0.75, 0.5, 0.75] for i in range(12)}
    r = decide(before, after, GatePolicy(), random.Random(0))
    assert r.decision == "accept"
    assert r.gain == pytest.approx(0.375)
    assert r.before == pytest.approx(0.25) and r.after == pytest.approx(0.625)
    assert r.p_value == pytest.approx(1 / 4096) and r.exact
    assert r.ci_low == pytest.approx(0.375) and r.ci_high == pytest.approx(0.375)
    assert r.reason == "gain +0.375 (95% CI +0.375 to +0.375), p = 0.000244 on 12 holdout tasks"


def test_errored_rollouts_are_excluded_and_counted_never_zero():
    before = {f"t{i}": [0.5, None, 0.5, 0.5] for i in range(6)}
    after = {f"t{i}": [1.0, 1.0, None, 1.0] for i in range(6)}
    r = decide(before, after, GatePolicy(), random.Random(0))
    assert r.errored == 12 and r.rollouts == 48
    assert r.before == pytest.approx(0.5) and r.after == pytest.approx(1.0)
    assert r.decision == "accept"


def test_too_many_errored_rollouts_is_no_evidence():
    before = {f"t{i}": [None, None, 0.5, 0.5] for i in range(6)}
    after = uniform(6, 1.0)
    r = decide(before, after, GatePolicy(max_error_rate=0.2), random.Random(0))
    assert r.decision == "no_evidence"
    assert r.reason == (
        "not enough evidence: 12 of 48 holdout rollouts errored (25%, at most 20% allowed)"
    )
    assert r.gain is None and r.p_value is None


def test_too_few_scored_tasks_is_no_evidence():
    before = uniform(3, 0.0)
    before["t9"] = [None] * 4  # fully errored: not a scored task
    after = uniform(3, 1.0)
    after["t9"] = [1.0] * 4
    r = decide(before, after, GatePolicy(max_error_rate=1.0), random.Random(0))
    assert r.decision == "no_evidence"
    assert r.reason == "not enough evidence: 3 holdout tasks scored, need 4"
    assert r.n_tasks == 3


def test_tasks_missing_on_one_side_are_not_paired():
    before = uniform(5, 0.0)
    after = {**uniform(3, 1.0), "other": [1.0] * 4}
    r = decide(before, after, GatePolicy(), random.Random(0))
    assert r.decision == "no_evidence" and r.n_tasks == 3


def test_sign_flip_is_exact_when_it_can_enumerate():
    p, exact = sign_flip_p([0.1, 0.2, 0.3, 0.4, 0.5], 4096, random.Random(0))
    assert exact and p == 1 / 32
    # flipping the smallest diff still beats the observed sum only if it was already negative
    p, exact = sign_flip_p([0.5, 0.5, 0.5, 0.5, -0.25], 4096, random.Random(0))
    assert exact and p == pytest.approx(2 / 32)


def test_monte_carlo_p_is_never_zero_and_is_seeded():
    diffs = [0.25] * 13
    p1, exact = sign_flip_p(diffs, 1000, random.Random(3))
    p2, _ = sign_flip_p(diffs, 1000, random.Random(3))
    assert not exact and p1 == p2 == pytest.approx(1 / 1001)


def test_four_improved_tasks_are_not_enough_at_alpha_005():
    # 4 tasks up and nothing else: 1/16 of the sign patterns do as well, p = 0.0625.
    before = uniform(4, 0.0)
    after = uniform(4, 1.0)
    r = decide(before, after, GatePolicy(), random.Random(0))
    assert r.decision == "reject"
    assert r.reason == "not significant: p = 0.0625 >= alpha 0.05"


def test_a_task_that_drops_too_far_blocks_the_edit():
    before = uniform(12, 0.25)
    after = uniform(12, 0.75)
    before["t3"] = [1.0] * 4
    after["t3"] = [0.25] * 4
    r = decide(before, after, GatePolicy(), random.Random(0))
    assert r.decision == "reject"
    assert r.worst_task == "t3" and r.worst_drop == pytest.approx(0.75)
    assert r.reason == "task t3 dropped by 0.75 (at most 0.25 allowed)"


def test_a_drop_of_exactly_the_limit_is_allowed():
    before = uniform(12, 0.25)
    after = uniform(12, 0.75)
    before["t0"], after["t0"] = [0.5] * 4, [0.25] * 4
    r = decide(before, after, GatePolicy(), random.Random(0))
    assert r.decision == "accept" and r.worst_drop == pytest.approx(0.25)


def test_significant_but_tiny_gain_is_rejected():
    before = uniform(12, 0.5)
    after = uniform(12, 0.53)
    r = decide(before, after, GatePolicy(), random.Random(0))
    assert r.decision == "reject"
    assert r.reason == "gain +0.030 is below the minimum 0.050"


def test_no_change_is_rejected_for_every_reason_it_fails():
    r = decide(uniform(8, 0.5), uniform(8, 0.5), GatePolicy(), random.Random(0))
    assert r.decision == "reject"
    assert (
        r.reason == "gain +0.000 is below the minimum 0.050; not significant: p = 1 >= alpha 0.05"
    )
    assert r.worst_drop == 0.0


def test_bootstrap_test_accepts_a_real_gain_and_rejects_noise():
    rng = random.Random(1)
    before = {f"t{i}": [rng.choice([0.0, 0.5, 1.0]) for _ in range(4)] for i in range(12)}
    after = {t: [min(1.0, s + 0.5) for s in v] for t, v in before.items()}
    policy = GatePolicy(test="bootstrap", resamples=2000)
    assert decide(before, after, policy, random.Random(2)).decision == "accept"
    assert decide(before, before, policy, random.Random(2)).decision == "reject"


def test_same_seed_same_result():
    rng = random.Random(5)
    before = {f"t{i}": [rng.random() for _ in range(4)] for i in range(14)}
    after = {f"t{i}": [rng.random() for _ in range(4)] for i in range(14)}
    a = decide(before, after, GatePolicy(), random.Random(9))
    b = decide(before, after, GatePolicy(), random.Random(9))
    assert a == b and not a.exact
