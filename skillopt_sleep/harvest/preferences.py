"""The corrections of harvested tasks as sightings of the user's preferences.

Two corrections are the same preference when they state the same checks ("always use pytest -q"
and "pytest -q, not unittest" both ask for ``contains 'pytest -q'``), else when their words are
the same once case, punctuation and filler are dropped. Pure: no IO.
"""

from __future__ import annotations

import hashlib
import re

from ..models import TaskRecord
from ..store.preferences import PreferenceSighting
from .check_miner import candidate_checks

_FILLER = re.compile(
    r"^(?:(?:no|nope|nein|non|please|bitte|again|schon wieder|as i said|wie gesagt|that's wrong"
    r"|das ist falsch|hmm|ugh|thanks|danke|but|aber)\b[\s,.:;!-]*)+",
    re.IGNORECASE,
)


def _key(project: str, statement: str) -> tuple[str, tuple[str, ...]]:
    checks = tuple(sorted({c.describe() for c in candidate_checks(statement)}))
    if checks:
        what = "checks:" + "\x00".join(checks)
    else:
        words = re.sub(r"[^\w\s]", " ", statement.lower())
        what = "text:" + " ".join(_FILLER.sub("", " ".join(words.split())).split())
    digest = hashlib.sha256(f"{project}\x00{what}".encode()).hexdigest()[:24]
    return f"p_{digest}", checks


def preference_sightings(records: list[TaskRecord]) -> list[PreferenceSighting]:
    """One sighting per sure correction on each record (stable ids: re-reads add nothing)."""
    out: list[PreferenceSighting] = []
    for record in records:
        for note in record.turns:
            if note.kind != "correction" or note.unsure:
                continue
            key, checks = _key(record.project, note.text)
            seen = note.at or record.created_at
            text_id = hashlib.sha256(note.text.encode()).hexdigest()[:12]
            out.append(
                PreferenceSighting(
                    key=key,
                    sighting=f"{record.id}:{seen.isoformat()}:{text_id}",
                    project=record.project,
                    statement=note.text,
                    checks=checks,
                    source=record.source,
                    task_id=record.id,
                    seen_at=seen.isoformat(),
                )
            )
    return out
