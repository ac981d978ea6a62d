"""bench/contradicting_checks.py at a test's size: a night whose tasks carry a check that the
user's own example fails does not learn the rule; with the check the harvest narrows it to, the
same night does, in both shapes (a program the user's command runs too, a flag whose value the
user sets otherwise)."""

from __future__ import annotations

import pytest

import bench.contradicting_checks as bench
from skillopt_sleep.harvest.check_miner import plain


@pytest.mark.parametrize(
    ("shape", "contradicting", "narrowed"),
    [
        ("unittest", "never runs python3", "never runs python3 -m unittest"),
        ("flag-value", "never runs pytest", "never runs -n auto"),
    ],
)
def test_the_narrowed_check_is_the_one_the_harvest_holds_against_the_users_example(
    shape, contradicting, narrowed
):
    checks = bench.checks(shape)
    assert plain(checks["contradicting"]) == contradicting
    assert plain(checks["narrowed"]) == narrowed


@pytest.mark.parametrize("shape", ["unittest", "flag-value"])
def test_a_contradicting_check_learns_nothing_and_the_narrowed_one_learns_the_rule(shape, capsys):
    assert bench.main(["--nights", "1", "--shape", shape]) == 0
    out = capsys.readouterr().out
    assert "contradicting: never_ran" in out and "narrowed: never_ran" in out
    lines = out.splitlines()
    assert lines[0].startswith(f"{shape}: ")
    assert "rule adopted on 0 of 1 nights; pass rate 0.00 before, 0.00 after" in lines[2]
    assert "rule adopted on 1 of 1 nights" in lines[4]
    narrowed = bench.measure(1, shapes=(shape,))[shape]["narrowed"]
    assert narrowed["before"] is not None and narrowed["after"] is not None
    assert narrowed["after"] > narrowed["before"]
