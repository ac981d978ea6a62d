"""`run --estimate` prices agent rollouts from what earlier nights' agent rollouts spent, or a
flat prior before any, and says which."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.clock import SystemClock
from skillopt_sleep.counting import Usage
from skillopt_sleep.models import Check, NightSummary
from skillopt_sleep.night.demo import sample_tasks, write_sample_project
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.store import Store


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The sample project, its tasks Claude Code's and with an action check each."""
    root = tmp_path / "project"
    root.mkdir()
    write_sample_project(root)
    tasks = [
        t.model_copy(
            update={
                "source": "claude-code",
                "checks": [*t.checks, Check(kind="never_ran", value="unittest")],
            }
        )
        for t in sample_tasks(root)
    ]
    store = Store.open(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).db)
    store.upsert_tasks(tasks, SystemClock().now())
    store.close()
    return root


def _estimate(cli, project: Path, *extra: str):
    return cli(
        "run",
        "--project",
        str(project),
        "--backend",
        "anthropic",
        "--model",
        "claude-sonnet-4-6",
        "--base-url",
        "http://127.0.0.1:9",
        "--estimate",
        *extra,
        env={"ANTHROPIC_API_KEY": "sk-ant-test", "SKILLOPT_SLEEP_NIGHT__REPLAY": "auto"},
    )


def _night(project: Path, night_id: str, calls: int, tokens: int) -> None:
    store = Store.open(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).db)
    usage = Usage(calls=calls, input_tokens=tokens - calls * 100, output_tokens=calls * 100)
    store.save_night(
        NightSummary(
            night_id=night_id,
            project=str(project.resolve()),
            started_at=datetime(2026, 11, 20, 3, tzinfo=timezone.utc),
            decision="reject",
            usage_by_role={"agent": usage, "target": Usage(calls=50, input_tokens=9_000_000)},
        ),
        "done",
    )
    store.close()


def test_the_estimate_uses_a_flat_prior_before_any_agent_rollout_was_recorded(cli, project):
    r = _estimate(cli, project)
    assert r.code == 0, r.err
    assert "about 40,000 tokens a rollout (a flat prior: no agent rollout recorded yet)" in r.out


def test_the_estimate_uses_the_agent_rollouts_earlier_nights_recorded(cli, project):
    flat = _estimate(cli, project, "--json").json()
    _night(project, "n1", calls=4, tokens=100_000)
    _night(project, "n2", calls=6, tokens=500_000)  # 600,000 tokens in 10 rollouts
    r = _estimate(cli, project)
    assert r.code == 0, r.err
    assert (
        "about 60,000 tokens a rollout (the average of 10 agent rollouts of the last 2 nights)"
        in r.out
    )
    measured = _estimate(cli, project, "--json").json()
    assert measured["input_tokens"] > flat["input_tokens"]  # 60,000 a rollout, not 40,000
