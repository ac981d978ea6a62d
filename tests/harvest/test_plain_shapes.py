"""Plain-word corrections harvested through the CLI from sessions the real claude and codex
wrote (tests/harvest/plain_shapes.py): each lands on its request, the rules said in plain words
become checks that fail on the corrected attempt, and none fails on the user's own example."""

from __future__ import annotations

from skillopt_sleep.checks.action_judge import action_check, recorded
from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.models import Action

from .plain_shapes import PLAIN, PLAIN_SESSIONS
from .recorded_harvest import harvested, mined


def test_every_plain_word_correction_lands_on_its_request(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, PLAIN)
    assert sorted(tasks) == sorted(s.steps[0].prompt for s in PLAIN_SESSIONS)


def test_rules_said_in_plain_words_become_checks(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, PLAIN)
    assert "max_chars 60" in mined(tasks["Write the status line for the deploy."])
    assert "max_chars 49" in mined(tasks["Rédige le titre du commit."])
    assert "not_contains 'db-primary-3'" in mined(
        tasks["Summarise the incident for the status page."]
    )
    release = mined(tasks["Liste die Änderungen für das Release."])
    assert "contains 'GH-42'" in release and "not_contains 'Issue 42'" in release


def test_the_second_half_of_a_split_correction_is_the_example(cli, sandbox_home):
    task = harvested(cli, sandbox_home, PLAIN)["Restart the worker."]
    assert len(task.turns) == 2
    out = cli("tasks", "show", task.id[:12]).out
    assert "held against the user's example: `docker compose restart worker`" in out


def test_a_bare_folder_put_out_of_bounds_is_held_against_the_rest(cli, sandbox_home):
    task = harvested(cli, sandbox_home, PLAIN)["Find the FIXMEs."]
    assert "never reads vendor" in mined(task)
    assert {c.held_against for c in task.checks if c.kind != "rubric"} == {
        "`grep -rn FIXME src | head -3`"
    }
    example = recorded([Action(kind="command", command="grep -rn FIXME src")])
    for check in task.checks:
        if check.kind != "rubric":
            assert action_check(check, example)[0] is True, plain(check)


def test_a_command_quoted_back_approvingly_is_never_forbidden(cli, sandbox_home):
    task = harvested(cli, sandbox_home, PLAIN)["Run the test suite."]
    example = recorded([Action(kind="command", command="make test")])
    assert "never runs tail" in mined(task)
    for check in task.checks:
        if check.kind != "rubric":
            assert action_check(check, example)[0] is True, plain(check)
