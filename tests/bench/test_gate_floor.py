"""The floor of a night's calls: the smallest tests that could have made the gate's adoptions."""

from __future__ import annotations

import math
import random
from datetime import datetime, timezone

from bench.gate_floor import (
    cheapest_kind,
    floors,
    guarded_floor,
    harm_powered_size,
    kinds_floor,
    perfect_size,
    powered_size,
)
from skillopt_sleep.evidence.exact import Stratum, p_odds_at_most, stratified_p
from skillopt_sleep.evidence.harm_sample import KIND_SHARE
from skillopt_sleep.models import Check, Edit, EditEvidence, TaskRecord
from skillopt_sleep.proposal_models import NightSummary
from skillopt_sleep.settings import NightSettings


def test_a_perfect_test_is_the_smallest_whose_most_extreme_outcome_reaches_its_level():
    for alpha in (0.2, 0.05, 0.02, 0.0067, 0.001):
        n = perfect_size(alpha)
        assert stratified_p([Stratum(0, n, n, n)]) <= alpha
        assert stratified_p([Stratum(0, n - 1, n - 1, n - 1)]) > alpha
    assert perfect_size(0.05) == 3  # all 3 after pass and all 3 before fail: p = 1/20


def _power(n: int, alpha: float, rng: random.Random, runs: int = 4000) -> float:
    hits = 0
    for _ in range(runs):
        before = sum(rng.random() < 0.25 for _ in range(n))
        after = sum(rng.random() < 0.9 for _ in range(n))
        hits += stratified_p([Stratum(before, n, after, n)]) <= alpha
    return hits / runs


def test_a_powered_test_adopts_a_good_rule_four_times_in_five_and_one_rollout_less_does_not():
    rng = random.Random(7)
    for alpha in (0.2, 0.01):
        n = powered_size(alpha)
        assert _power(n, alpha, rng) >= 0.78  # 0.8, less the simulation's noise
        assert _power(n - 1, alpha, rng) < 0.8


def _evidence(
    verdict: str, alpha: float, p: float, cited: list[str], unseen: list[str], harm: list[str]
) -> EditEvidence:
    return EditEvidence(
        edit=Edit(target="memory", op="add", content=f"rule {cited}", cites=cited),
        verdict=verdict,
        alpha=alpha,
        p_efficacy=p,
        cited=cited,
        unseen=unseen,
        harm_tasks=harm,
    )


def test_a_nights_floor_counts_its_calls_outside_the_gate_and_the_smallest_adopting_tests():
    summary = NightSummary(
        night_id="n",
        project="/p",
        started_at=datetime(2026, 11, 26, tzinfo=timezone.utc),
        decision="accept",
        calls=300,
        gate_rollouts={"baseline": 100, "efficacy": 60, "harm": 100},
        evidence=[
            _evidence("accepted", 0.01, 0.001, ["t1"], ["u1"], ["h1", "h2", "h3", "t2"]),
            # adopted on evidence carried from earlier nights, on a task of the first's
            _evidence("accepted", 0.05, 0.2, ["t1", "t2"], [], ["h2", "h4"]),
            _evidence("no_effect", 0.01, 0.9, ["t9"], ["u9"], ["h9"]),  # not adopted: nothing
        ],
    )
    night = NightSettings()
    perfect, powered = floors(summary, night)
    outside, harm = 300 - 260, 2 * 4  # one rollout a side on h1..h4 (t2 is tested anyway)
    # t1 and t2 share the larger test's rollouts; the unseen test u1 has its own
    assert perfect == outside + harm + 2 * (perfect_size(0.01) + perfect_size(night.unseen_alpha))
    assert powered == outside + harm + 2 * (powered_size(0.01) + powered_size(night.unseen_alpha))
    assert perfect < powered < summary.calls
    assert math.comb(2 * perfect_size(0.01), perfect_size(0.01)) >= 100


def test_a_powered_harm_check_rules_out_the_cut_four_times_in_five_and_one_rollout_less_does_not():
    n = harm_powered_size(4.0, 0.05)
    rng = random.Random(3)

    def power(n: int, runs: int = 3000) -> float:
        hits = 0
        for _ in range(runs):
            b = sum(rng.random() < 0.25 for _ in range(n))
            a = sum(rng.random() < 0.25 for _ in range(n))
            hits += p_odds_at_most([Stratum(b, n, a, n)], 0.25) <= 0.05
        return hits / runs

    assert power(n) >= 0.78  # 0.8, less the simulation's noise
    assert power(n - 1) < 0.82
    # one rollout a side on each of a few other tasks proves no harm is ruled out
    assert n > 8


def _kind_task(i: int, kind: int) -> TaskRecord:
    return TaskRecord(
        source="manual",
        project="/p",
        session_id=f"s{i}",
        created_at=datetime(2026, 11, 26, tzinfo=timezone.utc),
        intent=f"task {i}",
        checks=[Check(kind="contains", value=f"kind-{kind}")],
    )


def test_a_sampled_harm_check_adds_its_per_kind_tests_to_the_floor():
    # 32 other tasks of 8 kinds, checked on a sample: each kind must be tested alone at its share
    # of harm_alpha, powered at harm_kind_power, which one fixed pooled test of 44 a side is not
    tasks = {t.id: t for t in (_kind_task(i, i % 8) for i in range(33))}
    ids = sorted(tasks)
    summary = NightSummary(
        night_id="n",
        project="/p",
        started_at=datetime(2026, 11, 26, tzinfo=timezone.utc),
        decision="accept",
        calls=600,
        gate_rollouts={"baseline": 200, "efficacy": 40, "harm": 300},
        evidence=[_evidence("accepted", 0.01, 0.001, ids[:1], [], ids[1:])],
        harm_sampled=1,
    )
    night = NightSettings()
    guarded = guarded_floor(summary, night)
    level = night.harm_alpha * KIND_SHARE / 8
    each = cheapest_kind(level, 4, night.harm_kind_power)
    assert kinds_floor(summary, night, tasks) == guarded + 2 * (8 * each - 44)
    assert 8 * each > 44  # the per-kind tests cost more than the pooled one
    unsampled = summary.model_copy(update={"harm_sampled": 0})
    assert kinds_floor(unsampled, night, tasks) == guarded_floor(unsampled, night)
