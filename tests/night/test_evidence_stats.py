"""The statistics of the edit-by-edit gate, pinned: exact p-values on small tables, Holm's split,
the e-values' validity under the null, and the bound that calls an edit conclusively useless."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from math import comb

import pytest

from skillopt_sleep.evidence import Stratum, holm, log_e_value, rules_out_gain, stratified_p


def test_one_stratum_is_fishers_exact_test():
    # 2 of 8 passed before, 7 of 8 after: P(A >= 7) for A ~ Hypergeom(16 trials, 9 passes, 8 drawn)
    expected = sum(Fraction(comb(8, a) * comb(8, 9 - a), comb(16, 9)) for a in (7, 8))
    assert stratified_p([Stratum(2, 8, 7, 8)]) == pytest.approx(float(expected), rel=1e-12)
    assert float(expected) == pytest.approx(
        0.0203, abs=1e-4
    )  # scipy.stats.fisher_exact(..., "greater")


def test_two_strata_convolve_their_hypergeometrics():
    strata = [Stratum(0, 2, 2, 2), Stratum(1, 2, 2, 2)]
    # stratum 1: 2 passes among 4, A1 in {0,1,2} with 1/6, 4/6, 1/6; stratum 2: 3 passes, A2 in {1,2}, 1/2 each
    # P(A1 + A2 >= 4) = P(A1=2) * P(A2=2) = 1/6 * 1/2
    assert stratified_p(strata) == pytest.approx(1 / 12, rel=1e-12)
    assert stratified_p(strata, "less") == pytest.approx(1.0)


def test_a_table_fixed_by_its_margins_carries_no_evidence():
    assert stratified_p([Stratum(4, 4, 4, 4)]) == 1.0  # all pass on both sides
    assert stratified_p([Stratum(0, 0, 3, 3)]) == 1.0  # nothing scored before
    assert stratified_p([]) == 1.0


def test_stratified_p_is_valid_under_the_null():
    rng = random.Random(1)
    hits, trials = 0, 4000
    for _ in range(trials):
        strata = []
        for _ in range(rng.randint(1, 4)):
            rate, n = rng.random(), rng.randint(2, 8)
            b = sum(rng.random() < rate for _ in range(n))
            a = sum(rng.random() < rate for _ in range(n))
            strata.append(Stratum(b, n, a, n))
        hits += stratified_p(strata) <= 0.05
    assert hits / trials <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / trials)


def test_holm_steps_down_and_stops_at_the_first_failure():
    # sorted p against alpha/3, alpha/2, alpha/1
    assert holm({"a": 0.01, "b": 0.02, "c": 0.04}, 0.05) == {"a", "b", "c"}
    assert holm({"a": 0.01, "b": 0.03, "c": 0.04}, 0.05) == {"a"}  # 0.03 > 0.025 stops the descent
    assert holm({"a": 0.03, "b": 0.001}, 0.05) == {"a", "b"}  # 0.001 <= 0.025, then 0.03 <= 0.05
    assert holm({"a": 0.06, "b": 0.001}, 0.05) == {"b"}
    assert holm({"a": 0.02}, 0.05) == {"a"}
    assert holm({}, 0.05) == set()


def test_e_value_has_expectation_one_under_the_null():
    # exact expectation over the hypergeometric law of one stratum (given its margins)
    for stratum in (Stratum(2, 6, 3, 6), Stratum(0, 3, 1, 5), Stratum(5, 8, 5, 8)):
        na, nb = stratum.after_n, stratum.before_n
        total = stratum.before_pass + stratum.after_pass
        mean = 0.0
        for a in range(max(0, total - nb), min(total, na) + 1):
            p = comb(na, a) * comb(nb, total - a) / comb(na + nb, total)
            mean += p * math.exp(log_e_value([Stratum(total - a, nb, a, na)], 4.0))
        assert mean == pytest.approx(1.0, rel=1e-9)


def test_evidence_carried_over_nights_stays_valid_on_null_data():
    """Ville: the running product of nightly e-values crosses 1/alpha at most alpha of the time."""
    rng = random.Random(7)
    alpha, runs, nights, crossed = 0.05, 2000, 20, 0
    for _ in range(runs):
        log_total = 0.0
        for _ in range(nights):
            rate = rng.random()
            strata = []
            for _ in range(2):
                b = sum(rng.random() < rate for _ in range(8))
                a = sum(rng.random() < rate for _ in range(8))
                strata.append(Stratum(b, 8, a, 8))
            log_total += log_e_value(strata, 4.0)
            if log_total >= math.log(1 / alpha):
                crossed += 1
                break
    assert crossed / runs <= alpha


def test_evidence_accumulates_for_a_real_but_modest_gain():
    rng = random.Random(3)
    log_total, nights = 0.0, 0
    while log_total < math.log(200) and nights < 30:
        nights += 1
        b = sum(rng.random() < 0.3 for _ in range(6))
        a = sum(rng.random() < 0.7 for _ in range(6))
        log_total += log_e_value([Stratum(b, 6, a, 6)], 4.0)
    assert nights < 30  # a gain of 0.4 on six rollouts a night is proven within weeks


def test_no_effect_is_concluded_only_with_enough_rollouts():
    assert rules_out_gain([Stratum(8, 32, 8, 32)], 0.25)
    assert not rules_out_gain([Stratum(1, 4, 1, 4)], 0.25)  # four rollouts say nothing
    assert not rules_out_gain([Stratum(4, 32, 20, 32)], 0.25)  # a real gain is not ruled out
