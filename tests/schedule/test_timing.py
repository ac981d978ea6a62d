"""Next-run times: local wall-clock time, across daylight-saving changes, none lost, none doubled."""

from __future__ import annotations

import itertools
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from skillopt_sleep.errors import UsageError
from skillopt_sleep.schedule.timing import (
    cron_from_time,
    describe,
    local_timezone,
    next_runs,
    runs_between,
    validate_cron,
)

# (zone, the day clocks spring forward, the day they fall back) in 2026
TRANSITIONS = [
    ("Europe/Berlin", date(2026, 3, 29), date(2026, 10, 25)),
    ("America/New_York", date(2026, 3, 8), date(2026, 11, 1)),
]


def _fortnight(zone: str, around: date, cron: str) -> list[datetime]:
    tz = ZoneInfo(zone)
    start = datetime.combine(around - timedelta(days=7), datetime.min.time(), tz)
    return next_runs(cron, start, tz, 14)


@pytest.mark.parametrize("zone,spring,fall", TRANSITIONS)
@pytest.mark.parametrize("cron", ["17 3 * * *", "30 2 * * *", "30 1 * * *", "0 2 * * *"])
def test_one_run_per_local_day_across_both_changes(zone, spring, fall, cron):
    for around in (spring, fall):
        runs = _fortnight(zone, around, cron)
        days = [r.date() for r in runs]
        first = around - timedelta(days=7)
        assert days == [first + timedelta(days=i) for i in range(14)], (
            f"{zone} {cron} near {around}"
        )
        gaps = [b - a for a, b in itertools.pairwise(runs)]
        assert all(timedelta(hours=22) <= g <= timedelta(hours=26) for g in gaps)


@pytest.mark.parametrize("zone,spring,fall", TRANSITIONS)
def test_default_time_is_the_same_wall_time_every_day(zone, spring, fall):
    for around in (spring, fall):
        runs = _fortnight(zone, around, "17 3 * * *")
        assert {(r.hour, r.minute) for r in runs} == {(3, 17)}


def test_a_skipped_wall_time_runs_as_much_later_as_the_clock_jumped():
    berlin = ZoneInfo("Europe/Berlin")
    runs = next_runs("30 2 * * *", datetime(2026, 3, 28, 12, tzinfo=berlin), berlin, 3)
    assert [r.isoformat() for r in runs] == [
        "2026-03-29T03:30:00+02:00",  # 02:30 does not exist that night in Berlin
        "2026-03-30T02:30:00+02:00",
        "2026-03-31T02:30:00+02:00",
    ]
    new_york = ZoneInfo("America/New_York")
    runs = next_runs("30 2 * * *", datetime(2026, 3, 7, 12, tzinfo=new_york), new_york, 2)
    assert runs[0].isoformat() == "2026-03-08T03:30:00-04:00"


def test_a_repeated_wall_time_runs_once_at_its_first_occurrence():
    berlin = ZoneInfo("Europe/Berlin")
    runs = next_runs("30 2 * * *", datetime(2026, 10, 24, 12, tzinfo=berlin), berlin, 2)
    assert [r.isoformat() for r in runs] == [
        "2026-10-25T02:30:00+02:00",
        "2026-10-26T02:30:00+01:00",
    ]
    new_york = ZoneInfo("America/New_York")
    runs = next_runs("30 1 * * *", datetime(2026, 10, 31, 12, tzinfo=new_york), new_york, 2)
    assert [r.isoformat() for r in runs] == [
        "2026-11-01T01:30:00-04:00",
        "2026-11-02T01:30:00-05:00",
    ]


def test_asking_during_the_repeated_hour_does_not_run_it_again():
    berlin = ZoneInfo("Europe/Berlin")
    # 02:40 on the second pass (CET, fold=1): 02:30 already ran on the first pass.
    second_pass = datetime(2026, 10, 25, 1, 40, tzinfo=timezone.utc).astimezone(berlin)
    assert second_pass.utcoffset() == timedelta(hours=1)
    assert (
        next_runs("30 2 * * *", second_pass, berlin, 1)[0].isoformat()
        == "2026-10-26T02:30:00+01:00"
    )


def test_asking_just_after_a_spring_jump_still_finds_that_nights_run():
    berlin = ZoneInfo("Europe/Berlin")
    just_after = datetime(2026, 3, 29, 3, 10, tzinfo=berlin)
    assert (
        next_runs("30 2 * * *", just_after, berlin, 1)[0].isoformat() == "2026-03-29T03:30:00+02:00"
    )


def test_runs_between_counts_missed_nights():
    tz = ZoneInfo("Europe/Berlin")
    start = datetime(2026, 5, 1, 12, tzinfo=tz)
    missed = runs_between("17 3 * * *", start, start + timedelta(days=3), tz)
    assert [m.day for m in missed] == [2, 3, 4]


def test_time_and_cron_validation_name_the_fix():
    assert cron_from_time("03:07") == "7 3 * * *"
    assert validate_cron("  17   3 * * * ") == "17 3 * * *"
    with pytest.raises(UsageError) as info:
        cron_from_time("25:00")
    assert (
        info.value.one_line()
        == "invalid time '25:00' (give HH:MM on a 24-hour clock, e.g. --time 03:17)"
    )
    for bad in ("61 3 * * *", "17 3 * *", "17 3 * * * *", "every night"):
        with pytest.raises(UsageError) as info:
            validate_cron(bad)
        assert "minute hour day-of-month month day-of-week" in info.value.one_line()
    with pytest.raises(UsageError, match="never runs"):
        validate_cron("0 3 30 2 *")


def test_describe_says_it_in_words():
    tz = ZoneInfo("Europe/Berlin")
    assert describe("17 3 * * *", tz) == "every day at 03:17 (Europe/Berlin)"
    assert describe("0 3 * * 1-5", tz) == "cron '0 3 * * 1-5' (Europe/Berlin)"


def test_local_timezone_from_tz_or_the_system_link(tmp_path):
    assert str(local_timezone({"TZ": "America/New_York"})) == "America/New_York"
    link = tmp_path / "localtime"
    link.symlink_to("/usr/share/zoneinfo/Europe/Berlin")
    assert str(local_timezone({}, localtime=link)) == "Europe/Berlin"
    fallback = local_timezone({}, localtime=tmp_path / "missing")
    assert fallback.utcoffset(datetime(2026, 1, 1)) is not None
