"""The judge model reads the turns the rules are unsure of: a strict schema, never a guess."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from bench.worlds import synthetic as syn
from skillopt_sleep.backends.budget import Budget
from skillopt_sleep.backends.retry import RetryPolicy
from skillopt_sleep.backends.scripted import ScriptedBackend
from skillopt_sleep.errors import TransientError
from skillopt_sleep.harvest.turn_judge import ModelClassifier, parse_judgement
from skillopt_sleep.settings import BudgetSettings
from skillopt_sleep.store import Store
from skillopt_sleep.testing import ModelServer, Text

UNSURE = "Il faudrait revoir la mise en forme"  # no rule knows it


def _judgement(kind: str, confident: bool = True, **extra) -> str:
    return json.dumps(
        {"kind": kind, "reason": "asks to redo the formatting", "confident": confident, **extra}
    )


def _classifier(backend, max_calls: int = 5, **limits) -> ModelClassifier:
    return ModelClassifier(
        backend,
        Budget(BudgetSettings(**limits)),
        max_calls,
        policy=RetryPolicy(max_retries=1, base_delay=0.0),
    )


def test_only_unsure_turns_go_to_the_model_and_its_verdict_is_kept_with_its_reason():
    backend = ScriptedBackend([_judgement("correction")])
    judge = _classifier(backend)
    sure, asked = judge.classify(["Thanks!", UNSURE], first="Format the table")
    assert (sure.kind, sure.by) == ("praise", "rules")
    assert (asked.kind, asked.reason, asked.sure, asked.by) == (
        "correction",
        "asks to redo the formatting",
        True,
        "model",
    )
    [request] = backend.history
    assert request.role == "judge" and request.tag == "classify-turn"
    assert json.loads(request.prompt) == {"earlier_request": "Format the table", "message": UNSURE}


def test_an_answer_outside_the_schema_or_an_outage_leaves_the_turn_unsure():
    backend = ScriptedBackend(
        [
            _judgement("correction", extra_field=1),  # extra key: refused
            _judgement("complaint"),  # not a kind: refused
            TransientError("overloaded"),
            TransientError("again"),
        ]
    )
    judge = _classifier(backend)
    verdicts = judge.classify([UNSURE, UNSURE + " encore", UNSURE + " svp"], first="x")
    assert [(v.kind, v.sure, v.by) for v in verdicts] == [("new_request", False, "rules")] * 3
    assert judge.failures == 3 and judge.calls == 3


def test_a_model_that_is_not_confident_keeps_the_turn_marked_unsure():
    judge = _classifier(ScriptedBackend([_judgement("praise", confident=False)]))
    [verdict] = judge.classify([UNSURE], first="x")
    assert (verdict.kind, verdict.sure, verdict.by) == ("praise", False, "model")


def test_the_cap_and_the_budget_stop_the_questions_and_a_turn_read_again_is_not_asked_again():
    backend = ScriptedBackend(responder=lambda r: _judgement("correction"))
    judge = _classifier(backend, max_calls=2)
    judge.classify([UNSURE, UNSURE + " 2", UNSURE + " 3"], first="x")
    judge.classify([UNSURE], first="x")  # the same session read again after a resume
    assert len(backend.history) == 2
    budgeted = ModelClassifier(
        ScriptedBackend(responder=lambda r: _judgement("praise")),
        Budget(BudgetSettings(max_calls=1)),
        9,
    )
    out = budgeted.classify([UNSURE, UNSURE + " 2"], first="x")
    assert [v.by for v in out] == ["model", "rules"]


def test_parse_judgement_takes_the_json_object_out_of_prose():
    judged = parse_judgement("Sure:\n" + _judgement("follow_up") + "\nDone.")
    assert judged is not None and judged.kind == "follow_up"
    assert parse_judgement("no json") is None


def test_harvest_asks_the_judge_backend_through_the_real_sdk_when_llm_classify_is_on(
    cli, sandbox_home
):
    sid = "5f0c9e7e-1b4c-4f0e-9d65-000000000001"
    turns = [
        syn.SynthTurn("Format the release table", "| a | b |"),
        syn.SynthTurn(UNSURE, "- a\n- b"),
    ]
    syn.write(
        syn.claude_path(sandbox_home / ".claude", "/work/a", sid),
        syn.claude_session(sid, "/work/a", turns, datetime.now(timezone.utc)),
    )
    with ModelServer([Text(_judgement("correction"))]) as srv:
        env = {
            "SKILLOPT_SLEEP_HARVEST__LLM_CLASSIFY": "true",
            "SKILLOPT_SLEEP_ROLES__JUDGE__BACKEND": "anthropic",
            "SKILLOPT_SLEEP_ROLES__JUDGE__BASE_URL": srv.url,
            "SKILLOPT_SLEEP_ROLES__JUDGE__MODEL": "claude-test",
            "ANTHROPIC_API_KEY": "sk-test",
        }
        r = cli("harvest", "--all-projects", "--json", env=env)
        assert r.code == 0, r.err
        [call] = srv.model_calls("anthropic")
    assert r.json()["llm_classify_calls"] == 1
    assert UNSURE in json.dumps(call.body)
    [task] = Store.open(sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db").list_tasks()
    [note] = task.turns
    assert (note.kind, note.by, note.unsure, task.outcome) == (
        "correction",
        "model",
        False,
        "failure",
    )


def test_without_llm_classify_the_turn_is_kept_and_tasks_list_marks_it_unsure(cli, sandbox_home):
    sid = "5f0c9e7e-1b4c-4f0e-9d65-000000000002"
    turns = [
        syn.SynthTurn("Format the release table", "| a | b |"),
        syn.SynthTurn("hmm", "Anything else?"),
    ]
    syn.write(
        syn.claude_path(sandbox_home / ".claude", "/work/a", sid),
        syn.claude_session(sid, "/work/a", turns, datetime.now(timezone.utc)),
    )
    assert cli("harvest", "--all-projects").code == 0
    out = cli("tasks", "list", "--all-projects").out
    assert "    follow-up?  hmm  (unsure: a short prompt no rule explains)\n" in out
    [task] = Store.open(sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db").list_tasks()
    assert task.outcome == "unknown" and "unsure-turn" in task.tags
