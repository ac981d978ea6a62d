"""When nights run: cron expressions evaluated in the user's local time zone, DST-correct.

croniter walks the expression in *wall-clock* time (what the user wrote means "03:17 on the
clock on the wall"); each wall time is then placed on the time line by one explicit rule:

- a wall time the clock skips (spring forward, e.g. 02:30 in Europe/Berlin on the last Sunday of
  March) runs as much later as the clock jumped (03:30), so no night is lost;
- a wall time the clock shows twice (fall back) runs at its first occurrence only, so no night
  runs twice.

croniter's own time-zone mode runs an ambiguous time twice, which is why it is not used.

The same expression in the other schedulers' own calendar languages (systemd's ``OnCalendar=``,
launchd's ``StartCalendarInterval``), which read wall-clock local time as cron does. Cron runs a
job when the day of the month *or* the day of the week matches (when both are restricted);
systemd and launchd match both at once, so that case becomes two calendar entries, one per day
field.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta, timezone, tzinfo
from itertools import product
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from croniter import CroniterBadDateError, croniter

from ..errors import ScheduleError, UsageError

CRON_HINT = "five fields: minute hour day-of-month month day-of-week, e.g. '17 3 * * *'"
# A clock change never moves wall time by more than this; walking back this far before the start
# finds a skipped slot that lands after it.
_MAX_SHIFT = timedelta(hours=3)
_MAX_STEPS = 100_000  # bound on the walk, far above any real expression's slots between two runs
WEEKDAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")
MAX_LAUNCHD_ENTRIES = 500


def cron_from_time(hhmm: str) -> str:
    """``--time 03:17`` as the cron expression ``17 3 * * *``."""
    match = re.fullmatch(r"(\d{1,2}):(\d{2})", hhmm.strip())
    if not match or int(match[1]) > 23 or int(match[2]) > 59:
        raise UsageError(
            f"invalid time {hhmm!r}", hint="give HH:MM on a 24-hour clock, e.g. --time 03:17"
        )
    return f"{int(match[2])} {int(match[1])} * * *"


@functools.lru_cache(maxsize=64)
def validate_cron(expr: str) -> str:
    """The expression normalised to single spaces, or a UsageError naming the fix (checked once
    per expression: the loop reads its run times every nap)."""
    norm = " ".join(expr.split())
    if len(norm.split(" ")) != 5 or not croniter.is_valid(norm):
        raise UsageError(f"invalid cron expression {expr!r}", hint=CRON_HINT)
    try:
        croniter(norm, datetime(2000, 1, 1)).get_next(datetime)
    except CroniterBadDateError as exc:
        raise UsageError(f"cron expression {expr!r} never runs", hint=CRON_HINT) from exc
    return norm


def expand(expr: str) -> list[list[int]]:
    """The five fields as sorted value lists; ``[]`` for a field that is ``*`` (any value).

    Day-of-week uses 0-6 with 0 = Sunday (7 is folded into 0).
    """
    fields, _ = croniter.expand(validate_cron(expr))
    out: list[list[int]] = []
    for index, values in enumerate(fields):
        if values == ["*"]:
            out.append([])
            continue
        ints = sorted({int(v) % 7 if index == 4 else int(v) for v in values})
        out.append(ints)
    return out


def day_variants(dom: list[int], dow: list[int]) -> list[tuple[list[int], list[int]]]:
    """(days of month, days of week) pairs whose union is cron's meaning; [] means any."""
    if dom and dow:
        return [(dom, []), ([], dow)]
    return [(dom, dow)]


def systemd_on_calendar(cron: str) -> list[str]:
    """``OnCalendar=`` values, e.g. ``*-*-* 03:17:00`` or ``Mon,Fri *-*-* 03:17:00``."""
    minute, hour, dom, month, dow = expand(cron)

    def field(values: list[int], width: int = 2) -> str:
        return ",".join(f"{v:0{width}d}" for v in values) if values else "*"

    out = []
    for days, weekdays in day_variants(dom, dow):
        prefix = ",".join(WEEKDAYS[d] for d in weekdays) + " " if weekdays else ""
        out.append(f"{prefix}*-{field(month)}-{field(days)} {field(hour)}:{field(minute)}:00")
    return out


