"""``skillopt-sleep train``: through the real openai client against the loopback server, errors, staging."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.backends.base import Message, Request, Role
from skillopt_sleep.backends.simulated import SimulatedBackend
from skillopt_sleep.counting import Usage
from skillopt_sleep.models import NightSummary
from skillopt_sleep.optimize.prompts import load_prompts
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.rollouts.replay import REPLAY_SYSTEM
from skillopt_sleep.store import Store
from skillopt_sleep.testing import ModelCall, ModelServer, Reply, Text


def simulated_training(sim: SimulatedBackend | None = None):  # type: ignore[no-untyped-def]
    """A responder answering a training run's replays and optimizer calls as the simulated backend."""
    sim = sim or SimulatedBackend()
    meta = load_prompts()["meta_skill"][:60]

    def respond(call: ModelCall) -> Reply:
        body = call.body if isinstance(call.body, Mapping) else {}
        seed = body.get("seed")
        role: Role = "target" if call.system.startswith(REPLAY_SYSTEM[:60]) else "optimizer"
        tag = "meta" if call.system.startswith(meta) else ""
        last = call.last.text if call.last is not None else ""
        request = Request(
            role,
            call.system,
            (Message("user", last),),
            seed=seed if isinstance(seed, int) else None,
            tag=tag,
        )
        return Text(asyncio.run(sim.complete(request)).text)

    return respond


def test_two_epochs_through_the_openai_client_with_slow_update_and_meta_skill(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    with ModelServer(responder=simulated_training()) as srv:
        r = cli(
            "train",
            str(planted),
            "--skill",
            str(skill),
            "--out",
            str(tmp_path / "run"),
            "--backend",
            "openai",
            "--model",
            "gpt-4.1-mini",
            "--base-url",
            srv.v1,
            "--epochs",
            "2",
            "--steps-per-epoch",
            "1",
            "--batch-size",
            "8",
            "--seed",
            "2",
            "--json",
            env={"OPENAI_API_KEY": "sk-test"},
        )
        calls = srv.model_calls("chat")
    assert r.code == 0, r.err
    s = r.json()
    assert (s["steps"], s["slow_updates"]) == (2, 2) and s["best"]["test_hard"] > s["baseline"][
        "test_hard"
    ]
    assert s["gain_hard"]["ci_low"] > 0 and s["usage"]["calls"] == len(calls)
    run = tmp_path / "run"
    slow = sorted((run / "units").glob("*-slow"))
    assert [p.name for p in slow] == ["0002-e1-slow", "0004-e2-slow"]
    groups = json.loads((slow[0] / "comparison.json").read_text())
    assert set(groups) == {"improved", "regressed", "still failing", "still passing"}
    assert (
        sum(map(len, groups.values())) == 8
    )  # the sample, replayed under the epoch's start and now
    notes = (run / "meta_skill.md").read_text()
    assert "rules kept so far" in notes
    later = [
        c.last.text
        for c in calls
        if c.last is not None and "## NOTES FROM EARLIER EPOCHS" in c.last.text
    ]
    assert later and all(
        notes.splitlines()[0] in text for text in later
    )  # seen by every later reflection
    assert {c.model for c in calls} == {"gpt-4.1-mini"}


def test_train_stage_makes_a_proposal_that_review_and_adopt_take(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    project = tmp_path / "project"
    live = project / ".claude" / "skills" / "project" / "SKILL.md"
    live.parent.mkdir(parents=True)
    live.write_text(skill.read_text())
    r = cli(
        "train",
        str(planted),
        "--skill",
        str(skill),
        "--out",
        str(run),
        "--backend",
        "simulated",
        "--epochs",
        "1",
        "--steps-per-epoch",
        "2",
        "--seed",
        "1",
    )
    assert r.code == 0, r.err
    assert r.out.splitlines()[1].startswith("test pass rate: initial ")
    staged = cli("train", "stage", str(run), "--project", str(project))
    assert staged.code == 0 and staged.out.startswith("staged train-"), staged.err
    review = cli("review", "--project", str(project))
    assert "+- Run the test suite with `pytest -q`, never bare `pytest`." in review.out
    assert cli("adopt", "--project", str(project)).code == 0
    assert live.read_text() == (run / "best.md").read_text()


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["--skill", "S.md"], 2, "train needs --skill FILE and --out DIR"),
        (
            ["--skill", "S.md", "--out", "o", "--split-ratio", "2:0:7"],
            2,
            "--split-ratio: split ratio '2:0:7' leaves nothing",
        ),
        (
            ["--skill", "S.md", "--out", "o", "--env", "qaa"],
            2,
            "unknown environment 'qaa' (did you mean qa?",
        ),
        (["--skill", "missing.md", "--out", "o"], 4, "no such skill file: "),
    ],
)
def test_bad_input_is_one_line_naming_the_fix(
    cli, planted: Path, tmp_path: Path, argv: list[str], code: int, message: str
) -> None:
    (tmp_path / "S.md").write_text("---\nname: s\ndescription: d\n---\n")
    r = cli("train", str(planted), *argv, "--backend", "simulated", cwd=tmp_path)
    assert (r.code, r.out) == (code, "")
    assert r.err.startswith(f"skillopt-sleep: error: {message}") and r.err.count("\n") == 1


