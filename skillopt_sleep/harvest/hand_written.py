"""TaskRecords written by hand: ``--check KIND=VALUE`` flags and JSON / JSON-lines / TOML files.

Every record is validated when it is read; the first bad one is a one-line :class:`InputError`
naming the record and the field, and nothing from that file is used. Every text a record
carries is redacted before it is stored: a hand-written task is a way in like any other.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, get_args

from pydantic import ValidationError

from ..errors import InputError
from ..models import Check, CheckKind, TaskRecord, task_id
from ..redact import redact
from .jsonl import without_surrogates

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10
    import tomli as tomllib

CHECK_KINDS: tuple[str, ...] = get_args(CheckKind)
_FIELDS = tuple(TaskRecord.model_fields)


@dataclass(frozen=True)
class Defaults:
    """What a hand-written record may leave out."""

    project: str
    now: datetime
    source: str = "manual"


def parse_check(spec: str) -> Check:
    """``contains=pytest -q``, ``max_chars=300``, ``json_valid``, ``rubric=Is it polite?``."""
    kind, sep, value = spec.partition("=")
    kind = kind.strip()
    if kind not in CHECK_KINDS:
        close = difflib.get_close_matches(kind, CHECK_KINDS, n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise InputError(
            f"unknown check kind {kind!r} in --check {spec}",
            hint=f"{hint}kinds: {', '.join(CHECK_KINDS)}",
        )
    raw: Any = value if sep else None
    if kind == "max_chars" and sep:
        try:
            raw = int(value)
        except ValueError:
            raise InputError(
                f"--check {spec}: max_chars needs a whole number",
                hint="for example --check max_chars=300",
            ) from None
    try:
        return Check(kind=kind, value=raw)  # type: ignore[arg-type]
    except ValidationError as exc:
        hint = (
            "fix the regular expression (and quote it for the shell)"
            if kind == "regex"
            else ("write it as KIND=VALUE")
        )
        raise InputError(f"--check {spec}: {_message(exc.errors()[0])}", hint=hint) from exc


def manual_session(project: str, intent: str) -> str:
    """A stable session id for a hand-made task: adding the same intent again updates it."""
    return "manual-" + hashlib.sha256(f"{project}\x00{intent}".encode()).hexdigest()[:16]


def make_record(fields: Mapping[str, Any], defaults: Defaults) -> TaskRecord:
    """A validated, redacted record from ``fields``, with the defaults filled in
    (ValidationError if bad).

    Without an explicit ``id``, the id is scoped to the project: a session id that another
    project's task also uses makes a new task here, never moves that one.
    """
    data = without_surrogates(dict(fields))  # half an emoji, or bytes that were not UTF-8
    data.setdefault("source", defaults.source)
    data.setdefault("project", defaults.project)
    data.setdefault("created_at", defaults.now)
    if "session_id" not in data and isinstance(data.get("intent"), str):
        data["session_id"] = manual_session(str(data["project"]), data["intent"])
    record = redacted(TaskRecord.model_validate(data))
    if not fields.get("id") and "session_id" in fields:  # (a made-up session is scoped already)
        scoped = f"{record.project}\x00{record.session_id}"
        record = record.model_copy(update={"id": task_id(record.source, scoped, record.turn)})
    return record


# What identifies a record or names a closed choice; every other text it holds is redacted.
_NOT_TEXT = frozenset({"id", "source", "project", "kind", "outcome", "by", "model", "commit"})


def redacted(record: TaskRecord) -> TaskRecord:
    """``record`` with every secret in every text it holds replaced by a placeholder: its
    intent, context, attempt and feedback, its turns and actions, and every text of its
    checks (a value, an action check's path), whatever way it came in by."""
    return TaskRecord.model_validate(_redact_texts(record.model_dump()))


def _redact_texts(value: Any, key: str = "") -> Any:
    if isinstance(value, str):
        return value if key in _NOT_TEXT else redact(value)
    if isinstance(value, dict):
        return {k: _redact_texts(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_texts(v, key) for v in value]
    return value


def read_records(path: Path, defaults: Defaults) -> list[TaskRecord]:
    """Every record of a JSON array, JSON-lines or TOML (``[[task]]``) file, all validated."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"no such file: {path}", hint="check the path") from None
    except UnicodeDecodeError as exc:
        raise InputError(
            f"cannot read {path}: byte {exc.start} is not UTF-8", hint="save it as UTF-8 text"
        ) from None
    except OSError as exc:
        raise InputError(
            f"cannot read {path}: {exc.strerror or exc}", hint="check the path and its permissions"
        ) from None
    try:
        raw = _parse(path, text)
    except RecursionError:
        raise InputError(
            f"{path} is nested too deeply to read", hint="a task is a flat object: fix the file"
        ) from None
    if not raw:
        raise InputError(
            f"no tasks in {path}", hint="write a JSON array, JSON lines or TOML [[task]] tables"
        )
    records = []
    for number, item in enumerate(raw, start=1):
        where = f"{path.name} record {number}"
        if not isinstance(item, dict):
            raise InputError(
                f"{where} is not an object", hint="each task is a JSON object or a [[task]] table"
            )
        bad = loose_value(item)
        if bad is not None:
            raise InputError(f"{where}: {bad}", hint="fix the record; nothing was imported")
        try:
            records.append(make_record(item, defaults))
        except ValidationError as exc:
            raise record_error(where, exc) from exc
    return records


_WHOLE_MIN = {"turn": 0, "occurrences": 1, "schema_version": 1}


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def loose_value(item: Mapping[str, Any]) -> str | None:
    """What a file's record says that the model would quietly coerce, or None.

    A file is written by hand: ``turn: 1.5`` truncated, ``max_chars: true`` read as 1,
    ``case_sensitive: "no"`` read as False, a blank intent, a time given as a bare number would
    all be kept as something the user did not write. Each is named instead.
    """
    for name, least in _WHOLE_MIN.items():
        if name in item and (not _whole(item[name]) or item[name] < least):
            return f"{name}: needs a whole number of at least {least}, not {item[name]!r}"
    intent = item.get("intent")
    if isinstance(intent, str) and intent and not intent.strip():
        return "intent: is blank"
    for name in ("created_at", "last_seen_at"):
        if name in item and not isinstance(item[name], (str, datetime)):
            return f"{name}: needs an ISO 8601 time with its zone, not {item[name]!r}"
    checks = item.get("checks")
    for i, check in enumerate(checks if isinstance(checks, list) else []):
        if not isinstance(check, Mapping):
            continue
        if check.get("kind") == "max_chars" and "value" in check and not _whole(check["value"]):
            return f"checks.{i}.value: max_chars needs a whole number, not {check['value']!r}"
        if "case_sensitive" in check and not isinstance(check["case_sensitive"], bool):
            return (
                f"checks.{i}.case_sensitive: needs true or false, not {check['case_sensitive']!r}"
            )
        weight = check.get("weight")
        if "weight" in check and (isinstance(weight, bool) or not isinstance(weight, (int, float))):
            return f"checks.{i}.weight: needs a number, not {weight!r}"
    return None


def _parse(path: Path, text: str) -> list[Any]:
    if path.suffix.lower() == ".toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"{path} is not valid TOML: {exc}", hint="fix the file") from exc
        tasks = data.get("task", [])
        if not isinstance(tasks, list):
            raise InputError(
                f"{path}: `task` must be an array of tables", hint="write [[task]] for each task"
            )
        return tasks
    stripped = text.strip()
    if not stripped:
        return []
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError:
        return _json_lines(path, text)
    return data if isinstance(data, list) else [data]


def _json_lines(path: Path, text: str) -> list[Any]:
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise InputError(
                f"{path} line {number} is not valid JSON: {exc.msg}",
                hint="write a JSON array, or one JSON object per line",
            ) from exc
    return out


def record_error(where: str, exc: ValidationError) -> InputError:
    """A one-line error naming the record and the field (a misspelt field first: it explains the rest)."""
    errors = exc.errors()
    err = min(
        errors, key=lambda e: (e["type"] != "extra_forbidden", e["loc"][:1] == ("session_id",))
    )
    field = ".".join(str(p) for p in err["loc"]) or "record"
    if err["type"] == "extra_forbidden":
        close = difflib.get_close_matches(str(err["loc"][-1]), _FIELDS, n=1)
        hint = f"did you mean {close[0]}?" if close else f"fields: {', '.join(_FIELDS)}"
        return InputError(f"{where}: unknown field {field!r}", hint=hint)
    return InputError(
        f"{where}: {field}: {_message(err)}", hint="fix the record; nothing was imported"
    )


def _message(err: Mapping[str, Any]) -> str:
    msg = str(err["msg"])
    return msg.removeprefix("Value error, ")
