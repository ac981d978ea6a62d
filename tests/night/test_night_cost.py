"""A night's cost from the command line: `[night] batch = true` sends the night through the
provider's batch API, the budget stops it before a batch it cannot afford, `status` and the
night's text show what caching and batches saved, and `run --estimate` shows every price.
The same decisions on the same seeds are checked by the cost benchmark (run here small)."""

from __future__ import annotations

import importlib.util
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skillopt_sleep.night.demo import SKILL_PATH, sample_tasks
from skillopt_sleep.testing import ModelServer
from skillopt_sleep.testing.night_model import simulated_night_responder

from .sample_log import anthropic_at, log_tasks, sample_root

LONG_NOTES = "\n".join(
    f"- Module {i} keeps its public names stable and documents new settings." for i in range(90)
)
BENCH = Path(__file__).resolve().parents[2] / "bench" / "night_cost.py"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The sample project with a skill long enough to be cached, its tasks in the store."""
    root = sample_root(tmp_path)
    (root / SKILL_PATH).write_text((root / SKILL_PATH).read_text() + "\n## Notes\n" + LONG_NOTES)
    log_tasks(sample_tasks(root))
    return root


@pytest.fixture
def server():
    with ModelServer(responder=simulated_night_responder()) as srv:
        yield srv


def night_env(srv: ModelServer, **settings: str) -> dict[str, str]:
    env = {"ANTHROPIC_API_KEY": "sk-ant-test", "SKILLOPT_SLEEP_NIGHT__BATCH_POLL_S": "0.05"}
    env.update({f"SKILLOPT_SLEEP_{k.upper()}": v for k, v in settings.items()})
    return env


def run(
    cli, project: Path, srv: ModelServer, *extra: str, command: str = "dry-run", **settings: str
):
    return cli(
        command,
        "--project",
        str(project),
        *anthropic_at(srv.url),
        *extra,
        env=night_env(srv, **settings),
    )


def test_a_batch_night_goes_through_the_batch_api_at_half_the_cached_price(cli, project, server):
    r = run(cli, project, server, "--json", night__batch="true")
    assert r.code == 0, r.err
    night = r.json()
    target = night["usage_by_role"]["target"]
    assert target["batched_calls"] == target["calls"] > 0
    assert target["cache_read_tokens"] > 0
    creates = [
        x for x in server.requests if x.path == "/v1/messages/batches" and x.method == "POST"
    ]
    assert len(creates) >= 3  # train, holdout before, holdout after (reflection too)
    assert all(x.batch for x in server.model_requests())  # no call went out synchronously
    text = cli("status", "--project", str(project)).out
    assert "(saved $" in text
    status = cli("status", "--project", str(project), "--json").json()
    assert status["nights"][0]["saved_usd"] > night["cost_usd"]  # saved more than half


def test_a_synchronous_night_says_what_prompt_caching_saved(cli, project, server):
    r = run(cli, project, server)
    assert r.code == 0, r.err
    saving = next(line for line in r.out.splitlines() if line.startswith("saved $"))
    assert "with prompt caching (" in saving and "tokens read from the cache" in saving
    assert "batches" not in saving
    assert not [x for x in server.requests if "batches" in x.path]


def test_the_budget_stops_a_batch_night_before_submitting_what_it_cannot_afford(
    cli, project, server
):
    r = run(cli, project, server, "--json", night__batch="true", budget__max_cost_usd="0.0001")
    assert r.code == 7, r.err
    night = r.json()
    assert night["decision"] == "budget_exhausted"
    assert not [x for x in server.requests if x.path == "/v1/messages/batches"]
    assert not server.model_requests()


def test_run_estimate_shows_the_full_the_cached_and_the_batch_price(cli, project, server):
    r = run(cli, project, server, "--estimate", command="run")
    assert r.code == 0, r.err
    assert "cost at the full price:" in r.out and "with prompt caching:" in r.out
    assert "with caching and batches:" in r.out
    est = run(cli, project, server, "--estimate", "--json", command="run").json()
    assert est["cost_cached_usd"] < est["cost_usd"]
    assert (
        est["cost_cached_usd"] / 2 < est["cost_batch_usd"] < est["cost_cached_usd"] / 1.9
    )  # 1-hour writes
    assert not server.model_requests()  # an estimate spends nothing


@pytest.mark.slow
def test_the_cost_benchmark_meets_its_goal_with_the_same_decisions(capsys):
    spec = importlib.util.spec_from_file_location("night_cost", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    # the same nights with the classic allocation, beside them in the benchmark, are asserted on
    # nowhere here: left out, they were three quarters of the time
    argv = ["--tasks", "8", "--k", "2", "--seeds", "0", "--provider", "anthropic", "--json"]
    code = bench.main([*argv, "--no-classic"])
    result = json.loads(capsys.readouterr().out)
    anthropic = result["providers"]["anthropic"]
    assert code == 0 and anthropic["same_decisions"] is True and anthropic["same_calls"] is True
    assert anthropic["cheapest_ratio"] <= 0.35 and result["target_met"] is True
    modes = {r["mode"]: r for r in anthropic["runs"]}
    assert modes["today"]["cache_read_tokens"] == 0 and modes["today"]["batched_calls"] == 0
    assert modes["cache+batch"]["batched_calls"] == modes["cache+batch"]["calls"]
    assert modes["cache"]["cost_usd"] < modes["today"]["cost_usd"]


@pytest.mark.slow
def test_a_night_killed_while_its_batch_runs_is_resumed_by_the_rerun_without_paying_again(
    cli, project, server, subprocess_env
):
    server.hold_batches = True
    env = {**subprocess_env, **night_env(server, night__batch="true")}
    argv = [
        sys.executable,
        "-m",
        "skillopt_sleep",
        "dry-run",
        "--project",
        str(project),
        *anthropic_at(server.url),
    ]
    proc = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        end = time.monotonic() + 60
        while not [x for x in server.requests if x.method == "GET" and "/batches/" in x.path]:
            assert time.monotonic() < end and proc.poll() is None, (
                proc.stderr.read() if proc.stderr else ""
            )
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=30)  # waits, and closes its pipes
    first = set(server.batches.batches)
    assert len(first) == 1  # the night's first batch, submitted, recorded, then the process died
    server.hold_batches = False
    r = run(cli, project, server, "--json", night__batch="true")
    assert r.code == 0, r.err
    train_id = first.pop()
    train = server.batches.batches[train_id]  # the train replay's first batch
    assert train.state == "ended"  # the rerun fetched the killed night's batch ...
    answered = [x for x in server.model_requests() if x.batch == train.id]
    assert len(answered) == len(train.items)  # ... each of its requests answered once
    rerun = [b for batch_id, b in server.batches.batches.items() if batch_id != train_id]
    assert rerun and [cid for cid, _ in rerun[0].items] != [
        cid for cid, _ in train.items
    ]  # not sent again
    assert r.json()["usage_by_role"]["target"]["batched_calls"] >= len(train.items)
