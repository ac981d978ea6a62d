"""A user's own prompt files: ``[night] prompts`` names a directory whose ``NAME.txt`` replace the
shipped prompts, for the night's reflection (seen here in the request the model server receives)
and for ``train``; a relative path is read from the folder of the config file that sets it (from the
working directory when the environment sets it); a bad directory is refused in one line with the
bad-setting exit code when the settings load, before a command writes anything."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from skillopt_sleep.night.demo import sample_tasks
from skillopt_sleep.optimize.prompts import shipped
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.testing import ModelServer
from skillopt_sleep.testing.night_model import role_of, simulated_night_responder
from skillopt_sleep.testing.replies import ModelCall, Reply, Text

from .sample_log import anthropic_at, log_tasks, sample_root

MARK = "Prefer one short imperative rule per correction (house prompt)."


@pytest.fixture
def project(tmp_path: Path, sandbox_home: Path) -> Path:
    root = sample_root(tmp_path)
    log_tasks(sample_tasks(root))
    return root


def asking_only() -> Callable[[ModelCall], Reply]:
    """The simulated world, except that the optimizer proposes no edit: these tests read the
    prompts the night's reflection sends, and a proposed edit only added its gate's rollouts."""
    world = simulated_night_responder()

    def respond(call: ModelCall) -> Reply:
        if role_of(call.system) == "optimizer":
            return Text(json.dumps({"edits": []}))
        return world(call)

    return respond


def night(cli, project: Path, srv: ModelServer, prompts: str | None, *extra: str, **kw):
    env = {"ANTHROPIC_API_KEY": "sk-ant-test"}
    if prompts is not None:
        env["SKILLOPT_SLEEP_NIGHT__PROMPTS"] = prompts
    return cli(
        "dry-run",
        "--project",
        str(project),
        *anthropic_at(srv.url),
        *extra,
        env=env,
        **kw,
    )


def house_prompts(directory: Path) -> Path:
    """A prompts directory whose contrastive prompt carries MARK."""
    directory.mkdir(parents=True)
    (directory / "reflect_contrast.txt").write_text(
        shipped("reflect_contrast") + "\n" + MARK + "\n"
    )
    return directory


def asked_with_mark(systems: list[str]) -> bool:
    asked = [s for s in systems if s.startswith(shipped("reflect_contrast")[:60])]
    return bool(asked) and all(MARK in s for s in asked)


def test_the_nights_reflection_asks_with_the_users_prompt_file(cli, project, sandbox_home):
    mine = sandbox_home / "my-prompts"
    mine.mkdir()
    (mine / "reflect_contrast.txt").write_text(shipped("reflect_contrast") + "\n" + MARK + "\n")
    with ModelServer(responder=asking_only()) as srv:
        r = night(cli, project, srv, "~/my-prompts", "--json")
        systems = [c.system for c in srv.model_calls()]
    assert r.code == 0, r.err
    asked = [s for s in systems if s.startswith(shipped("reflect_contrast")[:60])]
    assert asked and all(MARK in s for s in asked)


def test_without_the_setting_the_shipped_prompt_is_sent(cli, project):
    with ModelServer(responder=asking_only()) as srv:
        r = night(cli, project, srv, "", "--json")
        systems = [c.system for c in srv.model_calls()]
    assert r.code == 0, r.err
    assert not any(MARK in s for s in systems)


def test_a_missing_prompts_directory_is_refused_in_one_line(cli, project, sandbox_home):
    with ModelServer(responder=simulated_night_responder()) as srv:
        r = night(cli, project, srv, "~/no-such-prompts")
        assert not srv.model_calls()
    assert r.code == 3
    missing = sandbox_home / "no-such-prompts"
    assert r.err == (
        "skillopt-sleep: error: [night] prompts from the environment: no such prompts directory: "
        f"{missing} (make it, or set [night] prompts or --prompts to a directory of NAME.txt "
        "files; fix or unset SKILLOPT_SLEEP_NIGHT__PROMPTS)\n"
    )


def test_a_misspelt_prompt_file_is_refused_naming_the_right_one(cli, project, sandbox_home):
    mine = sandbox_home / "my-prompts"
    mine.mkdir()
    (mine / "reflect_contrats.txt").write_text("Look closer.\n")
    with ModelServer(responder=simulated_night_responder()) as srv:
        r = night(cli, project, srv, str(mine))
    assert r.code == 3
    assert "\n" not in r.err.strip()
    assert "names no prompt" in r.err and "did you mean reflect_contrast.txt" in r.err


def test_an_empty_prompt_file_is_refused(cli, project, sandbox_home):
    mine = sandbox_home / "my-prompts"
    mine.mkdir()
    (mine / "reflect_contrast.txt").write_text("  \n")
    with ModelServer(responder=simulated_night_responder()) as srv:
        r = night(cli, project, srv, str(mine))
    assert r.code == 3
    assert "\n" not in r.err.strip() and "is empty" in r.err


def test_a_bad_prompts_setting_stops_the_demo_before_it_writes_anything(cli, tmp_path):
    where = tmp_path / "demo"
    r = cli(
        "demo",
        "--dir",
        str(where),
        env={"SKILLOPT_SLEEP_NIGHT__PROMPTS": str(tmp_path / "absent")},
    )
    assert r.code == 3 and r.out == ""
    assert r.err.count("\n") == 1 and "no such prompts directory" in r.err
    assert not where.exists()


@pytest.mark.parametrize("layer", ["user", "project"])
def test_a_relative_path_in_a_config_file_is_read_from_the_files_folder(
    cli, project, tmp_path, layer
):
    if layer == "user":
        config = resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).config_file
    else:
        config = project / ".skillopt-sleep.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[night]\nprompts = "house-prompts"\n')
    house_prompts(config.parent / "house-prompts")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with ModelServer(responder=asking_only()) as srv:
        r = night(cli, project, srv, None, "--json", cwd=elsewhere)
        systems = [c.system for c in srv.model_calls()]
    assert r.code == 0, r.err
    assert asked_with_mark(systems)


def test_a_relative_path_from_the_environment_is_read_from_the_working_directory(
    cli, project, tmp_path
):
    work = tmp_path / "work"
    house_prompts(work / "house-prompts")
    with ModelServer(responder=asking_only()) as srv:
        r = night(cli, project, srv, "house-prompts", "--json", cwd=work)
        systems = [c.system for c in srv.model_calls()]
    assert r.code == 0, r.err
    assert asked_with_mark(systems)
