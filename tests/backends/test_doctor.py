"""``doctor`` checks each role's backend: resolved, binary or key, a probe, and the fix."""

from __future__ import annotations

import pytest

from skillopt_sleep.testing import Error, ModelServer
from skillopt_sleep.testing.agents import claude_env, which_claude


def backend_checks(result) -> dict[str, dict]:
    return {c["name"]: c for c in result.json()["checks"] if c["name"].endswith(" backend")}


def test_a_missing_key_fails_every_role_with_the_fix(cli):
    r = cli("doctor", "--json", "--backend", "anthropic")
    assert r.code == 1
    checks = backend_checks(r)
    assert set(checks) == {"target backend", "optimizer backend", "judge backend"}
    target = checks["target backend"]
    assert target["status"] == "fail"
    assert target["detail"] == "anthropic: ANTHROPIC_API_KEY is not set"
    assert target["fix"] == "export ANTHROPIC_API_KEY=... or choose another backend with --backend"
    assert target["data"]["key_present"] == "no"
    assert checks["judge backend"]["detail"].startswith("same as target: ")


def test_a_local_server_probe_passes_and_is_shown_in_text(cli):
    with ModelServer(models=("llama3.1", "qwen3")) as srv:
        r = cli("doctor", "--backend", "openai", "--base-url", srv.v1, "--model", "llama3.1")
        js = cli(
            "doctor", "--json", "--backend", "openai", "--base-url", srv.v1, "--model", "llama3.1"
        )
        url = srv.v1
    assert f"ok    target backend: openai (llama3.1): {url} answered with model llama3.1" in r.out
    target = backend_checks(js)["target backend"]
    assert target["status"] == "ok" and target["data"]["base_url"] == url


def test_an_unknown_model_is_caught_by_the_probe(cli):
    with ModelServer(
        [Error(404, message="model 'llama3.2' not found")], models=("llama3.1",)
    ) as srv:
        r = cli("doctor", "--backend", "openai", "--base-url", srv.v1, "--model", "llama3.2")
    assert r.code == 1
    assert (
        "FAIL  target backend: openai (llama3.2): unknown model llama3.2, did you mean llama3.1?"
        in r.out
    )
    assert "fix: set --model or roles.<role>.model to a model the server has" in r.out


def test_nothing_configured_and_nothing_usable(cli, tmp_path):
    r = cli("doctor", "--json", env={"PATH": str(tmp_path)})
    target = backend_checks(r)["target backend"]
    assert (
        target["status"] == "fail"
        and target["detail"] == "no model backend is configured or usable"
    )
    assert "ANTHROPIC_API_KEY" in target["fix"]


def test_simulated_is_offline_and_fine(cli):
    r = cli("doctor", "--json", "--backend", "simulated")
    assert (
        backend_checks(r)["target backend"]["detail"]
        == "simulated: offline, no real model is called"
    )


@pytest.mark.realbin
def test_claude_code_reports_binary_version_and_login(cli, sandbox_home):
    if which_claude() is None:
        pytest.skip("claude is not installed (npm i -g @anthropic-ai/claude-code)")
    with ModelServer() as srv:
        env = claude_env(sandbox_home / "u", srv.url)
        r = cli("doctor", "--json", "--backend", "claude-code", env=env)
        logged_out = {k: v for k, v in env.items() if k != "ANTHROPIC_API_KEY"}
        bad = cli("doctor", "--backend", "claude-code", env=logged_out)
    target = backend_checks(r)["target backend"]
    assert target["status"] == "ok", target
    assert f"claude {target['data']['version']}, logged in" in target["detail"]
    assert target["data"]["binary"].endswith("claude")
    assert "logged in (api_key), a replay answered" in target["detail"]
    assert (
        "FAIL  target backend: claude-code (claude-code-default): claude is not logged in"
        in bad.out
    )
    assert "fix: run `claude` once and log in, or set ANTHROPIC_API_KEY" in bad.out
