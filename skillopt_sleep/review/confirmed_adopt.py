"""``auto_adopt`` of a night with unconfirmed edits: its confirmed edits only.

An unconfirmed edit (its night could not check it on unseen tasks of its kind, or on any other
task) is never adopted without the user. Holding the whole night back for it would hold back the
edits that passed every check too, so those are adopted alone, recomposed from the night's base
text as ``adopt 1 3`` would; the unconfirmed ones wait for the evidence and are retested first by
the next night that has it. A night whose every edit is unconfirmed stays staged for review.
"""

from __future__ import annotations

from ..clock import Clock
from ..errors import InputError, LockedError, ProposalError, StoreError
from ..models import unconfirmed_words
from ..paths import Paths
from ..settings import FilesSettings
from ..store import Store
from .adopt import adopt, auto_adopt
from .edit_choice import edits_phrase
from .proposals import load_staged
from .recompose import recompose


def auto_adopt_confirmed(
    store: Store, paths: Paths, night_id: str, clock: Clock, files: FilesSettings
) -> None:
    """Adopt what ``auto_adopt`` may of a night just staged, and leave a notice either way."""
    row = store.night(night_id)
    if row is None or row.state != "staged":
        return
    edits = list(enumerate(row.summary.edits, start=1))
    held = [(n, gaps) for n, e in edits if (gaps := row.summary.unconfirmed(e))]
    if not held:
        auto_adopt(store, paths, night_id, clock)
        return
    said = "; ".join(f"edit {n} ({unconfirmed_words(gaps)})" for n, gaps in held)
    confirmed = [n for n, _ in edits if n not in dict(held)]
    if not confirmed:
        store.add_notice(
            "auto-adopt",
            f"night {night_id} was not auto-adopted: {said}; it stays staged: `skillopt-sleep "
            "review` shows it, `skillopt-sleep adopt` takes it if you want it, and the next night "
            "with the missing evidence retests it first",
            clock.now(),
        )
        return
    try:
        subset = recompose(load_staged(row), confirmed, {}, files)
        adopt(store, paths, row, clock, subset=subset)
    except (InputError, ProposalError, StoreError, LockedError) as exc:
        store.add_notice(
            "auto-adopt", f"night {night_id} was not auto-adopted: {exc.one_line()}", clock.now()
        )
        return
    store.add_notice(
        "auto-adopt",
        f"night {night_id}: {edits_phrase(confirmed)} auto-adopted; not {said}: the next night with the "
        f"missing evidence retests it first; undo with `skillopt-sleep rollback {night_id}`",
        clock.now(),
    )
