"""Select tonight's tasks and split them into train and holdout.

The split is a hash of the task id, so a task's side never changes between nights; only a night
with no task on the train side learns from its holdout tasks instead of from nothing.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import islice

from ..models import Check, TaskRecord
from ..settings import NightSettings


def side(task_id: str, holdout_fraction: float) -> str:
    """``holdout`` or ``train``, fixed for a task id."""
    u = int(hashlib.sha256(f"split:{task_id}".encode()).hexdigest()[:8], 16) / 0x1_0000_0000
    return "holdout" if u < holdout_fraction else "train"


OLDER = 200  # older logged tasks a night keeps at hand for the unseen checks, the newest first


@dataclass(frozen=True)
class Selection:
    """Tonight's tasks, split; what could not be scored; and ``older``: scorable tasks of the log
    the night did not select (the newest :data:`OLDER`), which no reflection tonight is shown, so
    an edit whose kind has no unseen task tonight is checked on them instead of waiting a night."""

    train: list[TaskRecord]
    holdout: list[TaskRecord]
    skipped: list[str]
    older: list[TaskRecord] = field(default_factory=list)


def scorable(task: TaskRecord) -> TaskRecord | None:
    """The task with checks to score it: its own, or a rubric from the user's feedback."""
    if task.checks:
        return task
    if task.feedback:
        rubric = Check(
            kind="rubric", value=f"The answer respects the user's feedback: {task.feedback}"
        )
        return task.model_copy(update={"checks": [rubric]})
    return None


def select_tasks(
    tasks: Sequence[TaskRecord],
    settings: NightSettings,
    rng: random.Random,
    last_night: datetime | None = None,
) -> Selection:
    """New tasks since the last night, plus a recall of older ones; capped; split by hash."""
    new = [t for t in tasks if last_night is None or t.created_at > last_night]
    old = [t for t in tasks if last_night is not None and t.created_at <= last_night]
    recalled = rng.sample(old, min(settings.recall, len(old))) if old else []
    chosen = sorted(new, key=lambda t: t.created_at, reverse=True)[: settings.max_tasks]
    chosen += recalled[: max(0, settings.max_tasks - len(chosen))]
    skipped: list[str] = []
    ready: list[TaskRecord] = []
    for task in sorted(chosen, key=lambda t: t.id):
        scored = scorable(task)
        if scored is None:
            skipped.append(f"task {task.id}: no checks and no feedback to score it")
        else:
            ready.append(scored)
    train = [t for t in ready if side(t.id, settings.holdout_fraction) == "train"]
    holdout = [t for t in ready if side(t.id, settings.holdout_fraction) == "holdout"]
    if holdout and not train:
        # a night whose every task falls on the holdout side (a log of one or two) would learn
        # nothing, by the luck of its ids: it learns from them, and its edits are checked only
        # where they came from (unconfirmed) until unseen tasks of their kind arrive
        train, holdout = holdout, []
    taken = {t.id for t in chosen}
    rest = sorted((t for t in tasks if t.id not in taken), key=lambda t: (t.created_at, t.id))
    # the newest first, and no further than needed: a long log is not copied whole each night
    older = list(islice((s for t in reversed(rest) if (s := scorable(t)) is not None), OLDER))
    return Selection(train, holdout, skipped, older)