def launchd_intervals(cron: str) -> list[dict[str, int]]:
    """``StartCalendarInterval`` dicts (absent key = any value)."""
    minute, hour, dom, month, dow = expand(cron)
    out: list[dict[str, int]] = []
    for days, weekdays in day_variants(dom, dow):
        keys = [
            ("Minute", minute),
            ("Hour", hour),
            ("Day", days),
            ("Month", month),
            ("Weekday", weekdays),
        ]
        fixed = [(k, v) for k, v in keys if v]
        for combo in product(*(values for _, values in fixed)):
            out.append({k: value for (k, _), value in zip(fixed, combo, strict=True)})
    if len(out) > MAX_LAUNCHD_ENTRIES:
        raise ScheduleError(
            f"cron '{cron}' needs {len(out)} launchd calendar entries",
            hint="choose a simpler --at, e.g. once a day",
        )
    return out


def place(wall: datetime, tz: tzinfo) -> datetime:
    """A naive wall time in ``tz`` as an aware instant, by the rules in the module docstring."""
    first = wall.replace(tzinfo=tz, fold=0)
    # Going through UTC moves a skipped wall time forward by the size of the gap.
    return first.astimezone(timezone.utc).astimezone(tz)


def iter_runs(expr: str, after: datetime, tz: tzinfo) -> Iterator[datetime]:
    """Run times strictly after ``after``, increasing, aware in ``tz``. Endless; bounded by caller."""
    if after.tzinfo is None:
        raise ValueError("iter_runs needs an aware datetime")
    start = after.astimezone(tz).replace(tzinfo=None) - _MAX_SHIFT
    walk = croniter(validate_cron(expr), start)
    last = after
    misses = 0
    while misses < _MAX_STEPS:
        candidate = place(walk.get_next(datetime), tz)
        if candidate > last:
            misses = 0
            last = candidate
            yield candidate
        else:
            misses += 1


def next_runs(expr: str, after: datetime, tz: tzinfo, n: int = 3) -> list[datetime]:
    """The next ``n`` run times strictly after ``after``."""
    runs = iter_runs(expr, after, tz)
    return [next(runs) for _ in range(n)]


def runs_between(
    expr: str, start: datetime, end: datetime, tz: tzinfo, limit: int = 1000
) -> list[datetime]:
    """Run times in ``(start, end]`` (at most ``limit``: enough to count missed nights)."""
    out: list[datetime] = []
    for when in iter_runs(expr, start, tz):
        if when > end or len(out) >= limit:
            break
        out.append(when)
    return out


def describe(expr: str, tz: tzinfo) -> str:
    """Words for a user: ``every day at 03:17 (Europe/Berlin)`` or ``cron '*/30 * * * *' (UTC)``."""
    minute, hour, dom, month, dow = expand(expr)
    zone = zone_name(tz)
    if len(minute) == 1 and len(hour) == 1 and not dom and not month and not dow:
        return f"every day at {hour[0]:02d}:{minute[0]:02d} ({zone})"
    return f"cron '{validate_cron(expr)}' ({zone})"


def zone_name(tz: tzinfo) -> str:
    key = getattr(tz, "key", None)
    return str(key) if key else (tz.tzname(datetime.now(timezone.utc)) or "local time")


def local_timezone(env: Mapping[str, str], localtime: Path = Path("/etc/localtime")) -> tzinfo:
    """The user's time zone: ``$TZ`` if it names a zone, else the system's, DST rules included."""
    name = env.get("TZ", "").lstrip(":")
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass  # a POSIX TZ string such as "CET-1CEST": the C library's rules below apply it
    try:
        target = str(localtime.resolve())
    except OSError:
        target = ""
    if "zoneinfo/" in target:
        try:
            return ZoneInfo(target.split("zoneinfo/", 1)[1])
        except (ZoneInfoNotFoundError, ValueError):
            pass
    from dateutil.tz import tzlocal  # the C library's local time, DST-aware (macOS, Windows)

    return tzlocal()
