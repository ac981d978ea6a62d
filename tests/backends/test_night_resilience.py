"""Whole nights through the real SDK backends against the loopback server: transient faults do
not change the decision, an outage is no evidence, a rejected key stops the night."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_sleep import run_night
from skillopt_sleep.backends.registry import create_backend
from skillopt_sleep.backends.simulated import SimulatedBackend
from skillopt_sleep.errors import AuthError
from skillopt_sleep.settings import BudgetSettings, RoleSettings, RolesSettings, Settings
from skillopt_sleep.testing import Error, ModelServer
from skillopt_sleep.testing.night_model import simulated_night_responder

pytestmark = pytest.mark.slow


def night(
    provider: str,
    srv: ModelServer,
    project: Path,
    tasks,
    budget: BudgetSettings | None = None,
    **role,
):
    url = srv.v1 if provider == "openai" else srv.url
    settings_role = RoleSettings(
        backend=provider,
        model=f"{'gpt' if provider == 'openai' else 'claude'}-test",
        base_url=url,
        max_retries=role.pop("max_retries", 8),
        **role,
    )
    settings = Settings(
        roles=RolesSettings(target=settings_role, optimizer=settings_role, judge=settings_role),
        budget=budget or BudgetSettings(),
    )
    backend = create_backend(settings_role, {"ANTHROPIC_API_KEY": "sk-test"})
    return run_night(tasks, project, target=backend, settings=settings).summary


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_thirty_percent_transient_faults_give_the_same_decision_and_the_clean_night_is_the_simulated_one(
    sample_project, provider, fast_backoff
):
    project, tasks = sample_project
    with ModelServer(responder=simulated_night_responder()) as srv:
        clean = night(provider, srv, project, tasks)
    with ModelServer(responder=simulated_night_responder(), fail_rate=0.3, seed=7) as srv:
        faulty = night(provider, srv, project, tasks)
        faults = len(srv.faults)
    assert clean.decision == "accept", clean.reason
    # the clean night over the wire is the simulated backend's night, call for call
    if provider == "openai":
        direct = run_night(tasks, project, target=SimulatedBackend()).summary
        assert (clean.decision, clean.evidence, clean.calls) == (
            direct.decision,
            direct.evidence,
            direct.calls,
        )
    assert faulty.decision == clean.decision
    assert faulty.evidence == clean.evidence and faulty.edits == clean.edits
    assert faulty.errored_rollouts == 0
    assert faults > 0.2 * clean.calls
    assert faulty.calls == clean.calls + faults  # every failed attempt was sent and counted


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_outage_is_no_evidence_never_a_decision(sample_project, provider):
    project, tasks = sample_project
    outage = Error(503, headers={"retry-after": "0"}, message="upstream unavailable")
    with ModelServer(responder=lambda call: outage) as srv:
        s = night(provider, srv, project, tasks, max_retries=2)
        sent = len(srv.model_requests())
    assert s.decision == "outage" and s.reason.startswith(
        "the model backend is down: 5 attempts in a row"
    )
    assert s.edits == [] and s.evidence == []
    assert s.calls == sent == 5  # the circuit breaker's threshold, every attempt counted


def test_a_rejected_key_stops_the_night_at_once(sample_project):
    project, tasks = sample_project
    with ModelServer(responder=lambda call: Error(401)) as srv:
        with pytest.raises(AuthError, match="openai rejected the API key"):
            night("openai", srv, project, tasks)
        sent = [
            (r.body["messages"][-1]["content"], r.body.get("seed")) for r in srv.model_requests()
        ]
    assert len(set(sent)) == len(sent)  # not one call was retried


def test_max_calls_stops_a_faulty_night_at_exactly_that_many_calls(sample_project):
    project, tasks = sample_project
    with ModelServer(responder=simulated_night_responder(), fail_rate=0.3, seed=3) as srv:
        s = night("openai", srv, project, tasks, budget=BudgetSettings(max_calls=50))
        sent = len(srv.model_requests())
    assert sent == s.calls == 50  # concurrent attempts and retries included, not one more
    assert s.decision == "budget_exhausted"
    assert s.reason.startswith("call budget reached (50/50 calls) (raise budget.max_calls)")
    assert "the rest of the night was skipped" in s.reason
