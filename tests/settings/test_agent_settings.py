"""Every setting that names coding agents (``[harvest] sources``, ``[files] agents``) is checked
against the agents skillopt-sleep knows when the settings load: a name that is none of them is a
bad setting (exit 3), in one line naming the setting, where it was written and the agents there
are, for every command alike (``config show`` too)."""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.harvest import agents

CHOICES = ", ".join(agents.names())


def _user_config(sandbox_home: Path, text: str) -> Path:
    path = sandbox_home / "sleep-home" / "config" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_an_unknown_source_in_the_user_file_is_a_bad_setting_naming_the_file(
    cli, sandbox_home, tmp_path
):
    path = _user_config(sandbox_home, '[harvest]\nsources = ["codex", "nope"]\n')
    want = (
        f"skillopt-sleep: error: unknown agent 'nope' in harvest.sources from {path} "
        f"(choose from {CHOICES}; fix it in {path})"
    )
    for argv in (("config", "show"), ("harvest", "--all-projects"), ("doctor",)):
        r = cli(*argv, cwd=tmp_path)
        assert r.code == 3, (argv, r.err)
        assert r.err.splitlines()[-1] == want, argv
    shown = cli("config", "show", "--json", cwd=tmp_path).json()
    assert shown["settings"]["harvest.sources"] == {"value": None, "source": "default"}


def test_an_unknown_agent_in_the_project_file_is_refused_before_a_night_with_a_guess(cli, tmp_path):
    (tmp_path / ".skillopt-sleep.toml").write_text('[files]\nagents = ["claude-code", "codx"]\n')
    r = cli("run", "--project", str(tmp_path), cwd=tmp_path)
    assert r.code == 3, r.err
    path = tmp_path / ".skillopt-sleep.toml"
    assert r.err == (
        f"skillopt-sleep: error: unknown agent 'codx' in files.agents from {path} "
        f"(did you mean codex? choose from {CHOICES}; fix it in {path})\n"
    )


def test_an_unknown_agent_in_the_environment_names_the_variable(cli, tmp_path):
    r = cli("harvest", "--all-projects", env={"SKILLOPT_SLEEP_HARVEST__SOURCES": '["gemini", "x"]'})
    assert r.code == 3, r.err
    assert r.err.splitlines()[-1] == (
        "skillopt-sleep: error: unknown agent 'x' in harvest.sources from the environment "
        f"(choose from {CHOICES}; fix or unset SKILLOPT_SLEEP_HARVEST__SOURCES)"
    )


def test_known_agents_load_as_written(cli, sandbox_home, tmp_path):
    path = _user_config(
        sandbox_home, '[harvest]\nsources = ["codex", "pi"]\n[files]\nagents = ["qwen"]\n'
    )
    r = cli("config", "show", "--json", cwd=tmp_path)
    assert r.code == 0, r.err
    shown = r.json()["settings"]
    assert shown["harvest.sources"] == {"value": ["codex", "pi"], "source": f"user ({path})"}
    assert shown["files.agents"]["value"] == ["qwen"]
