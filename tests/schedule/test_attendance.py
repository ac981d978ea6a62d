"""Did the nightly job run: missed nights and why, streaks that learned nothing, unreviewed proposals."""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone

from skillopt_sleep.clock import SystemClock
from skillopt_sleep.models import NightSummary
from skillopt_sleep.night.demo import sample_tasks, write_sample_project
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.schedule.attendance import last_night_line, slots, warnings
from skillopt_sleep.schedule.state import (
    INSTALLED_KEY,
    Installation,
    LastRun,
    ProjectResult,
    save,
    save_run,
)
from skillopt_sleep.store import NightRow, Store
from skillopt_sleep.testing import Error, ModelServer

NOW = datetime(2026, 11, 24, 9, 0, tzinfo=timezone.utc)
INSTALLED = Installation(
    method="crontab",
    name="skillopt-sleep",
    cron="17 3 * * *",
    timezone="UTC",
    projects=["/p"],
    installed_at=NOW - timedelta(days=5, hours=2),
    argv=[],
    env_keys=[],
)


def _run(day: int, status: str = "ok", message: str = "", decision: str = "accept") -> LastRun:
    start = datetime(2026, 11, day, 3, 17, 5, tzinfo=timezone.utc)
    return LastRun(
        started_at=start,
        finished_at=start + timedelta(minutes=9),
        trigger="scheduled",
        status=status,
        message=message,
        projects=[ProjectResult(project="/p", status="ok", decision=decision)],
    )


RUNS = [
    _run(19),
    _run(20, "skipped", "another night is running (lock held by pid 812)"),
    _run(22, "failed", "target backend claude-code: not logged in (run `claude` and log in)"),
    _run(24, decision="budget_exhausted"),
]


def test_each_scheduled_time_says_what_became_of_it():
    got = [(s.at.day, s.status) for s in slots(INSTALLED, RUNS, NOW)]
    assert got == [(20, "skipped"), (21, "missed"), (22, "failed"), (23, "missed")]
    reasons = {s.at.day: s.reason for s in slots(INSTALLED, RUNS, NOW)}
    assert (
        "held the lock" in reasons[20]
        and "login failed" in reasons[22]
        and "asleep or off" in reasons[21]
    )


def test_a_night_that_stopped_at_its_budget_is_named_once_it_is_old_enough():
    later = NOW + timedelta(hours=12)
    assert slots(INSTALLED, RUNS, later)[-1].status == "budget"
    assert any("stopped at the budget" in w for w in warnings([], slots(INSTALLED, RUNS, later)))


def _night(i: int, state: str, accepted: bool) -> NightRow:
    start = NOW - timedelta(days=i)
    s = NightSummary(
        night_id=f"n{i}",
        project="/p",
        started_at=start,
        decision="accept" if accepted else "reject",
    )
    if accepted:
        s = s.model_copy(update={"edits": []})
    return NightRow(f"n{i}", "/p", start.isoformat(), s.decision, state, None, s)


def test_streaks_of_nights_that_learned_nothing_or_were_never_reviewed_warn():
    nothing = [_night(i, "none", False) for i in range(4)]
    text = "\n".join(warnings(nothing, []))
    assert "the last 4 nights learned nothing" in text
    unreviewed = [
        _night(0, "staged", False),
        _night(1, "superseded", False),
        _night(2, "adopted", False),
    ]
    assert any(
        "2 proposals in a row were staged and not reviewed" in w for w in warnings(unreviewed, [])
    )
    assert warnings([_night(0, "adopted", False)], []) == []
    assert last_night_line(unreviewed, NOW).startswith(
        "last night: 2026-11-24 09:00 UTC (less than an hour ago)"
    )


def test_status_shows_when_the_last_night_ran_and_the_nights_that_were_missed(cli, tmp_path):
    store = Store.open(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).ensure().db)
    recent = INSTALLED.model_copy(
        update={"installed_at": datetime.now(timezone.utc) - timedelta(days=3)}
    )
    save(store, INSTALLED_KEY, recent)
    save_run(
        store,
        LastRun(
            started_at=datetime.now(timezone.utc) - timedelta(days=1),
            trigger="scheduled",
            status="skipped",
            message="another night is running (lock held by pid 9)",
        ),
    )
    r = cli("status", "--json", cwd=tmp_path)
    assert r.code == 0, r.err
    assert [s["status"] for s in r.json()["schedule"]].count("missed") >= 1
    text = cli("status", cwd=tmp_path).out
    assert "missed: no run was recorded: the machine was asleep or off" in text


def _ended(i: int, decision: str) -> NightRow:
    start = NOW - timedelta(days=i)
    s = NightSummary(
        night_id=f"n{i}", project="/p", started_at=start, decision=decision, target="openai:m"
    )
    return NightRow(f"n{i}", "/p", start.isoformat(), decision, "none", None, s)


def test_nights_stopped_by_an_outage_or_the_budget_are_not_counted_as_learning_nothing():
    mixed = [_ended(i, d) for i, d in enumerate(["reject", "outage", "no_evidence", "outage"])]
    mixed.append(_ended(4, "reject"))
    assert warnings(mixed, []) == [
        (
            "! 3 of the last 5 nights learned nothing: log more tasks of the kinds you correct "
            "(`skillopt-sleep tasks list`), or look at their reports"
        )
    ]
    two_tried = [_ended(i, d) for i, d in enumerate(["outage", "reject", "outage", "reject"])]
    assert warnings(two_tried, []) == []
    stopped = [_ended(i, "budget_exhausted") for i in range(3)]
    assert warnings(stopped, []) == [
        (
            "! the last 3 nights stopped at the budget before they could learn: raise [budget] "
            "in the config (`skillopt-sleep config path`), or let fewer tasks into a night"
        )
    ]


def test_status_after_nights_of_outage_names_the_backend_and_the_fix_not_more_tasks(cli, tmp_path):
    project = tmp_path / "project"
    write_sample_project(project)
    store = Store.open(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).ensure().db)
    store.upsert_tasks(sample_tasks(project), SystemClock().now())
    env = {"ANTHROPIC_API_KEY": "sk-test"}
    run = ("run", "--project", str(project), "--backend", "anthropic", "--model", "m")
    with ModelServer(responder=lambda call: Error(529)) as srv:
        for _ in range(3):
            r = cli(*run, "--base-url", srv.url, env=env)
            assert r.code == 6, r.err
    out = cli("status", "--project", str(project), env=env).out
    warned = [line for line in out.splitlines() if line.startswith("! ")]
    assert warned == [
        (
            "! the last 3 nights ended in an outage: the model backend anthropic:m answered "
            "nothing, so they are no evidence and their tasks still wait; check the backend with "
            "`skillopt-sleep doctor`, then run a night again (`skillopt-sleep run`)"
        )
    ]
