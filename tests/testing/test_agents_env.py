"""The sandbox environments and config the agent helpers build."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

from skillopt_sleep.testing.agents import AgentRun, claude_env, codex_config, codex_home


def test_claude_env_points_at_the_server_inside_the_sandbox(tmp_path: Path) -> None:
    base = {
        "PATH": "/usr/bin",
        "HOME": "/root",
        "ANTHROPIC_AUTH_TOKEN": "real-secret",
        "CLAUDE_CONFIG_DIR": "/root/.claude",
        "CLAUDECODE": "1",
    }
    env = claude_env(tmp_path / "h", "http://127.0.0.1:9/v1/", base=base)
    assert env["HOME"] == str(tmp_path / "h") and (tmp_path / "h").is_dir()
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
    assert env["ANTHROPIC_API_KEY"] == "x" and env["PATH"] == "/usr/bin"
    assert env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert env["DISABLE_AUTOUPDATER"] == "1"
    assert not {"ANTHROPIC_AUTH_TOKEN", "CLAUDE_CONFIG_DIR", "CLAUDECODE"} & env.keys()
    assert "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC" not in claude_env(
        tmp_path / "h", "http://127.0.0.1:9", base=base, nonessential=True
    )


def test_codex_home_writes_a_local_provider_config(tmp_path: Path) -> None:
    env = codex_home(tmp_path / "h", "http://127.0.0.1:9", base={"OPENAI_API_KEY": "sk-real"})
    config = tomllib.loads((tmp_path / "h" / ".codex" / "config.toml").read_text())
    assert config == {
        "model": "gpt-5.5",
        "model_provider": "local",
        "approval_policy": "never",
        "sandbox_mode": "workspace-write",
        "model_providers": {
            "local": {
                "name": "Local",
                "base_url": "http://127.0.0.1:9/v1",
                "env_key": "LOCAL_API_KEY",
                "wire_api": "responses",
            }
        },
    }
    assert env["CODEX_HOME"] == str(tmp_path / "h" / ".codex")
    assert env["LOCAL_API_KEY"] == "x" and env["HOME"] == str(tmp_path / "h")
    assert "OPENAI_API_KEY" not in env


def test_codex_config_takes_model_and_sandbox() -> None:
    config = tomllib.loads(codex_config("http://h:1/v1", model="gpt-6-sol", sandbox="read-only"))
    assert (config["model"], config["sandbox_mode"]) == ("gpt-6-sol", "read-only")
    assert config["model_providers"]["local"]["base_url"] == "http://h:1/v1"


def test_agent_run_parses_json_and_jsonl() -> None:
    run = AgentRun(0, 'noise\n{"a": 1}\n{"b": 2}\n', "")
    assert run.jsonl() == [{"a": 1}, {"b": 2}]
    assert AgentRun(0, '{"result": "x"}', "").json() == {"result": "x"}
