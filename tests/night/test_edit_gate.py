"""The edit-by-edit gate end to end: efficacy where an edit acts, harm everywhere else, memory of
conclusive refusals only, evidence carried across nights, and what the user sees of it."""

from __future__ import annotations

import json
import re

import pytest

from skillopt_sleep import run_night
from skillopt_sleep.backends.base import Completion, Request
from skillopt_sleep.backends.scripted import ScriptedBackend
from skillopt_sleep.backends.simulated import SimulatedBackend
from skillopt_sleep.settings import Settings
from skillopt_sleep.store import Store

NO_EDITS = '{"edits": []}'
GREEDY = "Open every answer with the heading '# Beta App', whatever the request."
MEMO = re.compile(r"When asked to '([^']+)', title the README")


class RuleWorld(SimulatedBackend):
    """The simulated agent, plus two rules it reacts to: ``GREEDY`` gets the README kind right and
    every other kind wrong; a ``MEMO`` rule gets the one request it quotes right, nothing else."""

    async def complete(self, request: Request) -> Completion:
        done = await super().complete(request)
        if request.role != "target":
            return done
        readme = "readme" in request.prompt.lower()
        if GREEDY in request.system:
            text = "# Beta App\n\nDone." if readme else "# Beta App\n" + "x" * 400
            return Completion(text, done.input_tokens, done.output_tokens, 0.0, done.model)
        memo = MEMO.search(request.system)
        if memo and memo.group(1) in request.prompt:
            return Completion(
                "# Beta App\n\nUpdated.", done.input_tokens, done.output_tokens, 0.0, done.model
            )
        return done


def _cases_about(prompt: str, word: str) -> list[int]:
    """Numbers of the reflection prompt's cases whose task mentions ``word``."""
    found = re.findall(r"^### Case (\d+) .*\nTask: (.*)$", prompt, re.MULTILINE)
    return [int(n) for n, task in found if word in task.lower()]


def _optimizer(content: str, about: str = "readme") -> ScriptedBackend:
    """Proposes ``content`` once, citing the cases about ``about``; then nothing."""
    done: list[bool] = []

    def reply(request: Request) -> str:
        if done:
            return NO_EDITS
        done.append(True)
        cases = _cases_about(request.prompt, about)
        return json.dumps({"edits": [{"target": "memory", "content": content, "cases": cases}]})

    return ScriptedBackend(responder=reply)


def test_an_edit_that_helps_one_kind_and_breaks_the_others_is_refused(sample_project):
    project, tasks = sample_project
    s = run_night(tasks, project, target=RuleWorld(), optimizer=_optimizer(GREEDY)).summary
    [ev] = s.evidence
    assert ev.efficacy.after_rate > ev.efficacy.before_rate  # it does help where it acts...
    assert ev.verdict == "harmful", ev.reason  # ...and is refused for what it breaks elsewhere
    assert ev.harm.after_n >= 32 and ev.p_harm <= 0.01
    assert s.decision == "reject" and not s.edits
    assert GREEDY in [e.content for e in s.rejected_edits]


def test_a_rule_that_only_memorises_its_own_task_does_not_pass(sample_project):
    project, tasks = sample_project
    quoted: list[str] = []

    def memorise(request: Request) -> str:
        found = re.findall(r"^### Case (\d+) .*\nTask: (.*)$", request.prompt, re.MULTILINE)
        readme = [(int(n), task) for n, task in found if "readme" in task.lower()]
        if quoted or not readme:
            return NO_EDITS
        number, task = readme[0]
        quoted.append(task)
        rule = f"When asked to '{task}', title the README 'Beta App'."
        return json.dumps({"edits": [{"target": "memory", "content": rule, "cases": [number]}]})

    settings = Settings()
    settings.night.efficacy_rollouts, settings.night.efficacy_looks = (
        300,
        1,
    )  # the quoted task alone is proof
    s = run_night(
        tasks,
        project,
        target=RuleWorld(),
        optimizer=ScriptedBackend(responder=memorise),
        settings=settings,
    ).summary
    [ev] = s.evidence
    [task] = [t for t in tasks if t.intent == quoted[0]]
    assert task.id in ev.cited and ev.unseen
    assert ev.p_efficacy <= ev.alpha  # over the whole efficacy set it looks like a gain...
    assert (
        ev.p_unseen > settings.night.unseen_alpha
    )  # ...but none shows on unseen tasks of its kind
    assert ev.verdict == "inconclusive" and "not unseen tasks of their kind" in ev.reason
    assert not s.edits


def test_inconclusive_edits_are_not_shown_as_tried_and_keep_their_evidence(
    sample_project, tmp_path
):
    from datetime import datetime, timezone

    from skillopt_sleep.clock import FixedClock
    from skillopt_sleep.night.project import Backends, run_project_night
    from skillopt_sleep.paths import resolve_paths

    project, tasks = sample_project
    settings = Settings()
    # one rollout a side per task and a vanishing alpha: no night can prove or refute the edit
    settings.night.efficacy_rollouts, settings.night.efficacy_looks = 2, 1
    settings.night.unseen_rollouts, settings.night.alpha = 1, 1e-9
    paths = resolve_paths(str(tmp_path / "home"))
    store = Store.open(paths.db)
    rule = "Keep summaries under 300 characters."

    def propose(request: Request) -> str:  # like a real optimizer: never what it is told was tried
        tried = request.prompt.split("## ALREADY TRIED", 1)[1].split("## CASES", 1)[0]
        cases = _cases_about(request.prompt, "summar")
        if rule in tried or not cases:
            return NO_EDITS
        return json.dumps({"edits": [{"target": "memory", "content": rule, "cases": cases}]})

    optimizer = ScriptedBackend(responder=propose)
    backends = Backends(SimulatedBackend(), optimizer, SimulatedBackend())
    clock = FixedClock(datetime(2026, 11, 20, 3, 0, tzinfo=timezone.utc))
    evidence = []
    for _ in range(2):
        result = run_project_night(
            project=project,
            settings=settings,
            store=store,
            paths=paths,
            backends=backends,
            clock=clock,
            tasks=tasks,
        )
        evidence.append(next(e for e in result.summary.evidence if e.edit.content == rule))
        clock.advance(days=1)
    first, second = evidence
    assert first.verdict == "inconclusive", first.reason
    assert rule not in [e.content for e in store.rejected_edits(str(project))]
    # proposed again on the next night, its evidence is the product of both nights' e-values
    assert second.e_total == pytest.approx(first.e_total * second.e_value, rel=1e-9)
    tried_sections = [
        r.prompt.split("## ALREADY TRIED", 1)[1].split("## CASES", 1)[0] for r in optimizer.history
    ]
    assert len(tried_sections) >= 3 and not any(rule in tried for tried in tried_sections)


def test_the_report_shows_each_edits_evidence(sample_project, tmp_path):
    from skillopt_sleep.review.report import render_markdown
    from skillopt_sleep.review.report_html import render_html

    project, tasks = sample_project
    s = run_night(tasks, project, target=RuleWorld(), optimizer=_optimizer(GREEDY)).summary
    md, page = render_markdown(s, {}), render_html(s, {})
    assert (
        "## Evidence, edit by edit" in md
        and "harmful" in md
        and "fewer passes on the other tasks" in md
    )
    assert "Tonight's edits" in page and "refused: harmful" in page
