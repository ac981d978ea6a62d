"""A user's own prompt files: ``[night] prompts`` names a directory whose ``NAME.txt`` replace the
shipped prompts, for the night's reflection (seen here in the request the model server receives)
and for ``train``; a bad directory is refused in one line with the bad-input exit code."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_sleep.night.demo import sample_tasks
from skillopt_sleep.optimize.prompts import shipped
from skillopt_sleep.testing import ModelServer
from skillopt_sleep.testing.night_model import simulated_night_responder

from .sample_log import log_tasks, sample_root

MARK = "Prefer one short imperative rule per correction (house prompt)."


@pytest.fixture
def project(tmp_path: Path, sandbox_home: Path) -> Path:
    root = sample_root(tmp_path)
    log_tasks(sample_tasks(root))
    return root


def night(cli, project: Path, srv: ModelServer, prompts: str, *extra: str):
    return cli(
        "dry-run",
        "--project",
        str(project),
        "--backend",
        "anthropic",
        "--model",
        "claude-sonnet-4-6",
        "--base-url",
        srv.url,
        *extra,
        env={"ANTHROPIC_API_KEY": "sk-ant-test", "SKILLOPT_SLEEP_NIGHT__PROMPTS": prompts},
    )


def test_the_nights_reflection_asks_with_the_users_prompt_file(cli, project, sandbox_home):
    mine = sandbox_home / "my-prompts"
    mine.mkdir()
    (mine / "reflect_contrast.txt").write_text(shipped("reflect_contrast") + "\n" + MARK + "\n")
    with ModelServer(responder=simulated_night_responder()) as srv:
        r = night(cli, project, srv, "~/my-prompts", "--json")
        systems = [c.system for c in srv.model_calls()]
    assert r.code == 0, r.err
    asked = [s for s in systems if s.startswith(shipped("reflect_contrast")[:60])]
    assert asked and all(MARK in s for s in asked)


def test_without_the_setting_the_shipped_prompt_is_sent(cli, project):
    with ModelServer(responder=simulated_night_responder()) as srv:
        r = night(cli, project, srv, "", "--json")
        systems = [c.system for c in srv.model_calls()]
    assert r.code == 0, r.err
    assert not any(MARK in s for s in systems)


def test_a_missing_prompts_directory_is_refused_in_one_line(cli, project, sandbox_home):
    with ModelServer(responder=simulated_night_responder()) as srv:
        r = night(cli, project, srv, "~/no-such-prompts")
        assert not srv.model_calls()
    assert r.code == 4
    line = r.err.strip()
    assert "\n" not in line
    assert "no such prompts directory" in line and "[night] prompts" in line


def test_a_misspelt_prompt_file_is_refused_naming_the_right_one(cli, project, sandbox_home):
    mine = sandbox_home / "my-prompts"
    mine.mkdir()
    (mine / "reflect_contrats.txt").write_text("Look closer.\n")
    with ModelServer(responder=simulated_night_responder()) as srv:
        r = night(cli, project, srv, str(mine))
    assert r.code == 4
    assert "\n" not in r.err.strip()
    assert "names no prompt" in r.err and "did you mean reflect_contrast.txt" in r.err


def test_an_empty_prompt_file_is_refused(cli, project, sandbox_home):
    mine = sandbox_home / "my-prompts"
    mine.mkdir()
    (mine / "reflect_contrast.txt").write_text("  \n")
    with ModelServer(responder=simulated_night_responder()) as srv:
        r = night(cli, project, srv, str(mine))
    assert r.code == 4
    assert "\n" not in r.err.strip() and "is empty" in r.err
