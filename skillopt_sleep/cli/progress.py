"""Progress on stderr for long work: live bars with the current step, elapsed time and an ETA on
a terminal; one plain line a step where the terminal is `TERM=dumb`; nothing under cron, --quiet
or --json. Whatever is shown, a night also publishes its progress to its heartbeat file, which
`status` reads."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from .context import Ctx
from .heartbeat import Heartbeat, heartbeat_file

Update = Callable[[str, int, int], None]


@contextmanager
def night_progress(ctx: Ctx) -> Iterator[Update | None]:
    """Yields a ``progress(phase, advance, total)`` callback for the night pipeline (a call with
    ``advance=0`` announces a step before its first result)."""
    if not ctx.interactive:
        yield None
        return
    if ctx.env.get("TERM") == "dumb":
        yield plain_progress(ctx.err)
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bars: dict[str, object] = {}
    columns = (
        SpinnerColumn(),
        TextColumn("{task.description:<16}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(file=ctx.err), transient=False) as progress:

        def update(phase: str, advance: int, total: int) -> None:
            if phase not in bars:
                bars[phase] = progress.add_task(phase, total=total)
            elif advance == 0:  # the same step again (another round): start it over
                progress.reset(bars[phase], total=total)  # type: ignore[arg-type]
            progress.advance(bars[phase], advance)  # type: ignore[arg-type]

        yield update


def plain_progress(out: TextIO, clock: Callable[[], float] = time.monotonic) -> Update:
    """One line when a step starts and when it ends, with the time it took and, part way, an
    estimate of the time left; no escape codes, no redrawing."""
    started: dict[str, float] = {}
    done: dict[str, int] = {}

    def update(phase: str, advance: int, total: int) -> None:
        now = clock()
        if phase not in started or advance == 0:  # a new step, or the same one again
            started[phase], done[phase] = now, 0
            out.write(f"{phase}: started, {total} to do\n")
        done[phase] += advance
        if advance and done[phase] >= total:
            out.write(f"{phase}: done {done[phase]}/{total} in {now - started[phase]:.0f}s\n")
        elif advance and done[phase] * 4 // total != (done[phase] - advance) * 4 // total:
            left = (now - started[phase]) / done[phase] * (total - done[phase])
            out.write(f"{phase}: {done[phase]}/{total}, ETA {left:.0f}s\n")
        out.flush()

    return update


@contextmanager
def published_night(ctx: Ctx, project: Path, *, tasks: int, dry_run: bool) -> Iterator[Heartbeat]:
    """The night's heartbeat for ``status`` to read while it runs: published from the start,
    under cron and ``--quiet`` too, and removed however the night ends."""
    beat = Heartbeat(
        heartbeat_file(ctx.paths.state_dir),
        project=str(project),
        tasks=tasks,
        started_at=ctx.clock.now(),
        now=ctx.clock.now,
        dry_run=dry_run,
    )
    beat.start()
    try:
        yield beat
    finally:
        beat.end()


def shown_and_published(shown: Update | None, beat: Heartbeat) -> Update:
    """One progress callback for the night: the bars on the terminal, and the heartbeat."""

    def update(phase: str, advance: int, total: int) -> None:
        beat.update(phase, advance, total)
        if shown is not None:
            shown(phase, advance, total)

    return update
