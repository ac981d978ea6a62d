"""bench/contradicting_checks.py at a test's size: a night whose tasks carry a check that the
user's own example fails does not learn the rule; with the check the harvest narrows it to, the
same night does."""

from __future__ import annotations

import bench.contradicting_checks as bench
from skillopt_sleep.harvest.check_miner import plain


def test_the_narrowed_check_is_the_one_the_harvest_holds_against_the_users_example():
    checks = bench.checks()
    assert plain(checks["contradicting"]) == "never runs python3"
    assert plain(checks["narrowed"]) == "never runs python3 -m unittest"


def test_a_contradicting_check_learns_nothing_and_the_narrowed_one_learns_the_rule(capsys):
    assert bench.main(["--nights", "1"]) == 0
    out = capsys.readouterr().out
    assert "contradicting: never_ran" in out and "narrowed: never_ran" in out
    lines = out.splitlines()
    assert "rule adopted on 0 of 1 nights; pass rate 0.00 before, 0.00 after" in lines[1]
    assert "rule adopted on 1 of 1 nights" in lines[3]
    result = bench.measure(1)
    narrowed = result["narrowed"]
    assert narrowed["before"] is not None and narrowed["after"] is not None
    assert narrowed["after"] > narrowed["before"]
