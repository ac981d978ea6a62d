"""``log`` for every agent: its session-end hook JSON in, the logger's payload out.

The agent is ``log --agent NAME``, else the payload's own ``agent`` field (the pi and OpenCode
plugins name themselves), else Claude Code. An agent with a hook reader of its own (Copilot's
payload names no transcript) is read by it; the others send Claude Code's fields.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ...errors import InputError
from ..claude_code import SOURCE as DEFAULT
from ..hook import HookPayload, parse_payload
from .registry import get


def read_payload(raw: str, env: Mapping[str, str], agent: str | None = None) -> HookPayload:
    """The spooled payload for ``raw``; an unknown agent raises ``UsageError`` listing the
    registered ones, a bad payload ``InputError`` naming what is wrong."""
    spec = get(agent or _named(raw) or DEFAULT)
    if spec.hook is None:
        payload = parse_payload(raw, env.get("HOME"))
    else:
        fields = dict(spec.hook(_object(raw, spec.name), spec.root(env)))
        payload = HookPayload.model_validate(fields)
    return payload.model_copy(update={"agent": spec.name})


def _named(raw: str) -> str:
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return ""  # parse_payload says what is wrong with it
    name = data.get("agent") if isinstance(data, dict) else None
    return name if isinstance(name, str) else ""


def _object(raw: str, name: str) -> dict[str, object]:
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        raise InputError(
            f"the {name} hook gave no JSON object on stdin",
            hint=f"run `log --agent {name}` only as the {name} session-end hook",
        )
    return data
