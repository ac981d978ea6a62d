"""A world where a planted rule shows only in partial credit.

Each request asks for a release note, scored by two checks: it states the version and the
date. The agent writes each part only when the skill has a rule for it (at
``follow_rate``; never without one). A note passes only with both, so one rule alone moves
no pass at all: every attempt fails before it and after it, and only the share of checks met
(the soft score) rises. A gate that scores passes (``gate_metric = "hard"``) sees no rule help
and learns nothing; one that scores the mix sees each rule's share and learns both, after
which the notes pass. The optimizer proposes the two rules (and sometimes a useless one) from
whatever cases it is shown; everything else (meta notes, merging, ranking) is the simulated
backend's.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any

from skillopt_sleep.backends.base import Completion, Health, Request
from skillopt_sleep.backends.simulated import SimulatedBackend

SKILL = "You write release notes for the team's app.\n"
USELESS = "Write clearly and check your work."


@dataclass(frozen=True)
class Part:
    key: str
    rule: str  # regex: the skill holds a rule for this part
    lesson: str  # the rule the optimizer proposes
    text: str  # what the agent writes when it follows the rule
    check: str  # what the note must contain


PARTS = (
    Part(
        "version",
        r"version number",
        "Open the note with the version number, as 'Version: X.Y.Z'.",
        "Version: 2.1.0",
        "Version:",
    ),
    Part(
        "date",
        r"release date",
        "Give the release date, as 'Date: YYYY-MM-DD'.",
        "Date: 2026-03-01",
        "Date:",
    ),
)
FEATURES = (
    "dark mode",
    "CSV export",
    "faster search",
    "team invites",
    "audit log",
    "offline sync",
    "SSO login",
    "bulk edit",
    "webhooks",
    "custom fields",
    "two-factor auth",
    "usage reports",
    "API tokens",
    "saved filters",
    "email digests",
    "tag colours",
    "undo history",
    "comment threads",
    "file previews",
    "calendar view",
)


def items(n: int = 20, ratio: tuple[int, int, int] = (2, 1, 2)) -> list[dict[str, Any]]:
    """``n`` release-note requests with splits (train, val, test in ``ratio``)."""
    out = []
    total = sum(ratio)
    for i, feature in enumerate(FEATURES[:n]):
        slot = i % total
        split = "train" if slot < ratio[0] else "val" if slot < ratio[0] + ratio[1] else "test"
        out.append(
            {
                "id": f"note-{i + 1}",
                "intent": f"Write the release note for {feature}.",
                "checks": [{"kind": "contains", "value": p.check} for p in PARTS],
                "task_type": "release-note",
                "split": split,
            }
        )
    return out


def parts_in(skill: str) -> dict[str, bool]:
    """Which planted rules ``skill`` holds."""
    return {p.key: bool(re.search(p.rule, skill)) for p in PARTS}


class PartialCreditBackend:
    """The target and optimizer of this world; the rest answered by the simulated backend."""

    name = "partial-credit"
    model = "sim-partial"

    def __init__(self, follow_rate: float = 0.9, noise: float = 0.3) -> None:
        self.follow_rate, self.noise = follow_rate, noise
        self.rest = SimulatedBackend()
        self.systems: list[str] = []  # every target request's system prompt, as sent

    async def complete(self, request: Request) -> Completion:
        rng = random.Random(f"{request.seed}:{request.tag}:{request.prompt}")
        if request.role == "target":
            self.systems.append(request.system)
            text = self._answer(request, rng)
        elif request.role == "optimizer" and request.tag.startswith("reflect"):
            text = self._optimize(request, rng)
        else:
            return await self.rest.complete(request)
        return Completion(text, len(request.system + request.prompt) // 4, len(text) // 4, 0.0)

    async def check(self) -> Health:
        return Health(True, "partial-credit world (offline)")

    def _answer(self, request: Request, rng: random.Random) -> str:
        lines = [f"Release note: {request.prompt.strip().splitlines()[-1][:80]}"]
        for part in PARTS:
            if re.search(part.rule, request.system) and rng.random() < self.follow_rate:
                lines.append(part.text)
        return "\n".join(lines) + "\n"

    def _optimize(self, request: Request, rng: random.Random) -> str:
        shown = request.prompt
        cases = [int(n) for n in re.findall(r"^### Case (\d+)", shown, re.MULTILINE)]
        edits: list[dict[str, object]] = [
            {"target": "skill", "op": "add", "content": p.lesson, "cases": cases}
            for p in PARTS
            if p.lesson not in shown and not re.search(p.rule, request.system + shown)
        ]
        if rng.random() < self.noise:
            edits.append({"target": "skill", "op": "add", "content": USELESS, "cases": cases[:1]})
        return json.dumps({"edits": edits})
