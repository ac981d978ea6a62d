"""``schedule run``: the built-in loop, for machines without a usable OS scheduler.

croniter gives the next time; the loop naps towards it in steps of at most ``MAX_NAP_S`` and
re-reads the wall clock after each, because a monotonic sleep does not count the hours a laptop
spent suspended. When it finds run times it has not run yet, it runs ONE night for the latest of
them, however many were missed, and says how many it skipped. A stop request (SIGTERM/SIGINT)
wakes a nap at once and ends the loop cleanly.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone, tzinfo

from ..clock import Clock
from ..errors import SleepError
from .timing import next_runs, runs_between

MAX_NAP_S = 300.0
# (the run time this night is for, how many earlier run times were missed and skipped)
NightCall = Callable[[datetime, int], None]


class StoppableClock:
    """The real clock, whose ``sleep`` returns early when ``stop`` is set."""

    def __init__(self, stop: threading.Event) -> None:
        self.stop = stop

    def now(self) -> datetime:
        return datetime.now(timezone.utc)

    def sleep(self, seconds: float) -> None:
        self.stop.wait(max(0.0, seconds))


@contextmanager
def stop_on_signals(stop: threading.Event) -> Iterator[list[str]]:
    """Set ``stop`` on SIGTERM or SIGINT for the block; yields the names of signals received."""
    received: list[str] = []

    def handler(signum: int, _frame: object) -> None:
        received.append(signal.Signals(signum).name)
        stop.set()

    wanted = [signal.SIGINT] + ([signal.SIGTERM] if hasattr(signal, "SIGTERM") else [])
    previous = {sig: signal.signal(sig, handler) for sig in wanted}
    try:
        yield received
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def run_loop(
    cron: str,
    tz: tzinfo,
    clock: Clock,
    stop: threading.Event,
    night: NightCall,
    *,
    last_done: datetime | None = None,
    say: Callable[[str], None] = lambda _text: None,
    max_nap_s: float = MAX_NAP_S,
) -> int:
    """Run nights at the times of ``cron`` until ``stop`` is set; returns how many ran.

    ``last_done`` is when the last night ran (from the store): run times missed since then are
    caught up once. Without it the loop waits for the next run time.
    """
    last = last_done or clock.now()
    nights = 0
    announced: datetime | None = None
    # the next run time after ``seen``: until the clock reaches it (or goes back before ``seen``)
    # nothing is due, and a nap needs no new look at the cron expression
    upcoming: datetime | None = None
    seen: datetime | None = None
    while not stop.is_set():
        now = clock.now()
        if upcoming is not None and seen is not None and seen <= now < upcoming:
            clock.sleep(min(max_nap_s, (upcoming - now).total_seconds()))
            continue
        due = runs_between(cron, last, now, tz)
        if due:
            if len(due) > 1:
                say(
                    f"catching up: one night now for {len(due)} missed run times "
                    f"(the last was {due[-1].isoformat(timespec='minutes')})"
                )
            try:
                night(due[-1], len(due) - 1)
            except SleepError as exc:
                say(f"the night failed: {exc.one_line()}")
            nights += 1
            last = due[-1]
            upcoming = None
            continue
        upcoming, seen = next_runs(cron, now, tz, 1)[0], now
        if upcoming != announced:
            say(f"next night at {upcoming.isoformat(timespec='minutes')}")
            announced = upcoming
        clock.sleep(min(max_nap_s, max(0.0, (upcoming - now).total_seconds())))
    return nights
