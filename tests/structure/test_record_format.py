"""The store's record format is raised whenever a stored model gains (or loses) a field: an
older engine cannot read a record with a field it does not know, and the format number is what
lets it refuse the store with the fix instead of failing with an internal error
(store/record_format.py). The fields of every stored model, nested models included, are recorded
per format in stored_fields.json; a change to them fails here until the number is raised and the
new list recorded under it."""

from __future__ import annotations

import json
import typing
from pathlib import Path

from pydantic import BaseModel

from skillopt_sleep.models import Edit, NightSummary, TaskRecord
from skillopt_sleep.review.edit_choice import EditDecisions
from skillopt_sleep.review.ledger import AdoptedRule
from skillopt_sleep.schedule.state import Installation, LastRun, LoopRecord
from skillopt_sleep.store.record_format import RECORD_FORMAT

# Every model the store keeps as JSON: in its tables (tasks and sightings, nights, rejected
# edits) and in its meta (the ledger, the review's decisions, the schedule's records).
STORED: tuple[type[BaseModel], ...] = (
    TaskRecord,
    NightSummary,
    Edit,
    AdoptedRule,
    EditDecisions,
    Installation,
    LastRun,
    LoopRecord,
)
RECORDED = Path(__file__).with_name("stored_fields.json")


def _models_in(annotation: object) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def stored_fields() -> list[str]:
    """``Model.field`` for every field of every stored model and the models nested in them."""
    seen: dict[str, type[BaseModel]] = {}
    todo = list(STORED)
    while todo:
        model = todo.pop()
        if model.__name__ in seen:
            continue
        seen[model.__name__] = model
        for info in model.model_fields.values():
            todo += _models_in(info.annotation)
    return sorted(f"{name}.{field}" for name, m in seen.items() for field in m.model_fields)


def test_the_stored_fields_are_those_recorded_for_this_format():
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    assert max(int(n) for n in recorded) == RECORD_FORMAT, (
        f"record the fields of format {RECORD_FORMAT} in {RECORDED.name}"
    )
    now = stored_fields()
    added = sorted(set(now) - set(recorded[str(RECORD_FORMAT)]))
    removed = sorted(set(recorded[str(RECORD_FORMAT)]) - set(now))
    assert (added, removed) == ([], []), (
        "a stored model's fields changed: raise RECORD_FORMAT in "
        "skillopt_sleep/store/record_format.py (and say what the new format adds there), then "
        f"record the fields under the new number in {RECORDED.name}"
    )


def test_each_format_differs_from_the_one_before():
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    numbers = sorted(int(n) for n in recorded)
    assert numbers == list(range(1, RECORD_FORMAT + 1))
    for n in numbers[1:]:
        assert recorded[str(n)] != recorded[str(n - 1)], n


def test_the_walk_finds_nested_models():
    assert "NightSummary.unpriced_models" in stored_fields()
    assert any(f.endswith(".unpriced_calls") for f in stored_fields())
