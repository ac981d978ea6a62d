"""Smaller promises of the command line, each as a user meets it: a misspelt config section, a
demo that cannot start, the label of a new file's diff, a night with too few tasks, a preview of
the schedule where no scheduler exists, the model named in the README."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep.models import NightSummary
from skillopt_sleep.night.stage import candidate_diffs
from skillopt_sleep.rules.workspace import load_workspace
from skillopt_sleep.settings import FilesSettings

REPO = Path(__file__).resolve().parent.parent


def _user_config(sandbox_home: Path, text: str) -> Path:
    path = sandbox_home / "sleep-home" / "config" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_misspelt_section_names_the_file_the_section_and_the_right_one(cli, sandbox_home):
    path = _user_config(sandbox_home, "[nite]\nk = 2\n")
    r = cli("doctor")
    assert r.code == 3
    assert r.err == (
        f"skillopt-sleep: error: unknown section [nite] in {path} "
        f"(did you mean [night]? fix it in {path})\n"
    )


def test_a_misspelt_key_names_its_file(cli, sandbox_home, tmp_path):
    (tmp_path / ".skillopt-sleep.toml").write_text("[budget]\nmax_call = 10\n")
    r = cli("run", "--estimate")
    assert r.code == 3
    assert r.err == (
        f"skillopt-sleep: error: unknown setting budget.max_call in "
        f"{tmp_path / '.skillopt-sleep.toml'} (did you mean budget.max_calls? fix it in "
        f"{tmp_path / '.skillopt-sleep.toml'})\n"
    )


def test_an_unknown_environment_setting_names_the_variable(cli):
    r = cli("doctor", env={"SKILLOPT_SLEEP_NITE__K": "2"})
    assert r.code == 3
    assert r.err == (
        "skillopt-sleep: error: unknown section [nite] in the environment "
        "(did you mean [night]? fix or unset SKILLOPT_SLEEP_NITE__K)\n"
    )


def test_config_show_shows_the_problem_and_what_loads_without_it(cli, sandbox_home):
    path = _user_config(sandbox_home, "[nite]\nk = 2\n[budget]\nmax_calls = 10\n")
    r = cli("config", "show")
    assert r.code == 3
    assert r.err == (
        f"skillopt-sleep: error: unknown section [nite] in {path} "
        f"(did you mean [night]? fix it in {path})\n"
    )
    assert "budget.max_calls = 10" in r.out and f"# user ({path})" in r.out
    assert re.search(r"^night\.k = 4 +# default$", r.out, re.MULTILINE), r.out


def test_a_demo_that_cannot_start_leaves_no_temp_dir(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(REPO), "HOME": str(tmp_path)}
    env.pop("ANTHROPIC_API_KEY", None)
    r = subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", "demo", "--backend", "anthropic"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == 6, r.stderr
    assert list(tmp.iterdir()) == []


def test_a_new_skills_diff_is_labelled_with_its_path_in_the_project(tmp_path):
    workspace = load_workspace(tmp_path, FilesSettings(skill=".claude/skills/beta/SKILL.md"))
    diffs = candidate_diffs(workspace, {"SKILL.md": "---\nname: beta\n---\nUse pytest -q.\n"})
    assert diffs["SKILL.md"].startswith(
        "--- a/.claude/skills/beta/SKILL.md\n+++ b/.claude/skills/beta/SKILL.md\n"
    )


def test_a_night_with_too_few_tasks_says_to_log_more():
    from skillopt_sleep.cli.render import night_text

    few = NightSummary(
        night_id="n",
        project="/p",
        started_at="2026-11-24T03:17:00Z",
        n_train=1,
        decision="no_evidence",
        reason="no candidate tonight",
    )
    assert night_text(few).splitlines()[-1] == (
        "hint: only 1 task logged for this project; a night finds evidence among several tasks of a "
        "kind: log more (`skillopt-sleep harvest`, `skillopt-sleep tasks add`) and run again"
    )
    many = few.model_copy(update={"n_train": 20, "n_holdout": 10})
    assert "hint:" not in night_text(many)


def test_schedule_print_where_no_scheduler_exists_says_so_and_exits_0(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "PATH": "/nonexistent",
        "PYTHONPATH": str(REPO),
        "PYTHONDONTWRITEBYTECODE": "1",
        "SKILLOPT_SLEEP_ROLES__TARGET__BACKEND": "simulated",
    }
    r = subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", "schedule", "--print"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if r.stdout.startswith("would schedule a nightly run\nmethod: "):
        pytest.skip("a systemd user manager runs here: a scheduler exists")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("nothing would be scheduled: no OS scheduler is usable here (")
    assert "skillopt-sleep schedule run" in r.stdout
    assert list(home.iterdir()) == []


def test_the_model_server_runs_on_a_python_with_only_the_standard_library(tmp_path):
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-S",
            "-m",
            "skillopt_sleep.testing.model_server",
            "--port",
            "0",
            "--reply",
            "hello",
        ],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = proc.stdout.readline()
    finally:
        proc.kill()
        _, err = proc.communicate()
    assert first.startswith("http://127.0.0.1:"), err


def test_no_default_and_no_readme_line_names_a_model_past_its_end_of_life():
    deprecated = pytest.importorskip("anthropic._data.deprecated_models").DEPRECATED_MODELS
    from skillopt_sleep.backends.anthropic_api import DEFAULT_MODEL
    from skillopt_sleep.settings.template import starter_config

    texts = {
        "README.md": (REPO / "README.md").read_text(encoding="utf-8"),
        "the starter config": starter_config(),
        "the default model": DEFAULT_MODEL,
    }
    for where, text in texts.items():
        named = set(re.findall(r"claude-[a-z0-9-]+", text))
        assert not named & set(deprecated), (where, sorted(named & set(deprecated)))
