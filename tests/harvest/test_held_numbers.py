"""A number inside the user's own version of the answer is what the answer should say, not a
ceiling on it: "No, release 5.2 ships on 14 May." after the 23-character "Release 5.2 ships
soon." is a date, in any language, and a turn that says the answer again its own way speaks of
it (sessions recorded with the real claude and codex, tests/harvest/held_numbers.py, harvested
through the CLI). A number said on its own, after the user repeats the answer's opening, is
still the ceiling the answer exceeds."""

from __future__ import annotations

from skillopt_sleep.checks.judge import rule_check
from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.harvest.held_text import held_text_checks

from .held_numbers import (
    NUMBER_SESSIONS,
    NUMBERS,
    PUSH_LONG,
    PUSH_SHORT,
    RELEASE_DATED,
    RELEASE_FIXED,
    RELEASE_LATE,
)
from .recorded_harvest import assert_told_apart, harvested, mined

_DATED = {
    "Write the one-line status for the release channel.": RELEASE_FIXED,
    "Escribe la línea de estado para el canal de lanzamientos.": "La versión 3.1 sale el 12 de junio.",
    "Tulis status satu baris untuk kanal rilis.": "Versi 2.0 rilis tanggal 15 Juni.",
}


def test_a_date_in_the_users_version_of_the_answer_is_no_length_limit(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, NUMBERS)
    assert sorted(tasks) == sorted(s.steps[0].prompt for s in NUMBER_SESSIONS)
    for intent, version in _DATED.items():
        task = tasks[intent]
        assert [n.kind for n in task.turns] == ["correction"], intent
        assert task.feedback.splitlines()[0] == version  # attached, never a task of its own
        assert not any(c.kind == "max_chars" for c in task.checks), (intent, mined(task))
        assert all(rule_check(c, version)[0] for c in task.checks if c.kind != "rubric"), intent


def test_a_number_said_on_its_own_after_the_answers_opening_is_still_its_ceiling(cli, sandbox_home):
    task = harvested(cli, sandbox_home, NUMBERS)["Write the push text for release 5.2."]
    assert [n.kind for n in task.turns] == ["correction"]
    assert "max_chars 40" in mined(task)
    assert_told_apart(task, PUSH_LONG, PUSH_SHORT)


def test_only_the_clause_that_says_the_answer_again_makes_its_number_content() -> None:
    assert held_text_checks(RELEASE_DATED, RELEASE_LATE, []) == []
    # the same date said in a clause of its own, the answer not repeated: a number, no content
    kept = held_text_checks("Not before 14, please.", RELEASE_LATE, [])
    assert [plain(c) for c in kept] == ["max_chars 14"]
