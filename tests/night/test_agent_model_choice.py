"""The model agent replays run on, from the command line: a Claude Code task of a night whose
target role is a Claude model (`--model`) is replayed on that model, so `run --estimate` prices
its rollouts at that model's price; a Codex task of the same night runs on the model Codex's own
config.toml names (a Claude model is none Codex runs)."""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.night.demo import sample_tasks
from skillopt_sleep.testing import ModelServer
from skillopt_sleep.testing.night_model import simulated_night_responder

from .sample_log import log_tasks, sample_root

PRICES = (
    '[budget]\nmax_cost_usd = 50.0\n[budget.prices."claude-chosen-1"]\ninput = 1.0\noutput = 2.0\n'
    '[budget.prices."gpt-own-2"]\ninput = 3.0\noutput = 6.0\n'
)


def _estimate(cli, tmp_path: Path, source: str) -> str:
    root = sample_root(tmp_path)
    log_tasks([t.model_copy(update={"source": source}) for t in sample_tasks(root)[:8]])
    (root / ".skillopt-sleep.toml").write_text(PRICES)
    codex = tmp_path / "codex-home"
    codex.mkdir(exist_ok=True)
    (codex / "config.toml").write_text('model = "gpt-own-2"\n')
    env = {
        "CODEX_HOME": str(codex),
        "SKILLOPT_SLEEP_NIGHT__REPLAY": "agent",
        "ANTHROPIC_API_KEY": "sk-ant-x",
        "ANTHROPIC_MODEL": "claude-own-3",  # Claude Code's own choice, which the night overrides
    }
    with ModelServer(responder=simulated_night_responder()) as server:
        flags = ("--backend", "anthropic", "--model", "claude-chosen-1", "--base-url", server.url)
        est = cli("run", "--project", str(root), *flags, "--estimate", env=env)
        assert server.requests == []
    assert est.code == 0, est.err
    return est.out


def test_claude_code_replays_run_on_the_chosen_claude_model(cli, tmp_path):
    out = _estimate(cli, tmp_path, "claude-code")
    assert "at the price of claude-chosen-1)" in out, out
    assert "claude-own-3" not in out and "within the budget" in out


def test_codex_replays_of_a_night_on_a_claude_model_run_on_codexs_own_model(cli, tmp_path):
    out = _estimate(cli, tmp_path, "codex")
    assert "at the price of gpt-own-2)" in out, out
    assert "claude-chosen-1)" not in out.split("a rollout", 1)[-1].split("\n", 1)[0]
