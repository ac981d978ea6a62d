"""A number in a correction that the corrected answer exceeds on one measurable property alone
is that property's ceiling, whatever the language's word for its unit (``40자 이내`` after a
95-character push text); a number two properties exceed, or far below the answer's size, is no
ceiling, and a number the answer itself carries is one it speaks of. Each limit fails on the
corrected attempt and passes on the user's example."""

from __future__ import annotations

from skillopt_sleep.checks.judge import rule_check
from skillopt_sleep.harvest.held_text import held_text_checks

from .check_conversations_ninth import _MINUTES, _MINUTES_BAD
from .check_conversations_tenth import _PUSH, _PUSH_BAD, CHECKS_TENTH
from .recorded_harvest import harvested, mined
from .test_held_eighth import _text_holds


def test_a_number_only_the_answers_length_exceeds_is_its_character_limit(cli, sandbox_home):
    # "알림 문구는 40자 이내로 써 주세요. 잠금 화면에서는 그 뒤가 잘려요." (codex)
    tasks = harvested(cli, sandbox_home, CHECKS_TENTH)
    assert not any(t.startswith("알림 문구는") for t in tasks)  # never a task of its own
    task = tasks["앱 업데이트 푸시 알림 문구를 써 줘."]
    assert any(f.startswith("알림 문구는 40자 이내") for f in task.feedback.splitlines())
    checks = mined(task)
    assert "max_chars 40" in checks
    _text_holds(task, _PUSH, _PUSH_BAD)


def test_a_number_only_the_bullets_exceed_is_a_bullet_limit() -> None:
    kept = held_text_checks("Όχι πάνω από 3 κουκκίδες, κανείς δεν διαβάζει.", _MINUTES_BAD, [])
    assert len(kept) == 1
    assert not rule_check(kept[0], _MINUTES_BAD)[0]
    assert rule_check(kept[0], _MINUTES)[0]
    assert rule_check(kept[0], "Σύνοψη:\n" + _MINUTES)[0]  # a line that is no bullet is free


def test_a_number_that_is_a_value_or_one_the_answer_carries_is_no_limit() -> None:
    assert held_text_checks("Set it to 10.", "retries = 3", []) == []
    answer = "- step 4 first\n- then step 5\n- and step 6\n- done with step 7\n- ship it"
    assert held_text_checks("Start with step 4, please.", answer, []) == []
