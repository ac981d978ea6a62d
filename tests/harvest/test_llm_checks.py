"""Checks mined by the optimizer backend for corrections the heuristics cannot read."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from bench.worlds import synthetic as syn
from skillopt_sleep.backends.budget import Budget
from skillopt_sleep.backends.retry import RetryPolicy
from skillopt_sleep.backends.scripted import ScriptedBackend
from skillopt_sleep.errors import TransientError
from skillopt_sleep.harvest.llm_checks import LlmCheckMiner
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.settings import BudgetSettings

NOW = datetime(2026, 11, 21, tzinfo=timezone.utc)


def _record(
    n: int, feedback: str = "No, that's wrong: the greeting is far too stiff"
) -> TaskRecord:
    return TaskRecord(
        source="claude-code",
        project="/work/a",
        session_id=f"s{n}",
        created_at=NOW,
        intent="Write a greeting for the release notes",
        attempt="Dear users, version 2 is available.",
        outcome="failure",
        feedback=feedback,
    )


def _answer(*checks: dict) -> str:
    return "Here you go:\n" + json.dumps({"checks": list(checks)})


def test_mined_checks_are_validated_against_the_corrected_attempt():
    backend = ScriptedBackend(
        [
            _answer(
                {"kind": "rubric", "value": "The greeting is warm and informal, not stiff"},
                {
                    "kind": "contains",
                    "value": "version 2",
                },  # passes on the bad attempt: not a rule of it
                {"kind": "starts_with", "value": "Hi"},
                {"kind": "regex", "value": "(unclosed"},  # invalid: dropped
            )
        ]
    )
    miner = LlmCheckMiner(backend, Budget(BudgetSettings()), max_calls=5)
    [out] = miner([_record(1)])
    assert [(c.kind, c.value) for c in out.checks] == [
        ("rubric", "The greeting is warm and informal, not stiff"),
        ("starts_with", "Hi"),
    ]
    [request] = backend.history
    assert request.role == "optimizer" and request.tag == "mine-checks"
    assert "far too stiff" in request.prompt and "Dear users" in request.prompt


def test_bad_answers_and_outages_leave_records_as_they_were():
    backend = ScriptedBackend(
        [
            "no JSON here",
            TransientError("overloaded"),
            TransientError("again"),
            TransientError("still"),
        ]
    )
    miner = LlmCheckMiner(
        backend,
        Budget(BudgetSettings()),
        max_calls=5,
        policy=RetryPolicy(max_retries=2, base_delay=0.0),
    )
    first, second = miner([_record(1), _record(2)])
    assert first.checks == [] and second.checks == []
    assert miner.failures == 1 and miner.calls == 2


def test_only_corrected_records_without_checks_are_sent_and_the_cap_holds():
    backend = ScriptedBackend(responder=lambda r: _answer({"kind": "starts_with", "value": "Hi"}))
    miner = LlmCheckMiner(backend, Budget(BudgetSettings()), max_calls=2)
    praised = _record(9).model_copy(update={"outcome": "success", "feedback": "thanks"})
    out = miner([praised, _record(1), _record(2), _record(3)])
    assert len(backend.history) == 2
    assert [bool(r.checks) for r in out] == [False, True, True, False]


def test_the_budget_stops_mining_before_it_is_exceeded():
    backend = ScriptedBackend(responder=lambda r: _answer({"kind": "starts_with", "value": "Hi"}))
    miner = LlmCheckMiner(backend, Budget(BudgetSettings(max_calls=1)), max_calls=10)
    out = miner([_record(1), _record(2), _record(3)])
    assert len(backend.history) == 1 and [bool(r.checks) for r in out] == [True, False, False]


def _corrected_session(home, n: int) -> None:
    sid = f"9e0c9e7e-1b4c-4f0e-9d65-{n:012d}"
    turns = [
        syn.SynthTurn(f"Write greeting {n}", "Dear users."),
        syn.SynthTurn("No, too stiff", "Hi all!"),
    ]
    syn.write(
        syn.claude_path(home / ".claude", "/work/a", sid),
        syn.claude_session(sid, "/work/a", turns, datetime.now(timezone.utc)),
    )


def test_harvest_uses_the_configured_optimizer_and_says_how_many_calls(cli, sandbox_home):
    optimizer = {"SKILLOPT_SLEEP_ROLES__OPTIMIZER__BACKEND": "scripted"}
    _corrected_session(sandbox_home, 1)
    assert cli("harvest", "--all-projects", "--json").json()["llm_check_calls"] == 0  # none set
    _corrected_session(sandbox_home, 2)
    r = cli("harvest", "--all-projects", "--json", env=optimizer)
    assert r.code == 0, r.err
    assert r.json()["llm_check_calls"] == 1  # the scripted backend answers "ok": no checks
    _corrected_session(sandbox_home, 3)
    off = cli(
        "harvest",
        "--all-projects",
        "--json",
        env={**optimizer, "SKILLOPT_SLEEP_HARVEST__LLM_CHECKS": "0"},
    )
    assert off.json()["llm_check_calls"] == 0 and off.json()["totals"]["tasks_new"] == 1


def test_a_proposed_check_is_kept_only_if_it_passes_on_the_users_example():
    from skillopt_sleep.models import Action

    record = _record(4, feedback="Use `python3 -m pytest -x`, not unittest").model_copy(
        update={
            "intent": "Run the tests",
            "attempt": "> python3 -m unittest\nOK",
            "actions": [Action(kind="command", command="python3 -m unittest", exit_code=0)],
        }
    )
    backend = ScriptedBackend(
        [
            _answer(
                {"kind": "never_ran", "value": "python3"},  # the user's own command runs it
                {"kind": "not_contains", "value": "python3"},  # the user's own text says it
                {"kind": "never_ran", "value": "unittest"},
                {"kind": "contains", "value": "python3 -m pytest -x"},
            )
        ]
    )
    [out] = LlmCheckMiner(backend, Budget(BudgetSettings()), max_calls=1)([record])
    assert [(c.kind, c.value, c.held_against) for c in out.checks] == [
        ("never_ran", "unittest", "`python3 -m pytest -x`"),
        ("contains", "python3 -m pytest -x", "`python3 -m pytest -x`"),
    ]
