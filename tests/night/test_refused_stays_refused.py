"""What was refused stays refused: a rejected edit the optimizer words again is not tested again."""

from __future__ import annotations

import json
import re

from skillopt_sleep import run_night
from skillopt_sleep.backends.base import Completion, Health, Request
from skillopt_sleep.backends.simulated import WORLD, SimulatedBackend
from skillopt_sleep.models import Edit
from skillopt_sleep.rules.refused import RefusedEdits, same_rule

LESSON = next(p.lesson for p in WORLD if p.key == "pytest-quiet")
REWORDED = "Always run the suite of tests with `pytest -q` and never with a bare `pytest`!"


class RewordingOptimizer:
    """The simulated optimizer, saying the pytest rule in other words."""

    name = model = "rewording"

    def __init__(self) -> None:
        self.inner = SimulatedBackend(noise=0.0)
        self.proposed: list[str] = []

    async def complete(self, request: Request) -> Completion:
        done = await self.inner.complete(request)
        edits = json.loads(done.text)["edits"]
        parts = re.split(r"^### Case (\d+)\b.*$", request.prompt, flags=re.MULTILINE)
        cited = [
            int(parts[i])
            for i in range(1, len(parts) - 1, 2)
            if re.search(r"Task: .*\b(?:tests?|suite)\b", parts[i + 1])
        ]
        edits.append(
            {"target": "skill", "op": "add", "content": REWORDED, "rationale": "", "cases": cited}
        )
        self.proposed += [e["content"] for e in edits]
        return Completion(
            json.dumps({"edits": edits}), done.input_tokens, done.output_tokens, 0.0, "rewording"
        )

    async def check(self) -> Health:
        return Health(True, "rewording")


def test_a_rejected_edit_proposed_again_in_other_words_is_not_tested_again(sample_project):
    project, tasks = sample_project
    pytest_tasks = [t.id for t in tasks if "pytest-quiet" in t.tags]
    rejected = Edit(
        target="skill",
        op="add",
        content=LESSON,
        status="rejected",
        reason="rejected by the user",
        cites=pytest_tasks[:2],
    )
    optimizer = RewordingOptimizer()
    result = run_night(
        tasks, project, target=SimulatedBackend(), optimizer=optimizer, tried=[rejected]
    )
    s = result.summary
    assert REWORDED in optimizer.proposed
    assert all(not same_rule(e.edit.content, LESSON) for e in s.evidence)  # no rollout spent on it
    refused = [e for e in s.rejected_edits if e.content == REWORDED]
    assert refused and refused[0].reason.startswith("refused before, in other words")
    assert all(REWORDED not in text for text in (result.candidate or {}).values())


def test_the_same_rule_in_other_words_is_recognised_and_its_opposite_is_not():
    assert same_rule(LESSON, REWORDED)
    assert same_rule(
        "Use the logging module, never print(), for diagnostics.",
        "For diagnostics use the logging module and never print()",
    )
    assert not same_rule(LESSON, "Always run the test suite with a bare `pytest`.")
    assert not same_rule(LESSON, "Keep summaries under 300 characters.")


def test_only_evidence_from_a_new_kind_of_task_reopens_a_refused_edit(sample_project):
    _, tasks = sample_project
    by_id = {t.id: t for t in tasks}
    pytest_task = next(t for t in tasks if "pytest-quiet" in t.tags)
    same_kind = next(t for t in tasks if "pytest-quiet" in t.tags and t.id != pytest_task.id)
    unrelated = next(t for t in tasks if "readme-title" in t.tags)
    new_kind = unrelated.model_copy(
        update={
            "id": "t_new",
            "tags": ["ci"],
            "checks": [],
            "intent": "Run the test suite in CI",
            "feedback": "use pytest -q",
        }
    )
    by_id["t_new"] = new_kind
    refused = RefusedEdits([Edit(target="skill", content=LESSON, cites=[pytest_task.id])], by_id)
    assert refused.refusal(Edit(target="skill", content=REWORDED, cites=[same_kind.id])) is not None
    assert (
        refused.refusal(Edit(target="skill", content=REWORDED, cites=[unrelated.id])) is not None
    )  # loose
    assert refused.refusal(Edit(target="skill", content=REWORDED, cites=[new_kind.id])) is None
    unknown = RefusedEdits([Edit(target="skill", content=LESSON, cites=["gone"])], by_id)
    assert unknown.refusal(Edit(target="skill", content=REWORDED, cites=[new_kind.id])) is not None


def test_a_refusal_that_depended_on_its_night_refuses_nothing_later():
    over = Edit(
        target="skill", content=LESSON, status="rejected", reason="over tonight's edit budget of 1"
    )
    url = Edit(
        target="skill",
        content="See https://docs.example.org/x",
        reason="points to a URL this project never used: x",
    )
    refused = RefusedEdits([over, url])
    assert refused.refusal(Edit(target="skill", content=REWORDED)) is None
    assert refused.refusal(Edit(target="skill", content="See https://docs.example.org/x")) is None
