"""Paraphrased patches: the model merge of a training step against the word-overlap merge.

:data:`FAMILIES` are rules as analysts propose them: each family is one rule in several
wordings (what a merge should make one edit), and some families are a single rule that shares
many words with another family but asks for something else (a shorter limit, the opposite
form): what a merge must keep apart. Every wording is its own patch (one reflection call's
reply), all on the failure side, so the hierarchical merge runs over several levels
(``merge_batch_size`` patches a call).

Counted over pairs of wordings: *merges found* are pairs of one family that end in one edit
(of all such pairs), *wrong merges* pairs of two families that do.

The model here is the simulated backend's reader of edits
(:mod:`skillopt_sleep.backends.simulated_merge`): a synonym table and a set comparison, written
by the same hand as these wordings. So the numbers show what the merge stage does with a
model's groups (cases and support carried, levels, nothing lost) and the misses of the word
overlap, not how well a real model merges. A model whose replies are unusable is run too: its
result must be the word overlap's, by the fallback.
"""

from __future__ import annotations

import asyncio
import random
from itertools import combinations
from typing import Any

from skillopt_sleep.backends.budget import Budget
from skillopt_sleep.backends.retry import RetryPolicy
from skillopt_sleep.backends.scripted import ScriptedBackend
from skillopt_sleep.backends.simulated import SimulatedBackend
from skillopt_sleep.models import Edit
from skillopt_sleep.optimize import aggregate
from skillopt_sleep.optimize.aggregate import Proposed
from skillopt_sleep.optimize.optimizer import Optimizer
from skillopt_sleep.optimize.prompts import load_prompts
from skillopt_sleep.rollouts.replay import Calls
from skillopt_sleep.settings import BudgetSettings
from skillopt_sleep.train.merging import Stages, model_merge

FAMILIES: dict[str, list[str]] = {
    "summary-300": [
        "Keep every summary under 300 characters.",
        "Keep summaries under 300 characters.",
        "Summaries must stay below 300 chars.",
        "Write each summary in at most 300 characters.",
    ],
    "pytest-q": [
        "Run the test suite with `pytest -q`, never bare `pytest`.",
        "Always run tests using `pytest -q`.",
        "Use `pytest -q` to run the tests.",
    ],
    "logging": [
        "Use the logging module (logging.getLogger(__name__)), never print(), for diagnostics.",
        "Log diagnostics with logging.getLogger(__name__) instead of print().",
        "Never use print() for debug output; use the logging module.",
    ],
    "conventional-commits": [
        "Write commit messages as Conventional Commits: `type(scope): summary`.",
        "Commit messages follow the Conventional Commits format (type(scope): summary).",
        "Use Conventional Commits for every commit message.",
    ],
    "type-hints": [
        "Give every new Python function full type hints, return type included.",
        "Annotate all new functions with type hints, including the return type.",
        "Every new function needs complete type annotations.",
    ],
    "digits": [
        "Write numbers as digits, not words.",
        "Give numeric answers in digits, never spelled out.",
        "Use numerals for numbers.",
    ],
    "answer-alone": [
        "Answer with the answer alone, no sentence.",
        "Reply with just the answer, not a full sentence.",
    ],
    # alike in words, other in meaning: each must stay apart from the families above
    "commit-72": ["Keep commit messages under 72 characters."],
    "summary-100": ["Keep summaries under 100 characters."],
    "words-not-digits": ["Write numbers as words, not digits."],
    "print-debug": ["Use print() for quick debugging output."],
    "ruff-q": ["Run the linter with `ruff check -q`."],
}


def proposals() -> tuple[list[Proposed], dict[str, str]]:
    """Every wording as its own patch (one edit citing one case), and each wording's family."""
    out, family = [], {}
    for n, (name, wordings) in enumerate((name, w) for name, ws in FAMILIES.items() for w in ws):
        edit = Edit(target="skill", op="add", content=wordings, cites=[f"case-{n}"])
        out.append(Proposed(edit, "failure", n, 0))
        family[wordings] = name
    random.Random(7).shuffle(out)  # the analysts' replies come in no family order
    for batch, p in enumerate(out):
        p.batch = batch
    return out, family


def score(merged: list[Proposed], family: dict[str, str]) -> dict[str, Any]:
    """Merges found and wrong merges, over pairs of wordings; nothing lost."""
    groups = [{p.edit.content, *p.merged} for p in merged]
    together = {frozenset(pair) for g in groups for pair in combinations(sorted(g), 2)}
    same = {frozenset(pair) for pair in combinations(sorted(family), 2) if _one(pair, family)}
    found = len(together & same)
    return {
        "edits_out": len(merged),
        "families": len(FAMILIES),
        "merges_found": found,
        "merge_pairs": len(same),
        "wrong_merges": len(together - same),
        "wordings_kept": sum(len(g) for g in groups),
        "cases_cited": len({c for p in merged for c in p.edit.cites}),
    }


def _one(pair: tuple[str, str], family: dict[str, str]) -> bool:
    return family[pair[0]] == family[pair[1]]


def _stages(backend: Any, batch_size: int) -> Stages:
    unlimited = BudgetSettings(max_calls=None, max_tokens=None, max_cost_usd=None)
    calls = Calls(Budget(unlimited), RetryPolicy(max_retries=0), random.Random(0))
    optimizer = Optimizer(backend, calls, concurrency=4)
    return Stages(optimizer, load_prompts(), "You help the team.\n", "bench", batch_size)


def compare(batch_size: int = 8) -> dict[str, Any]:
    """The word-overlap merge, the simulated model's, and a model that never answers usably."""
    items, family = proposals()
    lexical = aggregate.merge(items)
    model_stages = _stages(SimulatedBackend(), batch_size)
    model = asyncio.run(model_merge(model_stages, proposals()[0]))
    broken_stages = _stages(ScriptedBackend(responder=lambda r: "I cannot do that."), batch_size)
    broken = asyncio.run(model_merge(broken_stages, proposals()[0]))
    return {
        "wordings": len(family),
        "merge_batch_size": batch_size,
        "lexical": score(lexical, family),
        "model": {**score(model, family), "calls": len(model_stages.optimizer.log)},
        "unusable_model": {
            **score(broken, family),
            "unusable_replies": len(broken_stages.optimizer.skipped),
        },
        "model_is_simulated": True,
    }
