"""The model a replay runs on when the night names none is what each agent's replay entry says the
agent picks itself, else ``<agent>-default``: no agent is named outside its own module."""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.agent_replay.own_model import own_model


def test_codex_runs_on_the_model_of_its_config_toml_and_claude_code_on_anthropic_model(
    tmp_path: Path,
):
    codex = tmp_path / "codex"
    codex.mkdir()
    (codex / "config.toml").write_text(
        'model = "gpt-5.5"\n[profiles.fast]\nmodel = "gpt-5.5-mini"\n', encoding="utf-8"
    )
    assert own_model("codex", {"CODEX_HOME": str(codex)}) == "gpt-5.5"
    assert own_model("claude-code", {"ANTHROPIC_MODEL": "claude-sonnet-4-6"}) == (
        "claude-sonnet-4-6"
    )


def test_an_agent_that_says_nothing_runs_on_its_default(tmp_path: Path):
    assert own_model("codex", {"HOME": str(tmp_path)}) == "codex-default"
    assert own_model("claude-code", {}) == "claude-code-default"
    assert own_model("copilot", {}) == "copilot-default"
    assert own_model("not-an-agent", {}) == "not-an-agent-default"
