"""A step's batch of training items, stratified by task type.

Items carry their type as a ``type:NAME`` tag (a seed environment's ``task_type``, a task file's
``tags``). A batch drawn at random from a set where one type is rare may leave it out for
several steps; so each type gets its share of the batch (at least one item while the batch has
room for every type), the largest remainders rounding it up. A set with one type or none is
sampled as a whole, as before.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..models import TaskRecord

UNTYPED = ""


def task_type(item: TaskRecord) -> str:
    """The item's type (``type:NAME`` tag), or ``""`` when it has none."""
    return next((t.removeprefix("type:") for t in item.tags if t.startswith("type:")), UNTYPED)


def shares(sizes: dict[str, int], n: int) -> dict[str, int]:
    """How many items of each type a batch of ``n`` takes: one of each type when ``n`` allows,
    the rest in proportion to what is left of each, the largest remainders rounded up."""
    n = min(n, sum(sizes.values()))
    out = dict.fromkeys(sizes, 1 if n >= len(sizes) else 0)
    left = {t: sizes[t] - out[t] for t in sizes}
    rest, pool = n - sum(out.values()), sum(left.values())
    if rest and pool:
        exact = {t: rest * left[t] / pool for t in sizes}
        for t in sizes:
            out[t] += int(exact[t])
        for t in sorted(sizes, key=lambda t: (-(exact[t] - int(exact[t])), t)):
            if sum(out.values()) < n and out[t] < sizes[t]:
                out[t] += 1
    return out


def stratified(pool: Sequence[TaskRecord], n: int, rng: random.Random) -> list[TaskRecord]:
    """``n`` items of ``pool`` (all of them when it has fewer), each type its share."""
    items = sorted(pool, key=lambda t: t.id)
    by_type: dict[str, list[TaskRecord]] = {}
    for item in items:
        by_type.setdefault(task_type(item), []).append(item)
    if len(by_type) <= 1:
        return rng.sample(items, min(n, len(items)))
    take = shares({t: len(v) for t, v in by_type.items()}, n)
    batch = [x for t in sorted(by_type) for x in rng.sample(by_type[t], take[t])]
    rng.shuffle(batch)
    return batch
