"""Finish or undo an adoption a crash interrupted, before a command looks at the nights."""

from __future__ import annotations

from ..errors import StoreError
from ..review.backup import read_journal, recover
from .context import Ctx


def repair_interrupted(ctx: Ctx) -> str | None:
    """What was repaired, or None. Only a journal left by an interrupted adoption needs a write:
    without one nothing is opened for writing, and where the store may not be written (a
    read-only sandbox) the repair waits for the next command that can write."""
    if read_journal(ctx.read_paths) is None:
        return None
    try:
        return recover(ctx.store, ctx.paths, ctx.clock)
    except StoreError:
        return None
