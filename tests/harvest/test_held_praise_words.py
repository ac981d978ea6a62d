"""A turn the rules read as praise by a word it opens with, that states a rule the previous
answer breaks, corrects that answer: the Romanian "Prima linie trebuie să înceapă cu
`fix(scheduler):`" ("the first line must start with ...", where "prima" is praise in German)
after a commit message without it lands on its request with a check the message fails (a
session recorded with the real codex, tests/harvest/check_conversations_eleventh.py, harvested
through the CLI). Praise that asks for nothing the answer lacks stays praise."""

from __future__ import annotations

from skillopt_sleep.harvest.answer_refs import refine_by_answer
from skillopt_sleep.harvest.turns import classify_turn

from .check_conversations_eleventh import _COMMIT, _COMMIT_BAD, CHECKS_ELEVENTH
from .recorded_harvest import assert_told_apart, harvested, mined

_REQUEST = "Scrie mesajul de commit pentru reparația din scheduler."


def test_a_rule_the_answer_breaks_after_a_word_of_praise_is_a_correction(cli, sandbox_home):
    task = harvested(cli, sandbox_home, CHECKS_ELEVENTH)[_REQUEST]
    assert [n.kind for n in task.turns] == ["correction"]
    assert "contains 'fix(scheduler):'" in mined(task)
    assert_told_apart(task, _COMMIT_BAD, _COMMIT)


def test_praise_that_asks_for_nothing_the_answer_lacks_stays_praise() -> None:
    for said in ("Prima, danke!", "Perfect, the `fix(scheduler):` prefix is right."):
        verdict = classify_turn(said)
        assert verdict.kind == "praise" and verdict.sure, said
        assert refine_by_answer(verdict, said, _COMMIT).kind == "praise", said
