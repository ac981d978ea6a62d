"""A hostile optimizer through a whole night: its harmful rules never reach the candidate.

The optimizer's reply mixes the helpful rules a good optimizer proposes (the simulated one's)
with hostile ones from the corpus; the gate accepts the helpful ones, and no hostile rule may
be in the candidate it staged.
"""

from __future__ import annotations

import json
from pathlib import Path

from skillopt_sleep import run_night
from skillopt_sleep.backends.base import Completion, Health, Request
from skillopt_sleep.backends.simulated import SimulatedBackend
from skillopt_sleep.rules.guards import managed_rules
from skillopt_sleep.rules.text import fold

from ..review.test_hostile_rules import DISGUISED, HOSTILE

MIXED_IN = (HOSTILE[::9] + DISGUISED[::5])[:15]  # with the 5 helpful ones, within 20 edits a reply


class MixingOptimizer:
    """The simulated optimizer's reply, with hostile rules slipped in around its helpful ones."""

    name = "mixing"
    model = "mixing"

    def __init__(self) -> None:
        self.inner = SimulatedBackend()
        self.helpful: list[str] = []
        self.replies = 0

    async def complete(self, request: Request) -> Completion:
        done = await self.inner.complete(request)
        self.replies += 1
        helpful = json.loads(done.text)["edits"][:5]
        self.helpful += [e["content"] for e in helpful]  # over every round of the night
        edits = []
        for i, rule in enumerate(MIXED_IN):
            edits.append({"target": "memory" if i % 2 else "skill", "content": rule})
            if i % 3 == 0 and helpful:
                edits.append(helpful.pop(0))
        edits += helpful
        return Completion(
            json.dumps({"edits": edits}), done.input_tokens, done.output_tokens, 0.0, "mixing"
        )

    async def check(self) -> Health:
        return Health(True, "mixing")


def test_hostile_rules_never_reach_the_candidate_of_an_accepted_night(
    sample_project, tmp_path: Path
):
    project, tasks = sample_project
    optimizer = MixingOptimizer()
    art = tmp_path / "art"
    result = run_night(
        tasks, project, target=SimulatedBackend(), optimizer=optimizer, artifacts_dir=art
    )
    s = result.summary
    assert s.decision == "accept", s.reason
    assert optimizer.helpful and {e.content for e in s.edits} <= set(optimizer.helpful)
    refused = [
        e.content for e in s.rejected_edits if e.reason.startswith(("dangerous", "contains"))
    ]
    assert optimizer.replies >= 1
    # each refused in every round it came back in, and listed once
    assert sorted(refused) == sorted(MIXED_IN)
    staged = {p.name: p.read_text(encoding="utf-8") for p in (art / "candidate").iterdir()}
    assert result.candidate is not None and set(staged) == set(result.candidate)
    assert {rule for text in staged.values() for rule in managed_rules(text)} == {
        e.content for e in s.edits
    }
    for text in staged.values():
        for rule in MIXED_IN:
            assert rule not in text and fold(rule) not in fold(text)
