"""Text corrections whose checks are generated and held against the corrected attempt and the
user's example, harvested through the CLI from sessions the real claude and codex wrote
(tests/harvest/held_shapes.py): each lands on its request, in any language, and every check it
yields fails on the attempt and passes on the user's own example."""

from __future__ import annotations

from skillopt_sleep.action_models import ACTION_KINDS
from skillopt_sleep.checks.action_judge import action_check, recorded
from skillopt_sleep.checks.judge import rule_check
from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.models import Action

from .held_shapes import HELD, HELD_COMMANDS, HELD_EXAMPLES, HELD_SESSIONS
from .recorded_harvest import harvested, mined


def test_every_correction_and_the_praise_after_it_land_on_their_request(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, HELD)
    assert sorted(tasks) == sorted(s.steps[0].prompt for s in HELD_SESSIONS)
    banner = tasks["Write the maintenance banner."]
    assert [n.kind for n in banner.turns] == ["correction", "correction", "praise"]


def test_text_corrections_become_the_checks_their_example_passes(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, HELD)
    tickets = mined(tasks["List the tickets I closed today."])
    assert "contains 'PAY-88'" in tickets and "not_contains 'ticket 88'" in tickets
    link = mined(tasks["Link the setup guide from the intro."])
    assert "links are relative (no http(s) link)" in link and "contains './setup.md'" in link
    last = tasks["Fasse die Änderung am Handbuch zusammen."]
    assert any(c.kind == "regex" and "Geprüft" in str(c.value) for c in last.checks)
    assert mined(tasks["Escribe el anuncio de la versión."]) == ["no emoji"]
    assert "not_contains 'Postgres SQL'" in mined(
        tasks["Write the intro line for the database page."]
    )
    assert mined(tasks["Rédige la note de version pour le widget."]) == ["at most 3 lines"]
    assert "max_chars 40" in mined(tasks["Write the maintenance banner."])


def test_a_command_named_in_any_language_is_asked_for_as_run(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, HELD)
    assert "runs docker compose up web" in mined(tasks["Start the app locally."])
    sweep = mined(tasks["/sweep"])
    assert "runs git clean -fdX" in sweep and "contains 'git clean -fdX'" not in sweep


def test_no_check_fails_on_the_users_example_and_each_fails_on_the_attempt(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, HELD)
    for intent, answer in HELD_EXAMPLES.items():
        task = tasks[intent]
        rules = [c for c in task.checks if c.kind != "rubric"]
        assert rules, intent
        for check in rules:
            assert rule_check(check, answer)[0], (intent, plain(check))
            assert not rule_check(check, task.attempt)[0], (intent, plain(check))
    for intent, command in HELD_COMMANDS.items():
        example = recorded([Action(kind="command", command=command, exit_code=0)])
        for check in tasks[intent].checks:
            if check.kind in ACTION_KINDS:
                assert action_check(check, example)[0] is True, (intent, plain(check))


def test_tasks_show_names_the_example_answer_a_text_check_was_held_against(cli, sandbox_home):
    task = harvested(cli, sandbox_home, HELD)["List the tickets I closed today."]
    out = cli("tasks", "show", task.id[:12]).out
    assert "held against the user's example: '- PAY-88: refunds / - PAY-91: receipts'" in out
