"""Aggregation and ranking of the edits a step's analysts proposed.

Hierarchical: similar edits are merged first within each reflection call's proposals (a
minibatch), then across minibatches. Failures come first, so the wording of a merged edit is the
failure analyst's where it proposed one; a merged edit cites the union of the cases, and its
*support* is how many proposals it stands for. Ranking is the optimizer's own: more support first,
then the order in which it proposed them. The gate then ranks what it accepts by its evidence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..models import Edit
from ..rules.managed_block import normal_rule

ANALYSTS = ("failure", "regressed", "contrast", "slow", "success")  # merge order: failures first
SIMILAR = 0.6  # word overlap (Jaccard) that makes two edits one
_WORD = re.compile(r"[a-z0-9][a-z0-9_\-.()]+")


@dataclass
class Proposed:
    """One proposed edit, where it came from, and the proposals merged into it."""

    edit: Edit
    analyst: str
    batch: int  # which reflection call proposed it
    order: int  # its place in that call's reply (the optimizer's ranking)
    support: int = 1
    merged: list[str] = field(default_factory=list)  # texts of the proposals merged into it
    merged_by: str = ""  # "model" or "words" when it stands for several proposals


def words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(normal_rule(text)))


def similar(a: Edit, b: Edit) -> bool:
    if a.op != b.op or (a.old or "") != (b.old or ""):
        return False
    if a.key() == b.key():
        return True
    wa, wb = words(a.content), words(b.content)
    return bool(wa and wb) and len(wa & wb) / len(wa | wb) >= SIMILAR


def priority(p: Proposed) -> tuple[int, int, int]:
    return (ANALYSTS.index(p.analyst) if p.analyst in ANALYSTS else len(ANALYSTS), p.batch, p.order)


def merge_level(items: Sequence[Proposed]) -> list[Proposed]:
    out: list[Proposed] = []
    for item in sorted(items, key=priority):
        twin = next((o for o in out if similar(o.edit, item.edit)), None)
        if twin is None:
            out.append(
                Proposed(
                    item.edit,
                    item.analyst,
                    item.batch,
                    item.order,
                    item.support,
                    list(item.merged),
                    item.merged_by,
                )
            )
            continue
        cites = list(dict.fromkeys([*twin.edit.cites, *item.edit.cites]))
        twin.edit = twin.edit.model_copy(update={"cites": cites})
        twin.support += item.support
        twin.order = min(twin.order, item.order)
        twin.merged += [item.edit.content, *item.merged]
        twin.merged_by = twin.merged_by or "words"
    return out


def merge(proposals: Sequence[Proposed]) -> list[Proposed]:
    """Similar edits merged, within each reflection call first, then across calls."""
    batches: dict[int, list[Proposed]] = {}
    for p in proposals:
        batches.setdefault(p.batch, []).append(p)
    level_one = [m for b in sorted(batches) for m in merge_level(batches[b])]
    return merge_level(level_one)


def rank(merged: Sequence[Proposed]) -> list[Proposed]:
    """The optimizer's ranking: most support first, then its own order, failures before successes."""
    return sorted(merged, key=lambda p: (-p.support, p.order, priority(p), p.edit.key()))
