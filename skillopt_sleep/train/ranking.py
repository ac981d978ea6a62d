"""The model's ranking of a step's edits when there are more than the step may test (the seeds'
"gradient clipping"): the optimizer picks the budget's most important edits, in order, with the
``ranking`` prompt. The edits it did not pick follow in the lexical order (support first), so an
edit the guards refuse leaves its place to the next one. A reply with no usable index, twice,
keeps the lexical order (:func:`.aggregate.rank`). Within the budget no call is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from pydantic import BaseModel, ConfigDict, ValidationError

from ..checks.judge import extract_json
from ..errors import MalformedOutput
from ..optimize.aggregate import Proposed
from ..optimize.analysts import seed_of
from .merging import Stages, describe


class _RankReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    reasoning: str = ""
    selected_indices: list[int]


def parse_selection(text: str, n: int, budget: int) -> list[int]:
    """The chosen indices in order, each once, at most ``budget`` of them; ``MalformedOutput``
    when the reply is not the JSON asked for or chose no index in range."""
    try:
        reply = _RankReply.model_validate_json(extract_json(text).strip())
    except ValidationError as exc:
        raise MalformedOutput(
            f"ranking reply is not the expected JSON: {exc.errors()[0]['msg']}"
        ) from exc
    picked = [i for i in dict.fromkeys(reply.selected_indices) if 0 <= i < n][:budget]
    if not picked:
        raise MalformedOutput(f"ranking reply chose no index from 0 to {n - 1}")
    return picked


async def model_rank(
    stages: Stages, ranked: Sequence[Proposed], budget: int
) -> tuple[list[Proposed], str]:
    """``ranked`` (in the lexical order) reordered by the model's choice of ``budget`` edits, and
    who ranked them: ``model``, or ``support`` when no call was needed or no usable reply came."""
    if len(ranked) <= budget:
        return list(ranked), "support"
    body = (
        f"## CURRENT SKILL\n{stages.skill.strip()}\n\n"
        f"## EDITS ({len(ranked)} edits, budget {budget})\n{describe(ranked)}\n\n"
        f"Choose the {budget} most important edits, most important first, as JSON."
    )
    picked = await stages.optimizer.ask(
        stages.prompts["ranking"],
        body,
        partial(parse_selection, n=len(ranked), budget=budget),
        seed=seed_of(stages.unit, "rank"),
        tag="rank",
    )
    if picked is None:
        return list(ranked), "support"
    rest = [p for i, p in enumerate(ranked) if i not in picked]
    return [ranked[i] for i in picked] + rest, "model"
