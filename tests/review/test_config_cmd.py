"""`config show | path | init`: every effective setting and where it came from."""

from __future__ import annotations

import re

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from pydantic import BaseModel

from skillopt_sleep.settings import Layer, Price, Settings, load_settings
from skillopt_sleep.settings.template import starter_config


def user_config(sandbox_home, text: str):
    path = sandbox_home / "sleep-home" / "config" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def setting_lines(out: str) -> dict[str, str]:
    return {line.split(" = ")[0]: line for line in out.splitlines()}


def test_show_names_the_source_of_every_setting(cli, sandbox_home, project):
    user = user_config(sandbox_home, "[night]\nk = 6\nseed = 3\n")
    (project / ".skillopt-sleep.toml").write_text(
        '[night]\nk = 2\n[files]\nmemory = ["AGENTS.md"]\n'
    )
    r = cli(
        "config",
        "show",
        "--backend",
        "simulated",
        cwd=project,
        env={"SKILLOPT_SLEEP_NIGHT__ALPHA": "0.01"},
    )
    assert r.code == 0, r.err
    lines = setting_lines(r.out)
    assert re.fullmatch(
        rf"night\.k = 2 +# project \({project}/\.skillopt-sleep\.toml\)", lines["night.k"]
    )
    assert re.fullmatch(rf"night\.seed = 3 +# user \({user}\)", lines["night.seed"])
    assert re.fullmatch(
        r"night\.alpha = 0\.01 +# env SKILLOPT_SLEEP_NIGHT__ALPHA", lines["night.alpha"]
    )
    assert re.fullmatch(
        r'roles\.judge\.backend = "simulated" +# flag', lines["roles.judge.backend"]
    )
    assert re.fullmatch(r"night\.min_effect = 0\.25 +# default", lines["night.min_effect"])
    assert re.fullmatch(r"files\.skill = \(unset\) +# default", lines["files.skill"])
    assert re.fullmatch(r'files\.memory = \["AGENTS\.md"\] +# project .*', lines["files.memory"])
    every = set(Settings().model_dump()["night"])
    assert {f"night.{k}" for k in every} <= set(lines)


def test_show_json(cli, project):
    out = cli("config", "show", "--json", cwd=project, env={"SKILLOPT_SLEEP_NIGHT__K": "3"}).json()
    assert out["settings"]["night.k"] == {"value": 3, "source": "env SKILLOPT_SLEEP_NIGHT__K"}
    assert out["settings"]["files.max_bytes"]["value"]["AGENTS.md"] == 32768
    assert out["files"]["project"] == str(project / ".skillopt-sleep.toml")


def test_bad_value_in_the_project_file_is_one_line_naming_the_file(cli, project):
    (project / ".skillopt-sleep.toml").write_text("[night]\nalpha = 2\n")
    r = cli("config", "show", cwd=project)
    assert r.code == 3 and r.err.count("\n") == 1
    assert (
        "invalid setting night.alpha = 2" in r.err
        and f"fix it in {project}/.skillopt-sleep.toml" in r.err
    )


def test_init_writes_a_commented_starter_once(cli, sandbox_home, project):
    r = cli("config", "init", cwd=project)
    path = sandbox_home / "sleep-home" / "config" / "config.toml"
    assert r.code == 0 and r.out.startswith(f"wrote {path}")
    assert path.read_text() == starter_config()
    path.write_text(path.read_text() + "\n[night]\n")  # the user's own edit is never overwritten
    mine = path.read_text()
    r = cli("config", "init", cwd=project)
    assert r.code == 0 and "already exists; left as it is" in r.out
    assert path.read_text() == mine


def test_starter_config_is_defaults_and_every_line_uncomments_to_a_valid_setting(sandbox_home):
    (sandbox_home / "my-prompts").mkdir()  # the example's prompts directory, which is checked
    text = starter_config()
    assert load_settings([Layer("user", "x", tomllib.loads(text))]).settings == Settings()
    uncommented = re.sub(r"(?m)^# (\w+ = )", r"\1", text)
    data = tomllib.loads(uncommented)
    settings = load_settings([Layer("user", "x", data)]).settings
    assert settings.night.model_copy(update={"prompts": None}) == Settings().night
    assert settings.night.prompts == str(sandbox_home / "my-prompts")
    assert settings.roles.judge.model == "claude-sonnet-4-6"
    assert settings.budget.prices["claude-sonnet-4-6"].output == 15.0
    flat = {k for section in data.values() for k in section}
    assert {"k", "rigor", "edit_schedule", "cron", "max_bytes", "max_cost_usd"} <= flat


def test_path_lists_the_files(cli, project):
    r = cli("config", "path", cwd=project)
    assert r.code == 0
    assert f"project config: {project}/.skillopt-sleep.toml  (not created yet)" in r.out
    out = cli("config", "path", "--json", cwd=project).json()
    assert out["user_config"]["exists"] is False and out["database"]["path"].endswith(
        "skillopt-sleep.db"
    )


def test_unknown_backend_is_a_config_error_listing_the_choices(cli, project):
    (project / ".skillopt-sleep.toml").write_text('[roles.judge]\nbackend = "antropic"\n')
    r = cli("config", "show", cwd=project)
    assert r.code == 11
    assert r.err == (
        "skillopt-sleep: error: unknown backend 'antropic' (did you mean anthropic? choose one of: "
        "anthropic, claude-code, codex, openai, scripted, simulated)\n"
    )


def test_config_without_action_is_a_usage_error(cli, project):
    r = cli("config", cwd=project)
    assert r.code == 2 and r.err.count("\n") == 1 and "ACTION" in r.err


def _sections(model: type[BaseModel], path: str):
    """(dotted section, its model) for every settings section, nested ones included."""
    for name, info in model.model_fields.items():
        sub = info.annotation
        if isinstance(sub, type) and issubclass(sub, BaseModel) and sub is not Price:
            yield f"{path}{name}", sub
            yield from _sections(sub, f"{path}{name}.")


def test_every_setting_is_documented_in_its_model_and_the_starter_config_says_it_above_the_line():
    text = starter_config()
    described: set[type] = set()
    for section, model in _sections(Settings, ""):
        assert model.__doc__, f"[{section}] has no docstring"
        for name, info in model.model_fields.items():
            assert info.description and info.description.strip(), (
                f"{section}.{name} has no description"
            )
            sub = info.annotation
            if model in described or (isinstance(sub, type) and issubclass(sub, BaseModel)):
                continue
            body = text.split(f"\n[{section}]\n", 1)[1].split("\n[", 1)[0]
            line = next((ln for ln in body.splitlines() if ln.startswith(f"# {name} = ")), None)
            if line is None:  # unset by default and no example: not shown, so nothing to explain
                continue
            above = body.splitlines()[body.splitlines().index(line) - 1]
            assert above.startswith(f"# {info.description}"), (section, name, above)
        described.add(model)
