"""A cron expression in the other schedulers' own calendar languages.

All of them read wall-clock local time, as cron does. Cron runs a job when the day of the month
*or* the day of the week matches (when both are restricted); systemd and launchd match both at
once, so that case becomes two calendar entries, one per day field.
"""

from __future__ import annotations

from itertools import product

from ..errors import ScheduleError
from .timing import expand

WEEKDAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")
MAX_LAUNCHD_ENTRIES = 500


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
