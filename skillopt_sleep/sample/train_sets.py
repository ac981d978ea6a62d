"""Task sets for training on the simulated backend (the README example and ``bench/train.py``).

*planted*: requests of five of the simulated world's recurring preferences (README title,
``pytest -q``, logging, Conventional Commits, short summaries), each scored by a check of that
preference. A rule for the preference in the skill makes the simulated agent follow it; the
simulated optimizer proposes those rules when the attempts it is shown reveal them.

*null*: requests for helper functions scored by type hints, replayed by an agent whose pass rate
is the same with a rule as without (``follow_rate`` equal to the preference's base rate): no
rule can help, so every edit a gate accepts there is a false accept.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from ..backends.simulated import WORLD, SimulatedBackend

PLANTED: dict[str, tuple[dict[str, Any], list[str]]] = {
    "readme-title": (
        {"kind": "starts_with", "value": "# Beta App"},
        [
            "Write the README for the project",
            "Draft a README introduction",
            "Update the README header",
            "Create a README for the new repo",
            "Rewrite the README opening",
            "Give the README a proper title",
            "Polish the README front page",
            "Start a README for the app",
            "Fix the README top section",
            "Prepare the README for release",
            "Tidy up the README",
            "Restructure the README",
        ],
    ),
    "pytest-quiet": (
        {"kind": "contains", "value": "pytest -q"},
        [
            "How do I run the tests?",
            "Run the test suite before merging",
            "Which command runs the unit tests?",
            "Check that the tests pass",
            "Explain how to run the integration tests",
            "Run the tests for the parser",
            "Run the whole suite",
            "How should CI run the tests?",
            "Rerun the failing tests",
            "Show me how to run tests locally",
            "Run the tests after the refactor",
            "Execute the test suite",
        ],
    ),
    "logging": (
        {"kind": "contains", "value": "logging.getLogger"},
        [
            "Add debug output to the loader",
            "Add logging to the parser",
            "Print diagnostics when the cache misses",
            "Add a debug trace to the importer",
            "Log the request path",
            "Add logging around the retry loop",
            "Help me debug the scheduler",
            "Add diagnostics to the exporter",
            "Log when the config reloads",
            "Add debug messages to the router",
            "Log every failed login",
            "Add logging to the worker",
        ],
    ),
    "conventional-commits": (
        {"kind": "starts_with", "value": "feat("},
        [
            "Write the commit message for the CSV export",
            "Commit the new export command",
            "Write a commit message for the search feature",
            "Commit the login page",
            "Draft the commit for the API client",
            "Commit the settings screen",
            "Write the commit for the dark mode",
            "Commit the upload button",
            "Prepare a commit for the billing page",
            "Commit the import wizard",
            "Commit the new dashboard",
            "Write the commit message for the backup job",
        ],
    ),
    "brevity": (
        {"kind": "max_chars", "value": 300},
        [
            "Summarize this change",
            "Give a summary of the release",
            "Summarize the pull request",
            "Write a summary of the incident",
            "Summarize what the branch does",
            "Summarize the meeting notes",
            "Summarize the migration",
            "Give me a summary of the diff",
            "Summarize the design doc",
            "Summarize the bug report",
            "Summarize the sprint",
            "Summarize the new API",
        ],
    ),
}
NULL_INTENTS = [
    "Write a helper to load the config",
    "Add a function that parses dates",
    "Write a function to merge two dicts",
    "Add a helper that slugifies titles",
    "Write a function that reads the CSV",
    "Add a helper for retries",
    "Write a function to validate emails",
    "Add a helper that formats money",
    "Write a function to chunk a list",
    "Add a helper to hash passwords",
    "Write a function that flattens lists",
    "Add a helper to parse headers",
    "Write a function to round prices",
    "Add a helper that trims names",
    "Write a function to count words",
    "Add a helper for the cache key",
    "Write a function to sort users",
    "Add a helper that reads env files",
    "Write a function to compare versions",
    "Add a helper to build URLs",
    "Write a function that dedupes rows",
    "Add a helper to parse durations",
    "Write a function to escape HTML",
    "Add a helper that zips files",
    "Write a function to split names",
    "Add a helper to load fixtures",
    "Write a function that pages results",
    "Add a helper to clamp numbers",
    "Write a function to invert a dict",
    "Add a helper that masks tokens",
]
NULL_CHECK = {"kind": "contains", "value": "-> dict"}
SKILL = (
    "---\nname: project\ndescription: How to work in this project. Use for every task.\n---\n\n"
    "# Project\n\nBe helpful.\n"
)


def planted_items(per_kind: int = 12) -> list[dict[str, Any]]:
    return [
        {"id": f"{key}-{i + 1}", "intent": intent, "checks": [check], "task_type": key}
        for key, (check, intents) in PLANTED.items()
        for i, intent in enumerate(intents[:per_kind])
    ]


def null_items(n: int = 30) -> list[dict[str, Any]]:
    return [
        {"id": f"helper-{i + 1}", "intent": intent, "checks": [NULL_CHECK], "task_type": "helper"}
        for i, intent in enumerate(NULL_INTENTS[:n])
    ]


def with_splits(
    items: list[dict[str, Any]], ratio: tuple[int, int, int], seed: int
) -> list[dict[str, Any]]:
    """Each item with a ``split``, stratified by task type so every split has every kind."""
    out = []
    by_type: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        by_type.setdefault(item["task_type"], []).append(item)
    for kind in sorted(by_type):
        group = list(by_type[kind])
        random.Random(f"{seed}:{kind}").shuffle(group)
        n_train = round(len(group) * ratio[0] / sum(ratio))
        n_val = round(len(group) * ratio[1] / sum(ratio))
        for i, item in enumerate(group):
            out.append(
                {
                    **item,
                    "split": "train" if i < n_train else "val" if i < n_train + n_val else "test",
                }
            )
    return out


def write_jsonl(path: Path, items: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return path


def null_backend() -> SimulatedBackend:
    """An agent that a rule for type hints does not move: it follows one at its base rate."""
    rate = next(p.base_rate for p in WORLD if p.key == "type-hints")
    return SimulatedBackend(follow_rate=rate)


def planted_rules_in(skill: str) -> dict[str, bool]:
    """For each planted preference, whether the skill holds a rule for it (as the agent reads it)."""
    return {p.key: bool(re.search(p.rule, skill)) for p in WORLD if p.key in PLANTED}
