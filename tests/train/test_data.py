"""Task sets: split fields, a directory of splits, a reproducible ratio, every bad item at once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillopt_sleep.errors import InputError
from skillopt_sleep.train.data import load_task_set


def lines(path: Path, *items: object) -> Path:
    path.write_text(
        "".join((i if isinstance(i, str) else json.dumps(i)) + "\n" for i in items),
        encoding="utf-8",
    )
    return path


def test_split_fields_question_alias_answers_and_task_type(tmp_path: Path) -> None:
    data = lines(
        tmp_path / "t.jsonl",
        {
            "id": 1,
            "question": "Capital of France?",
            "answers": ["Paris"],
            "split": "train",
            "task_type": "geo",
        },
        {
            "id": "v",
            "intent": "Say hi",
            "checks": [{"kind": "contains", "value": "hi"}],
            "split": "val",
        },
        {"id": "t", "intent": "Say bye", "answers": "bye", "split": "test", "tags": ["x"]},
    )
    ts = load_task_set(data)
    (tr,), (va,), (te,) = ts.train, ts.val, ts.test
    assert (tr.id, tr.intent, tr.tags) == ("1", "Capital of France?", ["type:geo"])
    assert [(c.kind, c.value) for c in tr.checks] == [("equals", "Paris")]
    assert va.id == "v" and te.tags == ["x"] and te.checks[0].value == "bye"


def test_a_directory_of_splits(tmp_path: Path) -> None:
    for i, name in enumerate(("train", "val", "test")):
        lines(tmp_path / f"{name}.jsonl", {"id": name, "intent": f"q{i}", "answers": ["a"]})
    ts = load_task_set(tmp_path)
    assert [[t.id for t in s] for s in (ts.train, ts.val, ts.test)] == [
        ["train"],
        ["val"],
        ["test"],
    ]


def test_a_ratio_splits_one_file_the_same_way_for_the_same_seed(tmp_path: Path) -> None:
    data = lines(
        tmp_path / "t.jsonl",
        *({"id": f"i{n}", "intent": f"q{n}", "answers": ["a"]} for n in range(20)),
    )
    a, b, c = (load_task_set(data, split_ratio="2:1:7", seed=s) for s in (4, 4, 5))
    assert (len(a.train), len(a.val), len(a.test)) == (4, 2, 14)
    assert [t.id for t in a.train] == [t.id for t in b.train] != [t.id for t in c.train]
    assert not {t.id for t in a.train} & {t.id for t in a.test}


def test_every_invalid_item_is_refused_at_once_with_its_line(tmp_path: Path) -> None:
    data = lines(
        tmp_path / "t.jsonl",
        {"id": "ok", "intent": "fine", "answers": ["a"]},
        {"id": "a", "intent": "no way to score it"},
        "{not json",
        {"id": "b", "intent": "x", "checks": [{"kind": "regexx", "value": "a"}]},
        {"id": "c", "intent": "x", "answers": ["a"], "split": "dev"},
    )
    with pytest.raises(InputError) as err:
        load_task_set(data)
    msg = err.value.one_line()
    assert msg.startswith(
        f"{data}: 4 invalid items: line 2: an item needs checks or answers to be scored; "
        "line 3: not valid JSON"
    )
    assert (
        "line 4: checks.0.kind" in msg
        and "line 5: split 'dev' is not one of train, val, test" in msg
    )
    assert msg.endswith("(fix them; nothing was used)")


def test_duplicate_ids_and_a_half_split_file_are_refused(tmp_path: Path) -> None:
    dup = lines(
        tmp_path / "d.jsonl",
        {"id": "x", "intent": "a", "answers": ["a"]},
        {"id": "x", "intent": "b", "answers": ["b"]},
    )
    with pytest.raises(InputError, match="duplicate item ids x"):
        load_task_set(dup)
    half = lines(
        tmp_path / "h.jsonl",
        {"id": "x", "intent": "a", "answers": ["a"], "split": "train"},
        {"id": "y", "intent": "b", "answers": ["b"]},
    )
    with pytest.raises(InputError, match="1 items have no split while others do"):
        load_task_set(half)
