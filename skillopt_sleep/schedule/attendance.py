"""Did the nightly job run? Each scheduled time of the last weeks, and what became of it.

Pure: from what ``schedule`` installed (its cron and time zone), the runs the job recorded, the
nights in the history and the current time. A scheduled time with a run that started within
``CATCH_UP`` after it was kept; one whose run was skipped or failed says why (another night held
the lock, a backend's login expired, ...); one with no run at all was missed while the machine
was asleep or off (or the scheduler did not start the job). A night that stopped at its budget
ran, but is named too. Warnings follow several nights in a row that learned nothing (a night
stopped by an outage or its budget is named for that instead, and one whose edits wait for
evidence for what they wait for), and proposals that were staged and never reviewed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import takewhile
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..store import NightRow
from .state import Installation, LastRun
from .timing import runs_between

LOOKBACK = timedelta(days=14)
CATCH_UP = timedelta(hours=12)  # a systemd timer or launchd job runs a missed night on wake-up
STREAK = 3  # nights in a row that learned nothing before a warning
UNREVIEWED = 2  # staged proposals in a row nobody reviewed before a warning


@dataclass(frozen=True)
class Slot:
    """One scheduled time and what became of it: ``ran``, ``budget``, ``skipped``, ``failed`` or ``missed``."""

    at: datetime
    status: str
    reason: str = ""


def _zone(name: str) -> ZoneInfo | None:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _why(run: LastRun) -> str:
    text = run.message or "; ".join(p.message for p in run.projects if p.message)
    lowered = text.lower()
    if "lock" in lowered or "another night" in lowered:
        return f"another night held the lock ({text})"
    if any(w in lowered for w in ("auth", "log in", "login", "api key", "credential", "expired")):
        return f"a backend's login failed ({text})"
    return text or run.status


def slots(installed: Installation, runs: Sequence[LastRun], now: datetime) -> list[Slot]:
    """Every scheduled time of the last ``LOOKBACK`` (up to now less ``CATCH_UP``), oldest first."""
    tz = _zone(installed.timezone)
    if tz is None:
        return []
    start = max(installed.installed_at, now - LOOKBACK)
    out = []
    for at in runs_between(installed.cron, start, now - CATCH_UP, tz):
        run = next(
            (
                r
                for r in runs
                if r.trigger != "once"
                and at - timedelta(minutes=5) <= r.started_at <= at + CATCH_UP
            ),
            None,
        )
        if run is None:
            out.append(
                Slot(
                    at,
                    "missed",
                    "no run was recorded: the machine was asleep or off, or the "
                    "scheduler did not start the job",
                )
            )
        elif run.status in ("skipped", "failed", "interrupted"):
            out.append(Slot(at, run.status if run.status != "interrupted" else "failed", _why(run)))
        elif any(p.decision == "budget_exhausted" for p in run.projects):
            out.append(Slot(at, "budget", "it ran, and stopped at its budget"))
        else:
            out.append(Slot(at, "ran"))
    return out


def _ago(then: datetime, now: datetime) -> str:
    hours = (now - then).total_seconds() / 3600
    if hours < 1:
        return "less than an hour ago"
    return f"{hours:.0f} hours ago" if hours < 48 else f"{hours / 24:.0f} days ago"


def last_night_line(nights: Sequence[NightRow], now: datetime, state: str | None = None) -> str:
    """When the last night ran and what came of it (``state``: what became of its edits when
    its state alone does not say it, ``partly adopted (edit 2 of 3)``)."""
    if not nights:
        return ""
    n = nights[0]
    started = datetime.fromisoformat(n.started_at)
    s = n.summary
    accepted = sum(ev.verdict == "accepted" for ev in s.evidence)
    what = f"{accepted} edit(s) accepted" if s.evidence else s.decision.replace("_", " ")
    state = state or {
        "staged": "staged for review",
        "adopted": "adopted",
        "rejected": "rejected",
        "superseded": "superseded",
        "rolled_back": "rolled back",
    }.get(n.state, "nothing staged")
    return f"last night: {started:%Y-%m-%d %H:%M} UTC ({_ago(started, now)}): {what}, {state}"


def _learned(n: NightRow) -> bool:
    return any(ev.verdict == "accepted" for ev in n.summary.evidence) or bool(n.summary.edits)


def _streaks(nights: Sequence[NightRow], *, budget_said: bool) -> list[str]:
    """Nights in a row that learned nothing, by why (``nights`` newest first). A night that ended
    in an outage (the backend answered nothing) or at its budget was stopped before it could
    learn: no evidence, not a sign that more tasks are needed, so it is named for what stopped it
    and not counted among the nights that learned nothing."""
    since = list(takewhile(lambda n: not _learned(n), nights))
    out = []
    outages = list(takewhile(lambda n: n.summary.decision == "outage", since))
    if len(outages) >= STREAK:
        target = outages[0].summary.target
        out.append(
            f"! the last {len(outages)} nights ended in an outage: the model backend"
            f"{f' {target}' if target else ''} answered nothing, so they are no evidence and "
            "their tasks still wait; check the backend with `skillopt-sleep doctor`, then run a "
            "night again (`skillopt-sleep run`)"
        )
    stopped = list(takewhile(lambda n: n.summary.decision == "budget_exhausted", since))
    if len(stopped) >= STREAK and not budget_said:
        out.append(
            f"! the last {len(stopped)} nights stopped at the budget before they could learn: "
            "raise [budget] in the config (`skillopt-sleep config path`), or let fewer tasks "
            "into a night"
        )
    tried = [n for n in since if n.summary.decision not in ("outage", "budget_exhausted")]
    held = [n for n in tried if n.summary.waiting]  # their edits wait: they are what is pending
    idle = [n for n in tried if not n.summary.waiting]
    if len(idle) >= STREAK:
        which = (
            f"the last {len(idle)}"
            if len(idle) == len(since)
            else f"{len(idle)} of the last {len(since)}"
        )
        out.append(
            f"! {which} nights learned nothing: log more tasks of the kinds you correct "
            "(`skillopt-sleep tasks list`), or look at their reports"
        )
    if len(held) >= STREAK:
        out.append(_held_line(held, len(since)))
    return out


def _held_line(held: Sequence[NightRow], streak: int) -> str:
    """Nights that staged nothing new while edits waited for evidence (the optimizer proposing
    them again, merged into their wait): what the newest of them waits for."""
    which = f"the last {len(held)}" if len(held) == streak else f"{len(held)} of the last {streak}"
    waiting = held[0].summary.waiting
    edits = f"{len(waiting)} edit{'s' if len(waiting) > 1 else ''}"
    needs = sorted({w.needs for w in waiting if w.needs})
    what = f" ({'; '.join(needs)})" if needs else ""
    return (
        f"! {which} nights staged nothing new: {edits} "
        f"{'wait' if len(waiting) > 1 else 'waits'} for evidence{what}; the next night that "
        "has it retests them first (`skillopt-sleep status` lists them)"
    )


def warnings(nights: Sequence[NightRow], schedule: Sequence[Slot]) -> list[str]:
    """What the user should hear about the nights (``nights`` newest first)."""
    out = []
    missed = [s for s in schedule if s.status in ("missed", "skipped", "failed")]
    for slot in missed[-5:]:
        out.append(f"! scheduled night {slot.at:%Y-%m-%d %H:%M %Z} {slot.status}: {slot.reason}")
    budget = [s for s in schedule if s.status == "budget"]
    if budget:
        out.append(
            f"! {len(budget)} scheduled night(s) stopped at the budget: raise [budget] in the "
            "config (`skillopt-sleep config path`), or let fewer tasks into a night"
        )
    out += _streaks(nights, budget_said=bool(budget))
    unreviewed = 0
    for n in nights:
        if n.state not in ("staged", "superseded"):
            break
        unreviewed += 1
    if unreviewed >= UNREVIEWED:
        out.append(
            f"! {unreviewed} proposals in a row were staged and not reviewed: "
            "`skillopt-sleep review`, then `adopt` or `reject`"
        )
    return out
