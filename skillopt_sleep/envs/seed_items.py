"""What passes between the seeds' environments and ours: their item dicts as task records (and
back), their rollout results as :class:`~.base.EnvResult`, their patches as edits.

A seed item is a plain dict whose schema is the environment's own: it is kept as it is, by the
id of the task record made for it, and handed back unchanged to the environment that scores it.
The record carries only what the optimizer is shown (the question or task description, the
context, the task type as a ``type:`` tag) and no check: the environment scores the attempt.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import Any

from ..backends.base import Message
from ..harvest.hand_written import Defaults, make_record
from ..models import Edit, TaskRecord
from .base import EnvResult

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)  # items carry no time: a fixed one keeps ids stable
_TEXT_KEYS = ("question", "task_description", "intent", "prompt", "instruction", "query")
_OPS = {"append": "add", "insert_after": "add", "add": "add", "replace": "replace"}


def intent_of(item: Mapping[str, Any]) -> str:
    """What the item asks, for the optimizer: its first text field, else the item as JSON."""
    for key in _TEXT_KEYS:
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return value
    shown = {k: v for k, v in item.items() if k not in ("answers", "answer", "reference_text")}
    return json.dumps(shown, sort_keys=True, default=str)[:2000] or "(empty item)"


def record_of(item: Mapping[str, Any], split: str, index: int, project: str) -> TaskRecord:
    """The task record of one seed item (its id kept; ``split-index`` when it has none)."""
    item_id = str(item.get("id", "") or f"{split}-{index}")
    context = item.get("context")
    task_type = item.get("task_type") or item.get("subtype")
    fields: dict[str, Any] = {
        "id": item_id,
        "session_id": f"item:{item_id}",
        "intent": intent_of(item),
        "context": context if isinstance(context, str) else "",
        "tags": [f"type:{task_type}"] if task_type else [],
    }
    return make_record(fields, Defaults(project=project, now=NOW, source="import"))


def item_of(record: TaskRecord) -> dict[str, Any]:
    """A seed item for a record that came from a task file (not from the environment)."""
    answers = [str(c.value) for c in record.checks if c.kind == "equals"]
    types = [t.removeprefix("type:") for t in record.tags if t.startswith("type:")]
    item: dict[str, Any] = {"id": record.id, "question": record.intent, "answers": answers}
    if record.context:
        item["context"] = record.context
    if types:
        item["task_type"] = types[0]
    return item


def as_row(result: Any) -> dict[str, Any]:
    """A rollout result (the seeds' ``RolloutResult`` or the dict SkillOpt's rollouts return)
    as a dict."""
    if isinstance(result, Mapping):
        return dict(result)
    to_dict = getattr(result, "to_dict", None)
    if callable(to_dict):
        out = to_dict()
        if isinstance(out, Mapping):
            return dict(out)
    names = ("id", "hard", "soft", "fail_reason", "predicted_answer", "conversation", "extras")
    return {n: getattr(result, n) for n in names if hasattr(result, n)}


def env_result(row: Mapping[str, Any], asked: str) -> EnvResult:
    """The scored attempt a seed row says: ``hard`` 0/1, ``soft`` in [0, 1] (``hard`` when it
    has none); a row marked ``agent_ok: false`` (no answer came) is an error, no evidence."""
    reason = str(row.get("fail_reason") or "")
    conversation = _messages(row.get("conversation") or (), asked, row)
    if row.get("agent_ok") is False:
        return EnvResult.errored(reason or "the environment got no answer", conversation)
    try:
        hard = 1.0 if float(row.get("hard") or 0) >= 1 else 0.0
        soft = min(1.0, max(0.0, float(row["soft"]) if row.get("soft") is not None else hard))
    except (TypeError, ValueError):
        return EnvResult.errored(f"unusable score in {sorted(row)}", conversation)
    failed = (reason,) if reason and hard < 1 else ()
    return EnvResult(hard, soft, failed, conversation, extras=extras_of(row))


# A seed's RolloutResult fields; what else a row holds is the environment's own (``extras``).
_KNOWN = frozenset(
    (
        "id", "hard", "soft", "n_turns", "fail_reason", "task_type", "task_description",
        "predicted_answer", "question", "reference_text", "target_system_prompt",
        "target_user_prompt", "conversation", "extras", "agent_ok",
    )
)  # fmt: skip


def extras_of(row: Mapping[str, Any]) -> dict[str, Any]:
    """The environment's own fields of a rollout: its ``extras`` (flattened into the row by the
    seeds' ``to_dict``, or kept as one dict), as JSON values, to be kept in the run's record."""
    given = row.get("extras")
    out = {str(k): v for k, v in row.items() if k not in _KNOWN}
    if isinstance(given, Mapping):
        out.update({str(k): v for k, v in given.items()})
    return {k: _plain(v) for k, v in out.items()}


def _plain(value: Any) -> Any:
    """``value`` as JSON can hold it (what JSON cannot, as text)."""
    try:
        return json.loads(json.dumps(value, default=str))
    except (TypeError, ValueError):  # a circular structure
        return str(value)


def _messages(raw: Iterable[Any], asked: str, row: Mapping[str, Any]) -> tuple[Message, ...]:
    out: list[Message] = []
    for turn in raw:
        if isinstance(turn, Mapping) and turn.get("role") in ("user", "assistant"):
            out.append(Message(turn["role"], str(turn.get("content") or "")))
    if not any(m.role == "user" for m in out):
        out.insert(0, Message("user", str(row.get("target_user_prompt") or asked)))
    if not any(m.role == "assistant" for m in out):
        out.append(Message("assistant", str(row.get("predicted_answer") or "")))
    return tuple(out)


def edits_of(patches: Iterable[Any], cites: list[str]) -> list[Edit]:
    """The edits of the patches an environment's ``reflect`` returned (``RawPatch`` dicts, patch
    dicts or objects with ``to_dict``), each citing ``cites``; ``None`` entries and edits of an
    unknown kind are left out."""
    out: list[Edit] = []
    for patch in patches:
        raw = as_row(patch) if patch is not None else {}
        inner = raw.get("patch", raw)
        inner = as_row(inner) if not isinstance(inner, Mapping) else inner
        for edit in inner.get("edits") or ():
            e = as_row(edit)
            op, content, anchor = (
                str(e.get("op", "append")),
                str(e.get("content") or ""),
                e.get("target"),
            )
            if op == "delete" and anchor:
                out.append(Edit(target="skill", op="remove", content=str(anchor), cites=cites))
            elif op in _OPS and content.strip():
                old = str(anchor) if op == "replace" and anchor else None
                if op == "replace" and old is None:
                    continue
                out.append(Edit(target="skill", op=_OPS[op], content=content, old=old, cites=cites))  # type: ignore[arg-type]
    return out
