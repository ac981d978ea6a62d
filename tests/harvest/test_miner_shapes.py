"""The check miner's shapes, harvested through the CLI from sessions the real claude and codex
wrote (tests/harvest/miner_shapes.py): every check passes on the user's own example, plain-words
corrections become text and file checks, a correction after a slash command or a listing lands on
its request, and a correction made again strengthens one preference."""

from __future__ import annotations

import shutil
from pathlib import Path

from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.store import Store

from .miner_shapes import SHAPE_SESSIONS, SHAPES


def _harvested(cli, sandbox_home: Path) -> dict[str, TaskRecord]:
    home = sandbox_home / "agents"
    shutil.copytree(SHAPES, home)
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    r = cli("harvest", "--all-projects", "--since", "2020-01-01", "--json", env=env)
    assert r.code == 0, r.err
    tasks = Store.open(sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db").list_tasks()
    return {t.intent: t for t in tasks}


def _checks(task: TaskRecord) -> list[str]:
    return [plain(c) for c in task.checks if c.kind != "rubric"]


def test_every_correction_lands_on_its_request(cli, sandbox_home):
    tasks = _harvested(cli, sandbox_home)
    corrections = {s.prompt for sc in SHAPE_SESSIONS for s in sc.steps if s.kind == "correction"}
    assert not set(tasks) & corrections
    assert len(tasks) == len(SHAPE_SESSIONS)
    assert all(t.outcome == "failure" for t in tasks.values())


def test_no_check_contradicts_the_example_it_came_from(cli, sandbox_home):
    tasks = _harvested(cli, sandbox_home)
    tests = _checks(tasks["Run the tests."])
    assert "never runs python3" not in tests and "never runs python3 -m unittest" in tests
    space = _checks(tasks["Free some disk space in the repo."])
    assert "leaves dist alone" in space and "leaves .cache alone" not in space
    log = _checks(tasks["Why did the job fail? The log is app.log."])
    assert "never reads app.log" not in log and "runs grep" in log


def test_plain_words_become_text_and_file_checks(cli, sandbox_home):
    tasks = _harvested(cli, sandbox_home)
    assert _checks(tasks["Write the release notes for 2.1."]) == [
        "heading 'Unreleased'",
        "no version heading",
    ]
    assert "changes docs/settings.md" in _checks(tasks["Add a `timeout` setting to the config."])
    link = tasks["Link the install page from the README text you write."]
    assert _checks(link) == ["links are relative (no http(s) link)"]
    fixture = _checks(tasks["Convert every text file to UTF-8."])
    assert "leaves tests/fixtures alone" in fixture
    listing = _checks(tasks["List the Python packages in this repo."])
    assert listing == ["not_contains 'vendor/'", "not_contains 'build/'"]


def test_a_correction_after_a_slash_command_lands_on_it(cli, sandbox_home):
    task = _harvested(cli, sandbox_home)["/notes"]
    assert [n.kind for n in task.turns] == ["correction"]
    assert _checks(task) == ["heading 'Unreleased'", "no version heading"]


def test_tasks_show_names_the_example(cli, sandbox_home):
    task = _harvested(cli, sandbox_home)["Run the tests."]
    out = cli("tasks", "show", task.id[:12]).out
    assert (
        "  - never runs python3 -m unittest (held against the user's example: "
        "`python3 -m pytest -x`)\n" in out
    )


def test_the_same_preference_made_three_times_is_one_preference_seen_three_times(cli, sandbox_home):
    _harvested(cli, sandbox_home)
    out = cli("tasks", "list", "--all-projects").out
    assert "  x3  " in out, out[-1500:]
