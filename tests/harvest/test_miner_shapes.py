"""The check miner's shapes, harvested through the CLI from sessions the real claude and codex
wrote (tests/harvest/miner_shapes.py): every check passes on the user's own example, plain-words
corrections become text and file checks, a correction after a slash command or a listing lands on
its request, and a correction made again strengthens one preference."""

from __future__ import annotations

from .miner_shapes import SHAPE_SESSIONS, SHAPES
from .recorded_harvest import harvested, mined


def test_every_correction_lands_on_its_request(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, SHAPES)
    corrections = {s.prompt for sc in SHAPE_SESSIONS for s in sc.steps if s.kind == "correction"}
    assert not set(tasks) & corrections
    assert len(tasks) == len(SHAPE_SESSIONS)
    assert all(t.outcome == "failure" for t in tasks.values())


def test_no_check_contradicts_the_example_it_came_from(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, SHAPES)
    tests = mined(tasks["Run the tests."])
    assert "never runs python3" not in tests and "never runs python3 -m unittest" in tests
    space = mined(tasks["Free some disk space in the repo."])
    assert "leaves dist alone" in space and "leaves .cache alone" not in space
    log = mined(tasks["Why did the job fail? The log is app.log."])
    assert "never reads app.log" not in log and "runs grep" in log


def test_plain_words_become_text_and_file_checks(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, SHAPES)
    assert mined(tasks["Write the release notes for 2.1."]) == [
        "heading 'Unreleased'",
        "no version heading",
    ]
    assert "changes docs/settings.md" in mined(tasks["Add a `timeout` setting to the config."])
    link = tasks["Link the install page from the README text you write."]
    assert mined(link) == ["links are relative (no http(s) link)"]
    fixture = mined(tasks["Convert every text file to UTF-8."])
    assert "leaves tests/fixtures alone" in fixture
    listing = mined(tasks["List the Python packages in this repo."])
    assert listing == ["not_contains 'vendor/'", "not_contains 'build/'"]


def test_a_correction_after_a_slash_command_lands_on_it(cli, sandbox_home):
    task = harvested(cli, sandbox_home, SHAPES)["/notes"]
    assert [n.kind for n in task.turns] == ["correction"]
    assert mined(task) == ["heading 'Unreleased'", "no version heading"]


def test_tasks_show_names_the_example(cli, sandbox_home):
    task = harvested(cli, sandbox_home, SHAPES)["Run the tests."]
    out = cli("tasks", "show", task.id[:12]).out
    assert (
        "  - never runs python3 -m unittest (held against the user's example: "
        "`python3 -m pytest -x`)\n" in out
    )


def test_the_same_preference_made_three_times_is_one_preference_seen_three_times(cli, sandbox_home):
    harvested(cli, sandbox_home, SHAPES)
    out = cli("tasks", "list", "--all-projects").out
    assert "  x3  " in out, out[-1500:]
