"""The night's reflection prompt, as the optimizer receives it, pinned for a fixed night.

The golden text was recorded before the night's reflection joined the analysts' prompt files: the
prompt a night sends (system text, the cases, the rules shown as current, tried and ignored, the
retry note) must not change when where it is kept changes."""

from __future__ import annotations

import asyncio
import json
import random
from datetime import datetime, timezone

from skillopt_sleep.backends.base import Request
from skillopt_sleep.backends.budget import Budget
from skillopt_sleep.backends.retry import RetryPolicy
from skillopt_sleep.backends.scripted import ScriptedBackend
from skillopt_sleep.models import Check, Edit, TaskRecord
from skillopt_sleep.optimize.prompts import Prompts, load_prompts
from skillopt_sleep.optimize.proposer import OptimizerProposer
from skillopt_sleep.optimize.reflect import Case
from skillopt_sleep.rollouts.replay import Calls, Rollout
from skillopt_sleep.rules.managed_block import BEGIN, END
from skillopt_sleep.settings import BudgetSettings

WHEN = datetime(2026, 5, 1, tzinfo=timezone.utc)
FILES = {
    "SKILL.md": f"---\nname: beta\ndescription: Beta work\n---\n# Beta\n{BEGIN}\n- Answer in English.\n{END}\n",
    "CLAUDE.md": f"# Notes\n{BEGIN}\n- The README title is 'Beta App'.\n{END}\n",
    "AGENTS.md": f"# Notes\n{BEGIN}\n- The README title is 'Beta App'.\n{END}\n",
}


def _task(n: int, intent: str, feedback: str = "") -> TaskRecord:
    return TaskRecord(
        source="manual",
        project="/work/beta",
        session_id=f"s{n}",
        turn=n,
        created_at=WHEN,
        intent=intent,
        feedback=feedback,
        checks=[Check(kind="contains", value="pytest -q")],
    )


def _cases() -> list[Case]:
    run = _task(1, "run the tests", "no, always use `pytest -q`")
    readme = _task(2, "fix the README title", "the title must be 'Beta App'")
    lint = _task(3, "lint the code", "good, ruff is right")
    good = Rollout(run.id, 0, "I ran `pytest -q`: 12 passed.", 1.0, True)
    bad = Rollout(run.id, 1, "I ran `python -m unittest`.", 0.0, False, ("missing 'pytest -q'",))
    failed = Rollout(readme.id, 0, "# Beta\n" + "x" * 1300, 0.0, False, ("no heading 'Beta App'",))
    works = Rollout(lint.id, 0, "ruff check . : all good", 1.0, True)
    return [
        Case("contrast", run, good, bad),
        Case("failure", readme, None, failed),
        Case("success", lint, works, None),
    ]


def _night_asks(
    *replies: str, prompts: Prompts | None = None
) -> tuple[list[Request], list[str], dict[str, object]]:
    optimizer = ScriptedBackend(list(replies))
    saved: dict[str, object] = {}
    notes: list[str] = []
    proposer = OptimizerProposer(
        optimizer,
        Calls(Budget(BudgetSettings()), RetryPolicy(max_retries=0), random.Random(0)),
        files=FILES,
        tried=[Edit(target="skill", content="Be concise.")],
        max_tokens=1500,
        night_index=3,
        notes=notes,
        save=saved.__setitem__,
        progress=lambda phase, advance, total: None,
        ignored=["- Never push to main (corrected 3 times since adopted)"],
        prompts=prompts,
    )
    refused = [Edit(target="memory", content="Use tabs.")]
    asyncio.run(proposer.propose(_cases(), ["Run `pytest -q` for tests."], refused, step=2))
    return optimizer.history, notes, saved


def _shown(request: Request) -> str:
    head = (
        f"role={request.role} seed={request.seed} tag={request.tag} max_tokens={request.max_tokens}"
    )
    return f"{head}\n=== SYSTEM\n{request.system}\n=== USER\n{request.messages[0].content}\n"


def test_the_nights_reflection_prompt_is_the_recorded_text(golden) -> None:
    reply = json.dumps({"edits": [{"target": "skill", "content": "Use pytest -q.", "cases": [1]}]})
    asked, notes, saved = _night_asks("not json", reply)
    assert len(asked) == 2 and notes and notes[0].startswith("optimizer reply unusable")
    golden("night/reflection-prompt.txt", _shown(asked[0]))
    golden("night/reflection-prompt-retry.txt", _shown(asked[1]))
    assert list(saved) == ["reflection-2.json"]


def test_the_nights_analyst_asks_with_the_prompt_file_training_shares(tmp_path) -> None:
    """The night's system prompt is training's contrastive analyst's file: the shipped one by
    default, a ``reflect_contrast.txt`` of a prompts directory in its place."""
    reply = json.dumps({"edits": []})
    asked, _, _ = _night_asks(reply)
    assert asked[0].system + "\n" == load_prompts()["reflect_contrast"]
    (tmp_path / "reflect_contrast.txt").write_text("Propose rules for Beta, as JSON.\n")
    asked, _, _ = _night_asks(reply, prompts=load_prompts(tmp_path))
    assert asked[0].system == "Propose rules for Beta, as JSON."
