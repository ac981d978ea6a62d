"""Progress bars on stderr for long work (only on a terminal; silent under cron and --json)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .context import Ctx


@contextmanager
def night_progress(ctx: Ctx) -> Iterator[object]:
    """Yields a ``progress(phase, advance, total)`` callback for the night pipeline."""
    if not ctx.interactive:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bars: dict[str, object] = {}
    with Progress(TextColumn("{task.description:<16}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=Console(file=ctx.err), transient=False) as progress:

        def update(phase: str, advance: int, total: int) -> None:
            if phase not in bars:
                bars[phase] = progress.add_task(phase, total=total)
            progress.advance(bars[phase], advance)  # type: ignore[arg-type]

        yield update
