"""Logs of scheduled runs: one file per run, the newest ``KEEP_RUNS`` kept; secrets redacted.

The scheduler's own capture of the job's output (``job-output.log``) is rotated by size, since
the OS scheduler, not the job, holds it open.
"""

from __future__ import annotations

from pathlib import Path

from ..clock import Clock
from ..redact import redact

KEEP_RUNS = 30
OUTPUT_LOG_MAX_BYTES = 1_000_000
OUTPUT_LOG_KEEP = 3
PREFIX = "night-"


class RunLog:
    """A log file for one run. ``write`` stamps, redacts and flushes every line."""

    def __init__(self, log_dir: Path, clock: Clock, *, keep: int = KEEP_RUNS) -> None:
        self.clock = clock
        log_dir.mkdir(parents=True, exist_ok=True)
        stamp = clock.now().strftime("%Y%m%d-%H%M%S")
        self.path = _unique(log_dir / f"{PREFIX}{stamp}.log")
        self.path.touch()
        prune_runs(log_dir, keep)
        rotate_by_size(log_dir / "job-output.log")

    def write(self, text: str) -> None:
        stamp = self.clock.now().isoformat(timespec="seconds")
        lines = "".join(f"{stamp} {line}\n" for line in redact(text).splitlines() or [""])
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(lines)


def _unique(path: Path) -> Path:
    n = 1
    candidate = path
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
    return candidate


def run_logs(log_dir: Path) -> list[Path]:
    """Run logs, oldest first (their names sort by the time they were started)."""
    return sorted(log_dir.glob(f"{PREFIX}*.log"))


def prune_runs(log_dir: Path, keep: int) -> None:
    for old in run_logs(log_dir)[:-keep] if keep > 0 else []:
        old.unlink(missing_ok=True)


def rotate_by_size(
    path: Path, max_bytes: int = OUTPUT_LOG_MAX_BYTES, keep: int = OUTPUT_LOG_KEEP
) -> bool:
    """``path`` -> ``path.1`` -> ... -> ``path.<keep>`` when it grew past ``max_bytes``."""
    try:
        if path.stat().st_size <= max_bytes:
            return False
    except FileNotFoundError:
        return False
    for n in range(keep - 1, 0, -1):
        older = path.with_name(f"{path.name}.{n}")
        if older.exists():
            older.replace(path.with_name(f"{path.name}.{n + 1}"))
    path.replace(path.with_name(f"{path.name}.1"))
    return True