def test_a_run_directory_is_resumed_only_with_the_same_settings(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    args = [
        "train",
        str(planted),
        "--skill",
        str(skill),
        "--out",
        str(tmp_path / "run"),
        "--backend",
        "simulated",
        "--epochs",
        "1",
        "--steps-per-epoch",
        "1",
        "--json",
    ]
    first = cli(*args)
    assert first.code == 0
    again = cli(*args, "--resume")
    assert again.code == 0 and again.json() == first.json()
    other = cli(*args, "--k", "2")
    assert other.code == 2 and "holds a run with other settings (k)" in other.err


def test_estimate_spends_nothing(cli, planted: Path, skill: Path, tmp_path: Path) -> None:
    r = cli(
        "train",
        str(planted),
        "--skill",
        str(skill),
        "--out",
        str(tmp_path / "run"),
        "--backend",
        "simulated",
        "--estimate",
        "--json",
    )
    assert r.code == 0 and r.json()["calls"] > r.json()["optimizer_calls"] > 0
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_a_dead_server_stops_the_run_with_exit_6_and_a_rerun_resumes(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    from skillopt_sleep.testing import Error

    args = [
        "train",
        str(planted),
        "--skill",
        str(skill),
        "--out",
        str(tmp_path / "run"),
        "--backend",
        "openai",
        "--model",
        "gpt-4.1-mini",
        "--epochs",
        "1",
        "--steps-per-epoch",
        "1",
        "--seed",
        "2",
    ]
    with ModelServer(
        responder=lambda call: Error(503, headers={"retry-after": "0"}, message="down")
    ) as srv:
        dead = cli(*args, "--base-url", srv.v1, env={"OPENAI_API_KEY": "sk-test"})
    assert dead.code == 6 and "stopped early: the model backend is down" in dead.out
    assert (
        dead.err.startswith("skillopt-sleep: error: the model backend is down")
        and dead.err.count("\n") == 1
    )
    # a run, not a night: it resumes when run again, and holds nothing to stage yet
    assert ", none answered (last: " in dead.err and "night" not in dead.out + dead.err
    assert dead.err.endswith(
        "(check the server, the network or base_url); run the same command again to resume\n"
    )
    assert "train stage" not in dead.out
    assert dead.out.splitlines()[-1].endswith("(no step finished yet)")
    assert not (tmp_path / "run" / "summary.json").exists()
    with ModelServer(responder=simulated_training()) as srv:
        alive = cli(*args, "--base-url", srv.v1, "--json", env={"OPENAI_API_KEY": "sk-test"})
    assert alive.code == 0 and alive.json()["steps"] == 1 and alive.json()["stopped"] == ""


def test_a_run_is_not_resumed_with_other_prompts(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    args = [
        "train",
        str(planted),
        "--skill",
        str(skill),
        "--out",
        str(tmp_path / "run"),
        "--backend",
        "simulated",
        "--epochs",
        "1",
        "--steps-per-epoch",
        "1",
        "--estimate",
    ]
    assert cli(*args[:-1]).code == 0
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "reflect_success.txt").write_text("Say what works.")
    other = cli(*args[:-1], "--prompts", str(tmp_path / "prompts"))
    assert other.code == 2 and "holds a run with other settings (prompts)" in other.err


def test_training_sends_its_replays_through_the_batch_api_when_batches_are_on(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    with ModelServer(responder=simulated_training()) as srv:
        r = cli(
            "train",
            str(planted),
            "--skill",
            str(skill),
            "--out",
            str(tmp_path / "run"),
            "--backend",
            "anthropic",
            "--model",
            "claude-sonnet-4-6",
            "--base-url",
            srv.url,
            "--epochs",
            "1",
            "--steps-per-epoch",
            "1",
            "--json",
            env={
                "ANTHROPIC_API_KEY": "sk-ant-test",
                "SKILLOPT_SLEEP_NIGHT__BATCH": "true",
                "SKILLOPT_SLEEP_NIGHT__BATCH_POLL_S": "0.05",
            },
        )
        sent = srv.model_requests()
    assert r.code == 0, r.err
    usage = r.json()["usage"]
    assert usage["calls"] == usage["batched_calls"] == len(sent) > 0
    assert all(x.batch for x in sent)  # no call went out synchronously
    assert usage["cost_usd"] < usage["list_cost_usd"]  # half price


def test_a_run_is_not_resumed_with_another_skill(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    args = [
        "train",
        str(planted),
        "--skill",
        str(skill),
        "--out",
        str(tmp_path / "run"),
        "--backend",
        "simulated",
        "--epochs",
        "1",
        "--steps-per-epoch",
        "1",
        "--estimate",
    ]
    assert cli(*args[:-1]).code == 0
    skill.write_text(skill.read_text() + "\nBe brief.\n")
    other = cli(*args[:-1])
    assert other.code == 2 and "holds a run with other settings (task set or skill)" in other.err


def test_estimate_prices_agent_replays_at_what_agent_rollouts_spend(
    cli, planted: Path, skill: Path, tmp_path: Path
) -> None:
    """Under ``--env agent`` every replay is an agent rollout: priced at the last nights' agent
    rollouts (any project), or at a flat prior before any, never at the size of a text reply."""

    def estimate(*extra: str):  # type: ignore[no-untyped-def]
        args = [str(planted), "--skill", str(skill), "--out", str(tmp_path / "run")]
        # one step and its slow update: the price of a replay is the same in a run of any length,
        # and the gate's forecast for each step is most of an estimate's time
        args += ["--epochs", "1", "--steps-per-epoch", "1"]
        r = cli("train", *args, "--backend", "simulated", "--estimate", *extra)
        assert r.code == 0, r.err
        return r

    text = estimate("--json").json()
    prior = estimate("--env", "agent")
    assert "every replay is an agent rollout: about 40,000 tokens each (a flat prior" in prior.out
    agent = estimate("--env", "agent", "--json").json()
    assert agent["target_calls"] == text["target_calls"]
    assert agent["input_tokens"] > 40_000 * agent["target_calls"] > 20 * text["input_tokens"]
    store = Store.open(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).db)
    store.save_night(
        NightSummary(
            night_id="n1",
            project="/elsewhere",
            started_at=datetime(2026, 11, 20, 3, tzinfo=timezone.utc),
            decision="reject",
            usage_by_role={"agent": Usage(calls=10, input_tokens=95_000, output_tokens=5_000)},
        ),
        "done",
    )
    store.close()
    recorded = estimate("--env", "agent")
    assert "about 10,000 tokens each (the average of 10 agent rollouts of the last 1 nights)" in (
        recorded.out
    )
    assert not (tmp_path / "run").exists()
