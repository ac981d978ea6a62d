"""The running night as ``status`` shows it, and ``status --watch``, which follows it to its end.

Everything here is read from the night's heartbeat file (see :mod:`..heartbeat`) and, once the
night is over, from the store: the watcher never talks to the night's process.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from ..models import NightSummary
from ..store import NightRow
from .context import Ctx, to_json
from .heartbeat import Beat, NightState, night_state, read_beat
from .terminal import printable

CLEAR_LINE = "\r\x1b[K"


def summary_line(s: NightSummary) -> str:
    """One line for a night that ended (here, not with the night: `status` must not import it)."""
    edits = f" (edits {s.tally.line()})" if s.evidence else ""
    return f"night {s.night_id}: {s.decision}{edits} ({s.calls} calls, {s.spent_usd()}) {s.reason}".strip()


def _when(moment: datetime) -> str:
    return moment.isoformat()[:16].replace("T", " ")


def night_payload(beat: Beat, state: NightState) -> dict[str, Any]:
    """The running (or stopped) night for ``status --json``."""
    return dict(beat.model_dump(mode="json"), state=state)


def progress_text(beat: Beat) -> str:
    """Where the night is: its phase and how far in, the rollouts done, what it spent so far."""
    return (
        f"{beat.phase} {beat.done}/{beat.total}; {beat.rollouts} rollouts done, {beat.tasks} "
        f"tasks in the night; {beat.calls} calls, ${beat.cost_usd:.4f} so far"
    )


def night_lines(beat: Beat, state: NightState, now: datetime) -> list[str]:
    """Two lines for ``status``: who runs the night, and where it is."""
    dry = " (dry run)" if beat.dry_run else ""
    if state == "stopped":
        stopped = (
            f"! a night stopped without finishing{dry}: pid {beat.pid} for {beat.project}, "
            f"started {_when(beat.started_at)}, last seen {_when(beat.updated_at)} at "
            f"{progress_text(beat)} (`skillopt-sleep run` runs it again, reusing the replays "
            "it cached)"
        )
        return [stopped]
    ago = max(0, int((now - beat.updated_at).total_seconds()))
    head = (
        f"night running{dry}: pid {beat.pid} for {beat.project}, started {_when(beat.started_at)}"
    )
    where = (
        f"  {progress_text(beat)} (updated {ago}s ago; `skillopt-sleep status --watch` follows it)"
    )
    return [head, where]


def current(path: Path) -> tuple[Beat, NightState] | None:
    """The night the heartbeat at ``path`` tells of, and whether it still runs."""
    beat = read_beat(path)
    return None if beat is None else (beat, night_state(beat))


class Watch:
    """``status --watch``: one line per change (redrawn in place on a terminal) until the night
    ends, then the night's result."""

    def __init__(self, ctx: Ctx, path: Path, interval_s: float) -> None:
        self.ctx, self.path, self.interval_s = ctx, path, interval_s
        self.redraw = not ctx.json and bool(getattr(ctx.out, "isatty", lambda: False)())
        self._last = ""

    def run(self) -> int:
        found = current(self.path)
        if found is None or found[1] == "stopped":
            stopped = night_lines(*found, self.ctx.clock.now()) if found else []
            self._event("none", found[0] if found else None, None, "no night is running", stopped)
            return 0
        first = found[0]
        try:
            while True:
                found = current(self.path)
                if found is None or found[0].pid != first.pid:
                    return self._ended(first)
                beat, state = found
                if state == "stopped":
                    self._event(
                        "stopped", beat, None, "", night_lines(beat, state, beat.updated_at)
                    )
                    return 0
                self._show(beat)
                self.ctx.clock.sleep(self.interval_s)
        except KeyboardInterrupt:
            self._finish_line()
            self.ctx.err.write(f"stopped watching; the night goes on (pid {first.pid})\n")
            return 0

    def _show(self, beat: Beat) -> None:
        line = f"night pid {beat.pid}: {progress_text(beat)}"
        if line == self._last:
            return
        self._last = line
        if self.ctx.json:
            self._json_line("running", beat, None)
        elif self.redraw:
            self.ctx.out.write(CLEAR_LINE + printable(line))
            self.ctx.out.flush()
        else:
            self.ctx.out.write(printable(line) + "\n")
            self.ctx.out.flush()

    def _ended(self, beat: Beat) -> int:
        row = _recorded(self.ctx, beat)
        if row is None:
            text = f"the night ended (pid {beat.pid}) without recording a result"
        else:
            text = f"the night ended: {summary_line(row.summary)}"
        self._event("ended", None, row, text, [])
        return 0

    def _event(
        self, state: str, beat: Beat | None, row: NightRow | None, text: str, more: list[str]
    ) -> None:
        self._finish_line()
        if self.ctx.json:
            self._json_line(state, beat, row)
            return
        for line in [text, *more]:
            if line:
                self.ctx.out.write(printable(line) + "\n")

    def _json_line(self, state: str, beat: Beat | None, row: NightRow | None) -> None:
        payload = {
            "state": state,
            "night": None if beat is None else beat.model_dump(mode="json"),
            "summary": None if row is None else json.loads(to_json(row.summary)),
        }
        self.ctx.out.write(json.dumps(payload, sort_keys=True) + "\n")
        self.ctx.out.flush()

    def _finish_line(self) -> None:
        if self.redraw and self._last:
            self.ctx.out.write("\n")
            self._last = ""


def _recorded(ctx: Ctx, beat: Beat) -> NightRow | None:
    """The night the watched process recorded, if it recorded one."""
    for row in ctx.read_store.nights(project=beat.project, limit=1):
        if row.summary.started_at >= beat.started_at:
            return row
    return None
