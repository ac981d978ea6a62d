"""The built-in loop: one night per day, one catch-up after a long sleep, a clean stop on a signal."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from skillopt_sleep.clock import FixedClock
from skillopt_sleep.errors import BackendUnavailable
from skillopt_sleep.schedule.loop import run_loop

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")


class MachineClock(FixedClock):
    """Simulated time: each nap passes exactly; once, a nap lasts ``suspend_for`` longer (the
    machine was suspended); the loop is asked to stop once ``until`` is reached."""

    def __init__(
        self,
        start: datetime,
        until: datetime,
        stop: threading.Event,
        suspend_at: datetime | None = None,
        suspend_for: timedelta = timedelta(0),
    ) -> None:
        super().__init__(start)
        self.until, self.stop = until, stop
        self.suspend_at, self.suspend_for = suspend_at, suspend_for

    def sleep(self, seconds: float) -> None:
        super().sleep(seconds)
        if self.suspend_at is not None and self.now() >= self.suspend_at:
            self.advance(seconds=self.suspend_for.total_seconds())
            self.suspend_at = None
        if self.now() >= self.until:
            self.stop.set()


def _loop(cron, tz, start, until, **kw):
    stop = threading.Event()
    last_done = kw.pop("last_done", None)
    clock = MachineClock(start, until, stop, **kw)
    nights: list[tuple[str, int]] = []
    said: list[str] = []

    def night(slot, missed):
        nights.append((clock.now().astimezone(tz).isoformat(), missed))

    count = run_loop(cron, tz, clock, stop, night, last_done=last_done, say=said.append)
    assert count == len(nights)
    return nights, said


def test_one_night_per_day_over_a_week_across_the_spring_change():
    nights, _ = _loop(
        "17 3 * * *",
        BERLIN,
        datetime(2026, 3, 25, 12, tzinfo=BERLIN),
        datetime(2026, 4, 1, 12, tzinfo=BERLIN),
    )
    assert nights == [
        ("2026-03-26T03:17:00+01:00", 0),
        ("2026-03-27T03:17:00+01:00", 0),
        ("2026-03-28T03:17:00+01:00", 0),
        ("2026-03-29T03:17:00+02:00", 0),
        ("2026-03-30T03:17:00+02:00", 0),
        ("2026-03-31T03:17:00+02:00", 0),
        ("2026-04-01T03:17:00+02:00", 0),
    ]


def test_one_night_per_day_over_a_week_with_a_repeated_hour():
    # 01:30 happens twice in New York on 2026-11-01; the night runs once.
    nights, _ = _loop(
        "30 1 * * *",
        NEW_YORK,
        datetime(2026, 10, 28, 12, tzinfo=NEW_YORK),
        datetime(2026, 11, 4, 12, tzinfo=NEW_YORK),
    )
    days = [n[0][:10] for n in nights]
    assert days == [
        "2026-10-29",
        "2026-10-30",
        "2026-10-31",
        "2026-11-01",
        "2026-11-02",
        "2026-11-03",
        "2026-11-04",
    ]
    assert nights[3] == ("2026-11-01T01:30:00-04:00", 0)


def test_three_days_asleep_catch_up_one_night_not_three():
    nights, said = _loop(
        "17 3 * * *",
        BERLIN,
        datetime(2026, 5, 1, 12, tzinfo=BERLIN),
        datetime(2026, 5, 7, 12, tzinfo=BERLIN),
        suspend_at=datetime(2026, 5, 2, 5, 0, tzinfo=BERLIN),
        suspend_for=timedelta(days=3),
    )
    assert nights == [
        ("2026-05-02T03:17:00+02:00", 0),
        # the nap that began at 04:57 on the 2nd ended at 05:02 on the 5th: ONE night for the
        # 3rd, the 4th and the 5th, at once
        ("2026-05-05T05:02:00+02:00", 2),
        ("2026-05-06T03:17:00+02:00", 0),
        ("2026-05-07T03:17:00+02:00", 0),
    ]
    assert (
        "catching up: one night now for 3 missed run times (the last was 2026-05-05T03:17+02:00)"
        in said
    )


def test_a_restart_after_days_down_catches_up_once_then_keeps_time():
    start = datetime(2026, 5, 5, 9, 30, tzinfo=BERLIN)
    nights, _ = _loop(
        "17 3 * * *",
        BERLIN,
        start,
        datetime(2026, 5, 6, 12, tzinfo=BERLIN),
        last_done=datetime(2026, 5, 2, 3, 17, tzinfo=BERLIN),
    )
    assert nights == [("2026-05-05T09:30:00+02:00", 2), ("2026-05-06T03:17:00+02:00", 0)]


def test_a_first_start_waits_for_the_next_run_time():
    nights, said = _loop(
        "17 3 * * *",
        BERLIN,
        datetime(2026, 5, 5, 9, 30, tzinfo=BERLIN),
        datetime(2026, 5, 6, 12, tzinfo=BERLIN),
    )
    assert nights == [("2026-05-06T03:17:00+02:00", 0)]
    assert said[0] == "next night at 2026-05-06T03:17+02:00"


def test_a_failing_night_does_not_end_the_loop():
    stop = threading.Event()
    clock = MachineClock(
        datetime(2026, 5, 1, 12, tzinfo=timezone.utc),
        datetime(2026, 5, 3, 12, tzinfo=timezone.utc),
        stop,
    )
    calls = []

    def night(slot, missed):
        calls.append(slot)
        raise BackendUnavailable("no backend", hint="log in")

    said: list[str] = []
    assert run_loop("0 4 * * *", timezone.utc, clock, stop, night, say=said.append) == 2
    assert len(calls) == 2
    assert "the night failed: no backend (log in)" in said


def test_a_stop_during_a_nap_ends_the_loop_before_any_night():
    stop = threading.Event()

    class StopsNow(FixedClock):
        def sleep(self, seconds):
            stop.set()  # as the signal handler does

    ran = []
    assert (
        run_loop(
            "17 3 * * *",
            BERLIN,
            StopsNow(datetime(2026, 5, 1, 12, tzinfo=BERLIN)),
            stop,
            lambda s, m: ran.append(s),
        )
        == 0
    )
    assert ran == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_schedule_run_stops_cleanly_on_a_signal(sig, project, subprocess_env, cli, read_line):
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "skillopt_sleep",
            "schedule",
            "run",
            "--at",
            "0 0 1 1 *",
            "--project",
            str(project),
            "--backend",
            "simulated",
        ],
        env=subprocess_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = read_line(proc.stderr)
        assert first.startswith("skillopt-sleep loop: cron '0 0 1 1 *'"), first
        waiting = read_line(proc.stderr)
        assert waiting.startswith("next night at "), waiting
        status = cli("schedule", "status", "--json").json()
        assert status["method"] == "loop" and status["loop"]["pid"] == proc.pid
        assert f"a built-in loop is still running (pid {proc.pid})" in cli("unschedule").out
        proc.send_signal(sig)
        code = proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
        _, rest = proc.communicate(timeout=10)  # waits, and closes its pipes
    assert code == 0, rest
    assert f"skillopt-sleep loop: stopped ({sig.name})" in rest
    assert cli("schedule", "status", "--json").json()["method"] is None
