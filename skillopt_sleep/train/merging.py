"""The model's merge of a step's proposed edits: paraphrases become one edit, which word overlap
cannot see ("Keep every summary under 300 characters." and "Keep summaries under 300
characters." share too few words to be one edit by :func:`.aggregate.similar`).

Hierarchical and failure first, as the seed libraries merge: each reflection call's edits are a
patch; the failure side's patches and the success side's are merged apart, ``batch_size``
patches a call, level after level until one set is left, and the two sides are combined last
(``merge_final``). The calls of a level run concurrently. The model answers with groups of
indices (``{"edits": [{"from": [0, 3], "content": "..."}]}``), so a merged edit still cites the
union of its members' cases and counts their support; an edit the reply leaves out is kept
alone, never lost. A reply that is unusable twice, or a group the reply gets wrong (an index out
of range or given twice, edits of different ops or replacing different text), leaves that call's
edits to the lexical merge (:func:`.aggregate.merge_level`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..checks.judge import extract_json
from ..errors import MalformedOutput
from ..optimize.aggregate import Proposed, merge_level, priority
from ..optimize.analysts import seed_of
from ..optimize.optimizer import Optimizer
from ..optimize.prompts import Prompts
from ..rules.clauses import atomic_edits
from ..rules.managed_block import normal_rule

SUCCESS_SIDE = frozenset({"success", "improved"})  # what works; every other analyst: failures


@dataclass(frozen=True)
class Stages:
    """What the model stages of one unit need: the optimizer, the prompts, the current skill, the
    unit's name (every call's seed derives from it) and how many patches a merge call takes."""

    optimizer: Optimizer
    prompts: Prompts
    skill: str
    unit: str
    batch_size: int = 8


class _Group(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    members: list[int] | None = Field(default=None, alias="from")
    content: str = ""


class _MergeReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    reasoning: str = ""
    edits: list[_Group]


def describe(items: Sequence[Proposed]) -> str:
    """The edits as the model sees them: a JSON list, each with its index."""
    rows = []
    for i, p in enumerate(items):
        row: dict[str, object] = {"index": i, "op": p.edit.op, "content": p.edit.content}
        if p.edit.old:
            row["old"] = p.edit.old
        side = "success" if p.analyst in SUCCESS_SIDE else "failure"
        rows.append({**row, "support": p.support, "analyst": p.analyst, "side": side})
    return json.dumps(rows, ensure_ascii=False, indent=1)


def parse_groups(text: str, items: Sequence[Proposed]) -> list[tuple[list[int], str]]:
    """The reply's groups as (indices, wording); ``MalformedOutput`` when it is not the JSON asked
    for or a group is wrong. A group without ``from`` is the edit whose text it repeats."""
    try:
        reply = _MergeReply.model_validate_json(extract_json(text).strip())
    except ValidationError as exc:
        raise MalformedOutput(
            f"merge reply is not the expected JSON: {exc.errors()[0]['msg']}"
        ) from exc
    if not reply.edits:
        raise MalformedOutput("merge reply grouped no edit")
    by_text = {normal_rule(p.edit.content): i for i, p in enumerate(items)}
    seen: set[int] = set()
    out: list[tuple[list[int], str]] = []
    for n, group in enumerate(reply.edits):
        members = group.members
        if members is None:
            if normal_rule(group.content) not in by_text:
                raise MalformedOutput(f"merged edit {n} names no proposed edit: give its 'from'")
            members = [by_text[normal_rule(group.content)]]
        members = list(dict.fromkeys(members))
        if not members or any(not 0 <= i < len(items) or i in seen for i in members):
            raise MalformedOutput(f"merged edit {n}: indices {members} out of range or repeated")
        if len({(items[i].edit.op, items[i].edit.old or "") for i in members}) > 1:
            raise MalformedOutput(f"merged edit {n} groups edits of different ops or old text")
        seen.update(members)
        out.append((members, group.content.strip()))
    return out + [([i], "") for i in range(len(items)) if i not in seen]


def grouped(items: Sequence[Proposed], groups: Sequence[tuple[list[int], str]]) -> list[Proposed]:
    """One edit per group: the wording the model gave (the first member's when it gave none, or
    one that says several things: a merge adds no requirement), the union of the cases, the sum
    of the support, the failure analyst's place first."""
    out: list[Proposed] = []
    for members, wording in groups:
        ms = sorted((items[i] for i in members), key=priority)
        head = ms[0]
        edit = head.edit
        if wording and normal_rule(wording) != normal_rule(edit.content):
            candidate = edit.model_copy(update={"content": wording})
            edit = candidate if len(atomic_edits([candidate])) == 1 else edit
        cites = list(dict.fromkeys(c for m in ms for c in m.edit.cites))
        texts = [m.edit.content for m in ms if m.edit.content != edit.content]
        out.append(
            Proposed(
                edit.model_copy(update={"cites": cites}),
                head.analyst,
                min(m.batch for m in ms),
                min(m.order for m in ms),
                sum(m.support for m in ms),
                [*dict.fromkeys([*texts, *(t for m in ms for t in m.merged)])],
                "model" if len(ms) > 1 else head.merged_by,
            )
        )
    return out


async def merge_call(
    stages: Stages, items: list[Proposed], prompt: str, tag: str
) -> list[Proposed]:
    """One merge call over ``items`` (the lexical merge when the reply is unusable)."""
    body = f"## CURRENT SKILL\n{stages.skill.strip()}\n\n## PROPOSED EDITS ({len(items)})\n"
    body += describe(items) + "\n\nGroup the edits now, as JSON."
    groups = await stages.optimizer.ask(
        stages.prompts[prompt],
        body,
        partial(parse_groups, items=items),
        seed=seed_of(stages.unit, tag),
        tag=tag.split(":")[0],
    )
    return merge_level(items) if groups is None else grouped(items, groups)


async def _side(stages: Stages, patches: list[list[Proposed]], side: str) -> list[Proposed]:
    """One side's patches merged level by level, ``batch_size`` patches a call, into one set."""
    level = 0
    while patches:
        level += 1
        chunks = [
            patches[i : i + stages.batch_size] for i in range(0, len(patches), stages.batch_size)
        ]
        patches = list(
            await asyncio.gather(*(_chunk(stages, c, level, side, n) for n, c in enumerate(chunks)))
        )
        if len(patches) == 1:
            return patches[0]
    return []


async def _chunk(
    stages: Stages, chunk: list[list[Proposed]], level: int, side: str, n: int
) -> list[Proposed]:
    flat = [p for patch in chunk for p in patch]
    if len(flat) < 2 or (len(chunk) == 1 and level > 1):  # nothing new to merge
        return flat
    return await merge_call(stages, flat, f"merge_{side}", f"merge-{side}:{level}:{n}")


async def model_merge(stages: Stages, proposals: Sequence[Proposed]) -> list[Proposed]:
    """The step's proposals merged by the model: each side apart, then both together."""
    sides: dict[str, dict[int, list[Proposed]]] = {"failure": {}, "success": {}}
    for p in proposals:
        side = "success" if p.analyst in SUCCESS_SIDE else "failure"
        sides[side].setdefault(p.batch, []).append(p)
    failure, success = await asyncio.gather(
        *(_side(stages, [b[k] for k in sorted(b)], s) for s, b in sides.items())
    )
    if failure and success:
        return await merge_call(stages, [*failure, *success], "merge_final", "merge-final")
    return failure or success
