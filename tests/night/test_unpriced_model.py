"""A model with no price, from the command line: the night's spend is shown as unknown (never
$0.0000) in its summary, `status` and `status --json`; a money cap the user set that no price lets
the budget hold refuses the night before any call, in one line that names the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_sleep.night.demo import sample_tasks
from skillopt_sleep.testing import ModelServer
from skillopt_sleep.testing.night_model import simulated_night_responder

from .sample_log import log_tasks, sample_root

UNKNOWN = "$? (no price for stub-model)"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = sample_root(tmp_path)
    log_tasks(sample_tasks(root)[:8])
    return root


@pytest.fixture
def server():
    with ModelServer(responder=simulated_night_responder()) as srv:
        yield srv


def dry_run(cli, project: Path, server: ModelServer, **env: str):
    flags = ("--backend", "anthropic", "--model", "stub-model", "--base-url", server.url)
    return cli(
        "dry-run",
        "--project",
        str(project),
        *flags,
        env={"ANTHROPIC_API_KEY": "sk-ant-test", **env},
    )


def test_an_unpriced_model_under_the_default_cap_runs_and_its_spend_reads_unknown(
    cli, project, server
):
    r = dry_run(cli, project, server)
    assert r.code == 0, r.err
    spent = next(line for line in r.out.splitlines() if line.startswith("spent:"))
    assert spent.endswith(f"tokens, {UNKNOWN}") and "$0.0000" not in r.out
    assert server.requests
    status = cli("status", "--project", str(project))
    assert UNKNOWN in status.out and "$0.0000" not in status.out
    night = cli("status", "--project", str(project), "--json").json()["nights"][0]
    assert night["cost_usd"] is None and night["unpriced_models"] == ["stub-model"]


def test_a_money_cap_the_user_set_without_a_price_refuses_the_night_before_any_call(
    cli, project, server
):
    r = dry_run(cli, project, server, SKILLOPT_SLEEP_BUDGET__MAX_COST_USD="0.0001")
    assert r.code == 3, (r.code, r.out, r.err)
    assert "budget.max_cost_usd = 0.0001 cannot be held: no price for stub-model" in r.err
    assert '[budget.prices."stub-model"]' in r.err and "remove max_cost_usd" in r.err
    assert len(r.err.strip().splitlines()) == 1
    assert server.requests == []
    assert cli("status", "--project", str(project), "--json").json()["nights"] == []
    (project / ".skillopt-sleep.toml").write_text(
        '[budget]\nmax_cost_usd = 5.0\n[budget.prices."stub-model"]\ninput = 1.0\noutput = 2.0\n'
    )
    priced = dry_run(cli, project, server)
    assert priced.code == 0, priced.err
    assert "$?" not in priced.out and "spent:" in priced.out


PRICED = '[budget.prices."stub-model"]\ninput = 1.0\noutput = 2.0\n'


def codex_project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The sample project, its tasks Codex's, replayed by Codex on the model its config.toml
    names (gpt-unknown-9, no price), the roles' model priced."""
    root = sample_root(tmp_path)
    log_tasks([t.model_copy(update={"source": "codex"}) for t in sample_tasks(root)[:8]])
    (root / ".skillopt-sleep.toml").write_text(PRICED)
    codex = tmp_path / "codex-home"
    codex.mkdir()
    (codex / "config.toml").write_text('model = "gpt-unknown-9"\n\n[tui]\nmodel = "other"\n')
    return root, {"CODEX_HOME": str(codex), "SKILLOPT_SLEEP_NIGHT__REPLAY": "agent"}


def test_a_money_cap_is_refused_when_the_agent_replays_run_on_a_model_with_no_price(
    cli, tmp_path, server
):
    root, env = codex_project(tmp_path)
    capped = {**env, "SKILLOPT_SLEEP_BUDGET__MAX_COST_USD": "50", "ANTHROPIC_API_KEY": "sk-ant-x"}
    r = dry_run(cli, root, server, **capped)
    assert r.code == 3, (r.code, r.out, r.err)
    assert "budget.max_cost_usd = 50.0 cannot be held: no price for gpt-unknown-9" in r.err
    assert '[budget.prices."gpt-unknown-9"]' in r.err
    assert server.requests == []
    flags = ("--backend", "anthropic", "--model", "stub-model", "--base-url", server.url)
    est = cli("run", "--project", str(root), *flags, "--estimate", env=capped)
    assert est.code == 0, est.err
    assert "OVER the budget" in est.out and "within the budget" not in est.out
    assert "cannot be held: no price for gpt-unknown-9" in est.out
    assert "no price for gpt-unknown-9, the model the agent runs on" in est.out
    assert "cost at the full price:     unknown" in est.out
    (root / ".skillopt-sleep.toml").write_text(
        PRICED + '[budget.prices."gpt-unknown-9"]\ninput = 2.0\noutput = 8.0\n'
    )
    est = cli("run", "--project", str(root), *flags, "--estimate", env=capped)
    assert "within the budget" in est.out, est.out
    assert (
        "$0.0960 a rollout (a prior: 40,000 input and 2,000 output tokens at the price of "
        "gpt-unknown-9)" in est.out
    )
