"""``run --estimate`` names both ways a night can go when they cost apart: the calls of the way it
bets on, the calls if the night proves an edit (and pays for its harm check), and the most."""

from __future__ import annotations

import os
import re

from skillopt_sleep.clock import SystemClock
from skillopt_sleep.night.demo import sample_tasks, write_sample_project
from skillopt_sleep.night.estimate_ways import nearest, ways, ways_text
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.store import Store


def test_one_number_for_a_night_is_the_cheap_way_unless_the_costly_one_is_near_certain():
    # to a night of 14 calls, 260 is 17.6 times off; to a night of 260, 14 is 0.95 times off
    assert nearest([14] * 6 + [260] * 4) == 14
    assert nearest([14] * 2 + [260] * 22) == 14
    assert nearest([14] * 1 + [260] * 23) == 260
    both = ways([(14, False)] * 14 + [(260, True)] * 10, mean=116)
    assert (both.calls, both.mean, both.if_proven, both.if_not) == (14, 116, 260, 14)
    assert both.p_proven == round(10 / 24, 3)
    assert both.miss == round(10 / 24 * (260 - 14) / 260, 2)


def test_the_line_names_the_other_way_only_when_it_costs_apart():
    assert (
        ways_text(14, 260, 14, 0.4) == "about 14 calls; about 260 if an edit is proven (40% likely)"
    )
    assert ways_text(260, 260, 14, 0.96) == (
        "about 260 calls (an edit proven); about 14 if none is (4% likely)"
    )
    assert ways_text(40, 45, 38, 0.5) == "about 40 calls"  # the ways cost about the same
    assert ways_text(40, None, 40, 0.0) == "about 40 calls"  # no rehearsal proved an edit


def _small_project(tmp_path):
    """The sample project with five of its tasks (three of one kind, two of another): a night that
    may prove an edit, or not."""
    project = tmp_path / "project"
    write_sample_project(project)
    tasks = sample_tasks(project)
    mine = Store.open(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).db)
    mine.upsert_tasks([tasks[i] for i in (0, 1, 2, 5, 6)], SystemClock().now())
    return project


def test_run_estimate_says_the_calls_if_an_edit_is_proven_beside_its_own_and_the_most(
    cli, tmp_path
):
    project = _small_project(tmp_path)
    flags = ("run", "--estimate", "--project", str(project), "--backend", "simulated")
    est = cli(*flags, "--json").json()
    assert {"calls", "calls_mean", "calls_bound", "calls_if_proven", "calls_if_not"} <= set(est)
    assert 0 < est["p_proven"] < 1  # the sample's night may go either way
    assert est["calls_if_not"] < est["calls_if_proven"] <= est["calls_bound"]
    r = cli(*flags)
    assert r.code == 0, r.err
    first = r.out.splitlines()[0]
    # the single number is the way nearer a night; the other way is named beside it, with its odds
    if abs(est["calls"] - est["calls_if_proven"]) < abs(est["calls"] - est["calls_if_not"]):
        assert first.startswith(
            f"estimate for {project}: about {est['calls']} calls (an edit proven); "
        )
        shown = re.search(r"about (\d+) if none is \((\d+)% likely\)", first)
        other, odds = est["calls_if_not"], 1 - est["p_proven"]
    else:
        assert first.startswith(f"estimate for {project}: about {est['calls']} calls; ")
        shown = re.search(r"about (\d+) if an edit is proven \((\d+)% likely\)", first)
        other, odds = est["calls_if_proven"], est["p_proven"]
    assert shown, first
    assert int(shown[1]) == other
    assert int(shown[2]) == round(100 * odds)
    assert f"; never more than {est['calls_bound']} " in first


def test_run_estimate_warns_when_a_proven_edit_would_outrun_the_calls_budget(cli, tmp_path):
    project = _small_project(tmp_path)
    flags = ("run", "--estimate", "--project", str(project), "--backend", "simulated")
    est = cli(*flags, "--json").json()
    tight = {"SKILLOPT_SLEEP_BUDGET__MAX_CALLS": str(est["calls_if_proven"] - 1)}
    r = cli(*flags, env=tight)
    assert r.code == 0, r.err
    assert (
        f"if an edit is proven the night needs about {est['calls_if_proven']} calls, more than "
        f"budget.max_calls = {est['calls_if_proven'] - 1}: it would stop there and say what it "
        "skipped (raise [budget] max_calls to let it finish)"
    ) in r.out.splitlines()
    assert "if an edit is proven the night needs" not in cli(*flags).out
