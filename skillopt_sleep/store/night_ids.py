"""Night ids that stay unique however fast nights follow one another.

A night's id is its start to the second plus a short hash of its project, readable in a
directory listing. Two nights of one project started in the same second (a ``run`` beside a
``dry-run``, a ``reject`` then a ``run``) would share it, and the later would replace the
earlier's record and proposal. So every id is reserved in the store, inside one write
transaction, before the night writes anything: the first free one of ``base``, ``base-2``,
``base-3`` ... is taken, and no other process can take it in between.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Callable
from datetime import datetime

from ..errors import StoreError
from ..models import NightSummary


def reserve(
    conn: sqlite3.Connection,
    base: str,
    project: str,
    at: datetime,
    in_use: Callable[[str], bool],
) -> str:
    """Reserve and return the first id of ``base``, ``base-2``, ... that no night holds.

    Runs inside the caller's write transaction. ``in_use`` says whether something outside the
    store already holds an id (a night directory left from a store that was moved away).
    """
    for n in itertools.count(1):
        candidate = base if n == 1 else f"{base}-{n}"
        held = conn.execute(
            "SELECT 1 FROM night_ids WHERE id = ? UNION ALL SELECT 1 FROM nights WHERE id = ?",
            (candidate, candidate),
        ).fetchone()
        if held is None and not in_use(candidate):
            conn.execute(
                "INSERT INTO night_ids(id, project, reserved_at) VALUES (?, ?, ?)",
                (candidate, project, at.isoformat()),
            )
            return candidate
    raise AssertionError("unreachable: itertools.count never ends")


def record(conn: sqlite3.Connection, summary: NightSummary, state: str) -> None:
    """Record a finished night inside the caller's transaction; refuse an id already recorded."""
    try:
        conn.execute(
            "INSERT INTO nights(id, project, started_at, decision, state, proposal_dir, summary)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                summary.night_id,
                summary.project,
                summary.started_at.isoformat(),
                summary.decision,
                state,
                summary.proposal_dir,
                summary.model_dump_json(),
            ),
        )
    except sqlite3.IntegrityError as exc:
        raise StoreError(
            f"night {summary.night_id} is already recorded; it was not replaced",
            hint="night ids are reserved before a night starts: report this as a bug",
        ) from exc
