"""The edits of a staged night by number, and what the user decided for each.

A night's edits are numbered 1, 2, 3 ... in the order the night adopted them
(``NightSummary.edits``): the terminal, ``--json``, ``report.md`` and ``report.html`` all use
these numbers, so ``adopt 2 3`` means the same edits wherever the user read them. What the user
decided edit by edit (adopted, rejected, reworded) is kept in the store's meta table
(``edits:<night_id>``, one JSON document), so the page and ``review`` render it from the store.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import UsageError
from ..models import Edit
from ..store import NightRow, Store

PREFIX = "edits:"


class EditDecisions(BaseModel):
    """What the user decided for a night's edits, by number (the rest stay staged)."""

    model_config = ConfigDict(extra="forbid")

    night_id: str
    adopted: list[int] = Field(default_factory=list)  # of the last adoption of the night
    rejected: list[int] = Field(default_factory=list)
    reworded: dict[int, str] = Field(default_factory=dict)  # number -> the user's own wording


def load_decisions(store: Store, night_id: str) -> EditDecisions:
    """The decisions recorded for a night (none yet: an empty record)."""
    raw = store.get_meta(PREFIX + night_id)
    if raw is not None:
        try:
            return EditDecisions.model_validate_json(raw)
        except ValidationError:
            pass  # written by another version: read as no decision, never as a wrong one
    return EditDecisions(night_id=night_id)


def save_decisions(store: Store, decisions: EditDecisions) -> None:
    store.set_meta(PREFIX + decisions.night_id, decisions.model_dump_json())


def numbered(row: NightRow) -> list[tuple[int, Edit]]:
    """The night's edits with their numbers, in their stable order."""
    return list(enumerate(row.summary.edits, start=1))


def pending(row: NightRow, decisions: EditDecisions) -> list[int]:
    """The numbers of the edits still staged (none once the night is no longer staged)."""
    if row.state != "staged":
        return []
    return [n for n, _ in numbered(row) if n not in decisions.rejected]


def _listing(numbers: Sequence[int]) -> str:
    return ", ".join(map(str, numbers)) if numbers else "none"


def edits_phrase(numbers: Sequence[int]) -> str:
    """``edit 1`` / ``edits 2, 3``."""
    return f"edit{'s' if len(numbers) > 1 else ''} {_listing(numbers)}"


def choose(
    row: NightRow, decisions: EditDecisions, wanted: Sequence[int], excepted: Sequence[int]
) -> list[int]:
    """The edit numbers a command acts on: ``wanted``, else every staged edit but ``excepted``.

    A number that is not one of the night's staged edits is a :class:`UsageError` naming the
    valid ones."""
    staged = pending(row, decisions)
    for n in [*wanted, *excepted]:
        if n not in staged:
            what = "was rejected" if n in decisions.rejected else "does not exist"
            raise UsageError(
                f"edit {n} of night {row.id} {what}; its staged edits are {_listing(staged)}",
                hint="see `skillopt-sleep review` for the numbers",
            )
    if wanted and excepted:
        raise UsageError(
            "give edit numbers or --except, not both", hint="see `skillopt-sleep adopt --help`"
        )
    chosen = sorted(set(wanted)) if wanted else [n for n in staged if n not in excepted]
    if not chosen:
        raise UsageError(
            f"--except leaves no edit of night {row.id}",
            hint="discard them all with `skillopt-sleep reject`",
        )
    return chosen


def edit_words(row: NightRow, decisions: EditDecisions) -> list[str]:
    """What became of each edit, in number order: staged, adopted, rejected, left out, ..."""
    adopted_state = {"adopted": "adopted", "rolled_back": "rolled back"}.get(row.state)
    whole = adopted_state is not None and not decisions.adopted
    words = []
    for n, _ in numbered(row):
        if n in decisions.rejected:
            word = "rejected"
        elif adopted_state is not None and (whole or n in decisions.adopted):
            word = adopted_state + (" (reworded by you)" if n in decisions.reworded else "")
        elif adopted_state is not None:
            word = "left out"
        elif row.state in ("rejected", "superseded"):
            word = row.state
        else:
            word = "staged"
        words.append(word)
    return words


def night_words(row: NightRow, decisions: EditDecisions) -> str:
    """The night's state in one phrase: ``partly adopted (edits 2, 3)``, ``staged (edit 1
    rejected)``, ``adopted``, ..."""
    count = len(row.summary.edits)
    state = row.state.replace("_", " ")
    partial = bool(decisions.adopted) and len(decisions.adopted) < count
    if row.state in ("adopted", "rolled_back") and partial:
        partly = "partly adopted" if row.state == "adopted" else "partly adopted, rolled back"
        return f"{partly} ({edits_phrase(decisions.adopted)} of {count})"
    if row.state == "staged" and decisions.rejected:
        return f"staged ({edits_phrase(decisions.rejected)} rejected)"
    return state


def parse_numbers(values: Sequence[str]) -> list[int]:
    """Edit numbers as the user typed them; :class:`UsageError` for one that is not a number."""
    out = []
    for value in values:
        if not value.isdigit() or int(value) < 1:
            raise UsageError(
                f"{value!r} is not an edit number",
                hint="edits are numbered 1, 2, 3 ... in `skillopt-sleep review`",
            )
        out.append(int(value))
    return out
