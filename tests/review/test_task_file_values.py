"""A task file's value the model would quietly coerce is refused, naming the record and field."""

from __future__ import annotations

import json

import pytest

CASES = [
    (
        {"checks": [{"kind": "max_chars", "value": True}]},
        "checks.0.value: max_chars needs a whole number, not True",
    ),
    (
        {"checks": [{"kind": "max_chars", "value": 300.0}]},
        "checks.0.value: max_chars needs a whole number, not 300.0",
    ),
    ({"turn": -1}, "turn: needs a whole number of at least 0, not -1"),
    ({"turn": 1.0}, "turn: needs a whole number of at least 0, not 1.0"),
    ({"turn": "2"}, "turn: needs a whole number of at least 0, not '2'"),
    ({"occurrences": True}, "occurrences: needs a whole number of at least 1, not True"),
    (
        {"checks": [{"kind": "contains", "value": "x", "case_sensitive": "no"}]},
        "checks.0.case_sensitive: needs true or false, not 'no'",
    ),
    (
        {"checks": [{"kind": "contains", "value": "x", "weight": True}]},
        "checks.0.weight: needs a number, not True",
    ),
    ({"intent": "   "}, "intent: is blank"),
    (
        {"created_at": 1700000000},
        "created_at: needs an ISO 8601 time with its zone, not 1700000000",
    ),
]


@pytest.mark.parametrize("extra, message", CASES)
def test_a_value_the_model_would_coerce_is_refused_and_nothing_imported(
    cli, tmp_path, extra, message
):
    good = {"intent": "Run the tests"}
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([good, {**good, "session_id": "s2", **extra}]))
    r = cli("tasks", "import", str(path), cwd=tmp_path)
    assert r.code == 4, r
    assert (
        r.err
        == f"skillopt-sleep: error: tasks.json record 2: {message} (fix the record; nothing was imported)\n"
    )
    assert cli("tasks", "list", "--json", cwd=tmp_path).json() == []


def test_the_same_values_written_plainly_are_taken(cli, tmp_path):
    path = tmp_path / "tasks.json"
    path.write_text(
        json.dumps(
            [
                {
                    "intent": "Run the tests",
                    "turn": 2,
                    "occurrences": 3,
                    "created_at": "2026-11-20T03:00:00Z",
                    "checks": [
                        {"kind": "max_chars", "value": 300},
                        {"kind": "contains", "value": "x", "case_sensitive": False, "weight": 2},
                    ],
                }
            ]
        )
    )
    r = cli("tasks", "import", str(path), cwd=tmp_path)
    assert r.code == 0, r.err
