"""A dead model server, through the real SDK clients and the CLI: the night stops early, is
recorded as an outage, consumes no task, and exits 6 so the scheduler's notice shows it."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from skillopt_sleep.clock import SystemClock
from skillopt_sleep.night.demo import sample_tasks, write_sample_project
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.schedule.nightrun import subprocess_night
from skillopt_sleep.store import Store
from skillopt_sleep.testing import Disconnect, Error, ModelServer

RECALL = 3  # old tasks a night recalls: a night that wrongly counted would see only these


@pytest.fixture
def waiting(tmp_path: Path) -> tuple[Path, Store]:
    """A project with its 30 sample tasks waiting for their first night."""
    project = tmp_path / "project"
    write_sample_project(project)
    store = Store.open(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).db)
    store.upsert_tasks(sample_tasks(project), SystemClock().now())
    return project, store


DEAD = {
    "503": lambda call: Error(503, headers={"retry-after": "0"}, message="upstream unavailable"),
    "disconnect": lambda call: Disconnect(),
}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("dead", sorted(DEAD))
def test_a_dead_server_stops_the_night_fast_and_consumes_nothing(cli, waiting, provider, dead):
    project, store = waiting
    tasks_before = store.list_tasks(project=str(project))
    env = {
        "OPENAI_API_KEY": "sk-test",
        "ANTHROPIC_API_KEY": "sk-test",
        "SKILLOPT_SLEEP_NIGHT__RECALL": str(RECALL),
    }
    with ModelServer(responder=DEAD[dead]) as srv:
        url = srv.v1 if provider == "openai" else srv.url
        start = time.monotonic()
        r = cli(
            "run",
            "--project",
            str(project),
            "--backend",
            provider,
            "--base-url",
            url,
            "--json",
            env=env,
        )
        elapsed = time.monotonic() - start
        sent = len(srv.model_requests())
    assert r.code == 6, r.err
    assert r.err.startswith("skillopt-sleep: error: the model backend is down:")
    assert 1 <= sent <= 20 and elapsed < 10, (sent, elapsed)
    night = r.json()
    assert (
        night["decision"] == "outage" and night["calls"] == sent and night["proposal_dir"] is None
    )

    status = cli("status", "--project", str(project), "--json", env=env).json()
    assert [n["decision"] for n in status["nights"]] == ["outage"]
    assert "outage" in cli("status", "--project", str(project), env=env).out
    assert store.list_tasks(project=str(project)) == tasks_before

    # the next night, with a backend that answers, still takes every waiting task as new
    r = cli("run", "--project", str(project), "--backend", "simulated", "--json", env=env)
    assert r.code == 0, r.err
    nxt = r.json()
    assert nxt["n_train"] + nxt["n_holdout"] == len(tasks_before) > RECALL


def test_the_scheduled_night_reports_the_outage_and_its_exit_code(waiting, subprocess_env):
    project, store = waiting
    tasks_before = store.list_tasks(project=str(project))
    env = dict(subprocess_env, OPENAI_API_KEY="sk-test")
    with ModelServer(responder=DEAD["503"]) as srv:
        outcome = subprocess_night(env["SKILLOPT_SLEEP_PYTHON"])(
            project, ["--backend", "openai", "--base-url", srv.v1], env
        )
    assert (outcome.status, outcome.exit_code) == ("failed", 6)
    assert outcome.message.startswith("skillopt-sleep: error: the model backend is down:")
    assert outcome.summary is not None and outcome.summary.decision == "outage"
    assert store.list_tasks(project=str(project)) == tasks_before
