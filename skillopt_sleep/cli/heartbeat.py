"""A running night's heartbeat: a small JSON file that says what the night is doing.

The night lock says *that* a night runs; ``status`` also wants to say *what* it is doing (its
phase, how far it got, what it spent so far), without asking the night process anything. So
the night publishes its progress to ``<state dir>/night-progress.json``, atomically, at each
phase change and at most every second in between, and removes the file when it ends. A file
whose pid is gone is a night that stopped without finishing (killed, or the machine went
down): its last phase is all that is left of it.

    beat = Heartbeat(path, project=..., tasks=12, started_at=clock.now(), now=clock.now)
    beat.start()
    progress = beat.update  # the night's (phase, advance, total) callback
    ...
    beat.end()
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from ..counting import Usage
from ..errors import StoreError
from ..lock import pid_alive
from ..store.files import atomic_write_text

HEARTBEAT_FILE = "night-progress.json"
FIRST_PHASE = "select"  # what a night does before its first replay


def heartbeat_file(state_dir: Path) -> Path:
    """Where a night publishes its progress: next to the night lock."""
    return Path(state_dir) / HEARTBEAT_FILE


class Spending(Protocol):
    """What the heartbeat reads the spend from: the night's budget."""

    @property
    def total(self) -> Usage: ...


class Beat(BaseModel):
    """One heartbeat as written on disk (a trust boundary: another process wrote it)."""

    model_config = ConfigDict(extra="ignore")

    pid: int
    started_at: datetime
    updated_at: datetime
    project: str
    dry_run: bool = False
    phase: str
    done: int = 0  # of the phase's units (rollouts, or reflection steps)
    total: int = 0
    rollouts: int = 0  # rollouts scored so far this night, every phase
    tasks: int = 0  # the tasks the night was given
    calls: int = 0
    cost_usd: float = 0.0


NightState = Literal["running", "stopped"]


def night_state(beat: Beat, alive: Callable[[int], bool] = pid_alive) -> NightState:
    """Running while its process lives; stopped without finishing once it is gone (a night that
    ends removes its heartbeat)."""
    return "running" if alive(beat.pid) else "stopped"


def read_beat(path: Path) -> Beat | None:
    """The heartbeat at ``path``, or None when there is none (or it cannot be read: a night's
    progress is a courtesy, never a reason for ``status`` to fail)."""
    try:
        return Beat.model_validate_json(Path(path).read_bytes())
    except (OSError, ValidationError, ValueError):
        return None


def advanced(beat: Beat, phase: str, advance: int, total: int) -> Beat:
    """``beat`` after the night's progress callback ``(phase, advance, total)``: ``advance``
    more of ``total`` in ``phase`` (0: the phase starts, or starts over). The edits' tests draw
    concurrently, each announcing ``test edits`` with its own total: a draw that starts before
    the last one ended adds to what is left of it, so ``done`` never passes ``total``."""
    phase = phase or "replay"  # the re-tests of adopted rules replay under no named step
    same = phase == beat.phase
    if not same or advance == 0:
        left = beat.total - beat.done if same and beat.done < beat.total else 0
        done, total = advance, total + left
    else:
        done, total = beat.done + advance, max(total, beat.total)
    scored = beat.rollouts if phase.startswith("reflect") else beat.rollouts + advance
    return beat.model_copy(
        update={"phase": phase, "done": min(done, total), "total": total, "rollouts": scored}
    )


class Heartbeat:
    """Publishes one night's progress to ``path``; :meth:`update` is its progress callback.

    A phase change is written at once; progress within a phase at most every
    ``min_interval_s`` seconds, by a small thread, so a night that stalls on a long call still
    shows everything it did before the stall."""

    def __init__(
        self,
        path: Path,
        *,
        project: str,
        tasks: int,
        started_at: datetime,
        now: Callable[[], datetime],
        dry_run: bool = False,
        min_interval_s: float = 1.0,
    ) -> None:
        self.path = Path(path)
        self._now, self._min_interval_s = now, min_interval_s
        self.beat = Beat(
            pid=os.getpid(),
            started_at=started_at,
            updated_at=started_at,
            project=project,
            dry_run=dry_run,
            phase=FIRST_PHASE,
            tasks=tasks,
        )
        self._spending: Spending | None = None
        self._lock = threading.Lock()  # one writer at a time: the night's thread or the flusher
        self._dirty = False
        self._broken = False
        self._stop = threading.Event()
        self._flusher: threading.Thread | None = None

    def watch(self, spending: Spending) -> None:
        """Read the spend so far from ``spending`` (the night's budget) at each update."""
        self._spending = spending

    def start(self) -> None:
        """Say the night has begun (written at once), and start the flusher."""
        self._write(self.beat)
        self._flusher = threading.Thread(target=self._flush, name="night-heartbeat", daemon=True)
        self._flusher.start()

    def update(self, phase: str, advance: int, total: int) -> None:
        """The night's progress callback (called on the night's own thread)."""
        spent = self._spending.total if self._spending is not None else Usage()
        beat = advanced(self.beat, phase, advance, total).model_copy(
            update={
                "updated_at": self._now(),
                "calls": spent.calls,
                "cost_usd": round(spent.cost_usd, 6),
            }
        )
        new_phase = beat.phase != self.beat.phase or advance == 0
        self.beat = beat
        if new_phase:
            self._write(beat)
        else:
            self._dirty = True

    def end(self) -> None:
        """The night is over: the flusher stops and no heartbeat is left behind."""
        self._stop.set()
        if self._flusher is not None:
            self._flusher.join()
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        except OSError:
            pass  # a file that cannot be removed is shown as stopped once its pid is gone

    def _flush(self) -> None:
        while not self._stop.wait(self._min_interval_s):
            if self._dirty:
                self._write(self.beat)

    def _write(self, beat: Beat) -> None:
        with self._lock:
            self._dirty = False
            if self._broken or self._stop.is_set():
                return
            try:
                atomic_write_text(self.path, beat.model_dump_json(indent=2) + "\n")
            except StoreError:
                self._broken = True  # a full disk or a sandbox: the night goes on unobserved
