"""Checks mined by a model, for corrections the offline heuristics could not turn into a rule.

Used by ``harvest`` only when an optimizer backend is configured, at most ``harvest.llm_checks``
calls a run, under the budget. The model sees redacted records only. Every check it proposes
goes through the same validation as a heuristic one: well formed, failing on the attempt the
user corrected (its words, or its actions for an action check), and passing on the user's own
example when the correction names one (:mod:`.examples`: a check that fails there contradicts
the correction it came from). A bad or failed answer just leaves the record without new checks.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from dataclasses import dataclass

from pydantic import ValidationError

from ..action_models import ACTION_KINDS
from ..backends.base import Request
from ..models import Check, TaskRecord
from ..redact import redact
from .action_checks import validated_actions
from .examples import hold, user_example
from .feedback import validated
from .model_helper import ModelHelper, json_request

SYSTEM = (
    "You turn a user's correction of a coding agent into automatic checks on the agent's next "
    'answer to the same request. Answer with JSON only: {"checks": [{"kind": K, "value": V}]} '
    "where K is one of contains, not_contains, starts_with, heading, regex, max_chars, rubric "
    "(on the answer's text), or ran, never_ran (V a regex of a command), changed, untouched, "
    "never_read (V a path) on what the agent did. "
    "Use a rule kind only for what the correction states literally (a command, a name, a title); "
    "use rubric (V = one sentence a judge can apply) for anything else. At most 3 checks; "
    '{"checks": []} if the correction states nothing checkable.'
)
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def wants_checks(record: TaskRecord) -> bool:
    """A corrected task the heuristics found no rule for."""
    return record.outcome in ("failure", "mixed") and bool(record.feedback) and not record.checks


def parse_checks(text: str) -> list[Check]:
    """The checks in a model's answer; anything malformed is dropped, never raised."""
    match = _JSON_OBJECT.search(text)
    if not match:
        return []
    try:
        data = json.loads(match.group(0))
    except ValueError:
        return []
    items = data.get("checks") if isinstance(data, dict) else None
    checks: list[Check] = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("value"), str):
            item = {**item, "value": redact(item["value"])}
        try:
            checks.append(Check.model_validate(item))
        except ValidationError:
            continue
    return checks


def _request(record: TaskRecord) -> Request:
    payload = {
        "request": record.intent,
        "attempt": record.attempt[:1500],
        "correction": record.feedback,
    }
    return json_request(
        "optimizer", SYSTEM, payload, max_tokens=400, tag="mine-checks", temperature=0.0
    )


@dataclass
class LlmCheckMiner(ModelHelper):
    """A ``Harvester`` miner: adds validated model-mined checks to corrected records."""

    def __call__(self, records: list[TaskRecord]) -> list[TaskRecord]:
        return asyncio.run(self._mine(records))

    async def _mine(self, records: list[TaskRecord]) -> list[TaskRecord]:
        out: list[TaskRecord] = []
        rng = random.Random(0)
        for record in records:
            answer = (
                await self.ask(_request(record), rng)
                if (self.can_ask and wants_checks(record))
                else None
            )
            checks = held(parse_checks(answer), record) if answer else []
            out.append(record.model_copy(update={"checks": checks}) if checks else record)
        return out


def held(checks: list[Check], record: TaskRecord) -> list[Check]:
    """The proposed checks that fail on the corrected attempt and pass on the user's example
    (narrowed where a heuristic check would be), each marked with the example it passed on."""
    actions = [c for c in checks if c.kind in ACTION_KINDS]
    failing = [
        *validated([c for c in checks if c.kind not in ACTION_KINDS], record.attempt),
        *validated_actions(actions, record.actions),
    ]
    failing.sort(key=checks.index)  # in the order the model proposed them
    return hold(failing, user_example(record.feedback, record.actions), record.actions)
