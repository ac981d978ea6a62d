"""The corrections of harvested tasks as sightings of the user's preferences.

Two corrections are the same preference when they name the same heading, opening or text
("always use pytest -q" and "pytest -q, not unittest" both ask for ``contains 'pytest -q'``),
else when they state the same checks, else when their words are the same once case,
punctuation and filler are dropped. The preference keeps the union of the checks its sightings
state, and counts them. Pure: no IO.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace

from ..models import TaskRecord, TurnNote
from ..store.preferences import PreferenceSighting

_FILLER = re.compile(
    r"^(?:(?:no|nope|nein|non|please|bitte|again|schon wieder|as i said|wie gesagt|that's wrong"
    r"|das ist falsch|hmm|ugh|thanks|danke|but|aber)\b[\s,.:;!-]*)+",
    re.IGNORECASE,
)


# What a statement is about, first: a correction naming the same heading, opening or text as
# another is the same preference, whatever else either adds.
_ANCHORS = ("heading", "starts_with", "contains")


def _key(project: str, statement: str) -> tuple[str, tuple[str, ...]]:
    # the miner's text rules are imported with the first statement: `status` and `review` import
    # this module through the rule ledger, and a project with no adopted rule never needs them
    from .check_miner import candidate_checks

    mined = candidate_checks(statement)
    checks = tuple(sorted({c.describe() for c in mined}))
    anchor = next((c for kind in _ANCHORS for c in mined if c.kind == kind), None)
    if anchor is not None:  # "under `## Unreleased`" said three ways is one preference
        what = "anchor:" + anchor.describe()
    elif checks:
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


def corrections(record: TaskRecord) -> list[PreferenceSighting]:
    """The user's corrections of ``record``: its correction turns, or for a request added by hand
    (no turns) that failed, the feedback the user gave. Both the rule a night makes from a request
    and the later requests held against that rule read a correction here, so a request added by
    hand gives the rule the same preference keys and checks a later one is matched by; its checks
    are those its words state and those the user wrote for it (``tasks add --check``)."""
    if record.turns or record.outcome != "failure" or not record.feedback.strip():
        return preference_sightings([record])
    said = TurnNote(kind="correction", text=record.feedback.strip(), at=record.created_at)
    typed = {c.describe() for c in record.checks}  # the user's own checks state it too
    return [
        replace(s, checks=tuple(sorted(typed | set(s.checks))))
        for s in preference_sightings([record.model_copy(update={"turns": [said]})])
    ]
