"""Reflection in minibatches: a contrastive analyst, a failure analyst and a success analyst.

The cases come from one step's rollouts: items whose K attempts disagree (contrast: a good and a
bad attempt side by side), items that failed every time (failure: the bad attempt and why it was
judged bad) and items that passed every time (success: what reliably works, so it is kept). Each
analyst sees its cases in minibatches, one optimizer call each, through the night's own prompt
builder and reply parser (:mod:`skillopt_sleep.optimize.reflect`), with its own system prompt, the
current rules, what was already tried, and the optimizer's notes from earlier epochs.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from ..models import Edit, TaskRecord
from ..rollouts.replay import Rollout
from ..rules.guards import managed_rules
from ..rules.managed_block import frontmatter
from . import conversation
from .aggregate import Proposed
from .optimizer import Optimizer
from .prompts import Prompts
from .reflect import Case, parse_edits, reflection_prompt


@dataclass(frozen=True)
class Context:
    """What every reflection of a unit shows besides its cases."""

    skill: str
    mode: str
    tried: Sequence[Edit]
    notes: str


def sort_cases(
    items: Sequence[TaskRecord], rollouts: dict[str, list[Rollout]]
) -> dict[str, list[Case]]:
    """The items as contrast, failure and success cases (items with no scored rollout left out)."""
    out: dict[str, list[Case]] = {"contrast": [], "failure": [], "success": []}
    for item in items:
        scored = [r for r in rollouts.get(item.id, []) if r.score is not None]
        if not scored:
            continue
        best = max(scored, key=lambda r: (r.passed, r.score or 0.0))
        worst = min(scored, key=lambda r: (r.passed, r.score or 0.0))
        passes = sum(r.passed for r in scored)
        if 0 < passes < len(scored) or (best.score or 0.0) > (worst.score or 0.0):
            out["contrast"].append(Case("contrast", item, best, worst))
        elif passes == 0:
            out["failure"].append(Case("failure", item, None, worst))
        else:
            out["success"].append(Case("success", item, best, None))
    return out


def current_rules(ctx: Context) -> list[str]:
    if ctx.mode == "rules":
        return managed_rules(ctx.skill)
    body = ctx.skill[len(frontmatter(ctx.skill) or "") :]
    return [ln.strip() for ln in body.splitlines() if ln.strip()]


def prompt_for(cases: Sequence[Case], ctx: Context, head: str = "") -> str:
    """The night's reflection prompt, with the notes (and in document mode the skill) before the
    cases, and the conversations that say more than a task and its answer after them."""
    body = reflection_prompt(cases, current_rules(ctx), ctx.tried)
    said = conversation.section(cases)  # after the cases, before the request for rules
    if said:
        head_, sep, ask = body.rpartition("\nPropose the rules now")
        body = head_ + "\n" + said + sep.lstrip("\n") + ask if sep else body + "\n\n" + said
    extra = head
    if ctx.notes.strip():
        extra += "## NOTES FROM EARLIER EPOCHS\n" + ctx.notes.strip() + "\n\n"
    if ctx.mode == "document":
        extra += "## CURRENT SKILL\n" + ctx.skill.strip() + "\n\n"
    return body.replace("## CASES", extra + "## CASES", 1) if extra else body


def system_for(prompts: Prompts, name: str, ctx: Context) -> str:
    return prompts[name] + (prompts["document_mode"] if ctx.mode == "document" else "")


def seed_of(*parts: object) -> int:
    return int(hashlib.sha256("\x00".join(map(str, parts)).encode()).hexdigest()[:8], 16)


async def reflect(
    optimizer: Optimizer,
    prompts: Prompts,
    groups: dict[str, list[Case]],
    ctx: Context,
    *,
    minibatch: int,
    unit: str,
    head: str = "",
    analyst_of: dict[str, str] | None = None,
) -> list[Proposed]:
    """Every analyst's proposals over its cases, one optimizer call per minibatch; the calls run
    concurrently (under the optimizer's limit), their proposals kept in the calls' order."""
    analyst_of = analyst_of or {
        "contrast": "reflect_contrast",
        "failure": "reflect_failure",
        "success": "reflect_success",
    }
    calls = []
    for group, cases in groups.items():
        for start in range(0, len(cases), minibatch):
            chunk = cases[start : start + minibatch]
            ask = optimizer.ask(
                system_for(prompts, analyst_of[group], ctx),
                prompt_for(chunk, ctx, head),
                partial(parse_edits, cases=chunk),
                seed=seed_of(unit, group, start),
                tag=f"reflect-{group}",
            )
            calls.append((group, ask))
    replies = await asyncio.gather(*(ask for _, ask in calls))
    return [
        Proposed(e, group, batch, i)
        for batch, ((group, _), edits) in enumerate(zip(calls, replies, strict=True))
        for i, e in enumerate(edits or [])
    ]
