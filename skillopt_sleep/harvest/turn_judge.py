"""The judge model reads the turns the rules are unsure of (``[harvest] llm_classify``).

The rules go first; only a turn they cannot explain is sent, with the request it follows, and
at most ``max_calls`` a harvest, under the budget. The answer must fit a strict schema
(:class:`TurnJudgement`); an answer that does not, a failed call or a spent budget leaves the
rules' verdict as it was: kept and marked unsure, never guessed.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..backends.base import Request
from ..models import TurnKind
from ..redact import redact
from .model_helper import ModelHelper, json_request
from .turns import RuleClassifier, TurnVerdict

SYSTEM = (
    "You read one message a user sent to a coding agent, after an earlier request of the same "
    "session, and say what it is. Kinds: correction (the last attempt was wrong or must change, "
    "including reminders of what was forgotten and complaints about length or style), praise "
    "(approves the last attempt, maybe with a small extra ask), follow_up (the next step of the "
    "same request, or a question about the answer), new_request (asks for something new). "
    "The message may be in any language or only emoji. Answer with JSON only: "
    '{"kind": K, "reason": "<why, one short sentence>", "confident": true|false}.'
)
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
_TEXT_CHARS = 1500


class TurnJudgement(BaseModel):
    """The judge model's answer; anything else is refused."""

    model_config = ConfigDict(extra="forbid")

    kind: TurnKind
    reason: str = Field(min_length=1, max_length=400)
    confident: bool


def parse_judgement(text: str) -> TurnJudgement | None:
    """The judgement in a model's answer, or None when it does not fit the schema."""
    match = _JSON_OBJECT.search(text)
    if not match:
        return None
    try:
        return TurnJudgement.model_validate_json(match.group(0))
    except ValidationError:
        return None


def _request(previous: str, prompt: str) -> Request:
    payload = {
        "earlier_request": redact(previous[:_TEXT_CHARS]),
        "message": redact(prompt[:_TEXT_CHARS]),
    }
    return json_request("judge", SYSTEM, payload, max_tokens=200, tag="classify-turn")


@dataclass
class ModelClassifier(ModelHelper):
    """A ``TurnClassifier``: the rules, then the judge model for the turns they are unsure of."""

    _seen: dict[tuple[str, str], TurnVerdict] = field(default_factory=dict, repr=False)

    def classify(self, prompts: Sequence[str], first: str = "") -> list[TurnVerdict]:
        """Verdicts for the later turns of a session; ``first`` is the prompt before them."""
        return asyncio.run(self._classify(list(prompts), first))

    async def _classify(self, prompts: list[str], first: str) -> list[TurnVerdict]:
        verdicts = RuleClassifier().classify(prompts)
        rng = random.Random(0)
        previous = first
        for i, (prompt, verdict) in enumerate(zip(prompts, verdicts, strict=True)):
            known = self._seen.get((previous, prompt))
            if known is not None:  # the same turn read again (a resumed session): ask once
                verdicts[i] = known
            elif not verdict.sure and self.can_ask:
                answer = await self.ask(_request(previous, prompt), rng)
                judged = parse_judgement(answer) if answer is not None else None
                if answer is not None and judged is None:
                    self.failures += 1  # an answer outside the schema: the rules' verdict stands
                if judged is not None:
                    verdicts[i] = TurnVerdict(
                        judged.kind, judged.reason, sure=judged.confident, by="model"
                    )
                self._seen[(previous, prompt)] = verdicts[i]
            if verdicts[i].kind == "new_request":
                previous = prompt
        return verdicts
