"""A training task set: JSON lines with a ``split`` field, or a directory of train/val/test files.

An item is a task record in short: ``id``, ``intent`` (or ``question``), ``context``, ``checks``
(the check kinds of task records), ``answers`` (each one an ``equals`` check), ``task_type`` (kept
as a ``type:`` tag), ``tags``. Every item is checked before anything runs, and every invalid one
is reported at once with its line number: nothing of a bad file is used.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import InputError
from ..harvest.hand_written import Defaults, make_record, record_error
from ..models import TaskRecord

SPLITS = ("train", "val", "test")
EPOCH = datetime(
    2026, 1, 1, tzinfo=timezone.utc
)  # items carry no time; a fixed one keeps ids stable


@dataclass(frozen=True)
class TaskSet:
    """The three splits, each in file order."""

    train: list[TaskRecord]
    val: list[TaskRecord]
    test: list[TaskRecord]
    source: str | None = None  # the file or directory read (None: items given in code)


def load_task_set(
    path: Path, *, split_ratio: str = "2:1:7", seed: int = 0, need_checks: bool = True
) -> TaskSet:
    """Read ``path`` (a ``.jsonl`` file or a directory of ``train.jsonl``, ``val.jsonl``,
    ``test.jsonl``); a file without ``split`` fields is split by ``split_ratio`` with ``seed``.
    Without ``need_checks`` (an environment that scores items itself) an item may have none."""
    tasks = _load(Path(path), split_ratio, seed, need_checks)
    return replace(tasks, source=str(Path(path).resolve()))


def _load(path: Path, split_ratio: str, seed: int, need_checks: bool) -> TaskSet:
    if path.is_dir():
        missing = [f"{s}.jsonl" for s in SPLITS if not (path / f"{s}.jsonl").is_file()]
        if missing:
            raise InputError(
                f"{path} lacks {', '.join(missing)}",
                hint="a task-set directory holds train.jsonl, val.jsonl and test.jsonl",
            )
        parts = {s: _read(path / f"{s}.jsonl", s, need_checks) for s in SPLITS}
        _unique([r for _, r in (*parts["train"], *parts["val"], *parts["test"])], path)
        train, val, test = ([r for _, r in parts[s]] for s in SPLITS)
        return TaskSet(train, val, test)
    items = _read(path, None, need_checks)
    _unique([r for _, r in items], path)
    given = [s for s, _ in items if s is not None]
    if given and len(given) != len(items):
        raise InputError(
            f"{path}: {len(items) - len(given)} items have no split while others do",
            hint="give every item a split, or none and use --split-ratio",
        )
    if given:
        train, val, test = ([r for s, r in items if s == name] for name in SPLITS)
        return TaskSet(train, val, test)
    return split_by_ratio([r for _, r in items], split_ratio, seed)


def split_by_ratio(records: list[TaskRecord], ratio: str, seed: int) -> TaskSet:
    """Shuffle by ``seed`` (over the ids, so file order does not matter) and cut by ``ratio``."""
    weights = [int(p) for p in ratio.split(":")]
    order = sorted(records, key=lambda r: r.id)
    random.Random(seed).shuffle(order)
    n = len(order)
    n_train = max(1, round(n * weights[0] / sum(weights)))
    n_val = max(1, round(n * weights[1] / sum(weights)))
    if n_train + n_val >= n:
        raise InputError(
            f"{n} items are too few to split {ratio}", hint="add items or give each a split"
        )
    return TaskSet(order[:n_train], order[n_train : n_train + n_val], order[n_train + n_val :])


def _read(
    path: Path, split: str | None, need_checks: bool = True
) -> list[tuple[str | None, TaskRecord]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"no such file: {path}", hint="check the path") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path}: {exc}", hint="save it as UTF-8 JSON lines") from None
    defaults = Defaults(project=str(path.resolve().parent), now=EPOCH, source="import")
    out: list[tuple[str | None, TaskRecord]] = []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(_item(json.loads(line), defaults, split, need_checks))
        except json.JSONDecodeError as exc:
            problems.append(f"line {number}: not valid JSON ({exc.msg})")
        except ValidationError as exc:
            problems.append(record_error(f"line {number}", exc).one_line())
        except ValueError as exc:
            problems.append(f"line {number}: {exc}")
    if problems:
        raise InputError(
            f"{path}: {len(problems)} invalid item{'s' * (len(problems) > 1)}: "
            + "; ".join(problems),
            hint="fix them; nothing was used",
        )
    if not out:
        raise InputError(f"no items in {path}", hint="write one JSON object per line")
    return out


def _item(
    raw: Any, defaults: Defaults, split: str | None, need_checks: bool = True
) -> tuple[str | None, TaskRecord]:
    if not isinstance(raw, dict):
        raise ValueError("an item is a JSON object")
    data = dict(raw)
    if "question" in data:
        if "intent" in data:
            raise ValueError("give intent or question, not both")
        data["intent"] = data.pop("question")
    answers = data.pop("answers", [])
    if isinstance(answers, str):
        answers = [answers]
    if not isinstance(answers, list) or not all(isinstance(a, str) and a.strip() for a in answers):
        raise ValueError("answers: a list of non-empty texts")
    data["checks"] = [*data.get("checks", []), *({"kind": "equals", "value": a} for a in answers)]
    task_type = data.pop("task_type", None)
    if task_type is not None:
        data["tags"] = [*data.get("tags", []), f"type:{task_type}"]
    given = data.pop("split", None)
    if given is not None and given not in SPLITS:
        raise ValueError(f"split {given!r} is not one of {', '.join(SPLITS)}")
    if split is not None and given is not None and given != split:
        raise ValueError(f"split {given!r} in the {split} file")
    if "id" in data:
        data["id"] = str(data["id"])
        data.setdefault("session_id", f"item:{data['id']}")
    if need_checks and not data.get("checks"):
        raise ValueError("an item needs checks or answers to be scored")
    return given or split, make_record(data, defaults)


def _unique(records: list[TaskRecord], path: Path) -> None:
    seen: set[str] = set()
    dup = sorted({r.id for r in records if r.id in seen or seen.add(r.id)})  # type: ignore[func-returns-value]
    if dup:
        raise InputError(
            f"{path}: duplicate item ids {', '.join(dup[:5])}", hint="give every item its own id"
        )
