"""A number in a correction that the corrected answer exceeds on one measurable property alone
is that property's ceiling, whatever the language's word for its unit (``40자 이내`` after a
95-character push text) and whether it is written in digits or words ("delapan puluh karakter",
"τρεις κουκκίδες"); a number two properties exceed, or far below the answer's size, is no
ceiling, and a number the answer itself carries is one it speaks of. Each limit fails on the
corrected attempt and passes on the user's example."""

from __future__ import annotations

from skillopt_sleep.checks.judge import rule_check
from skillopt_sleep.harvest.held_text import held_text_checks
from skillopt_sleep.harvest.number_words import numbers_in_words

from .check_conversations_ninth import _COMMIT, _COMMIT_BAD, _MINUTES, _MINUTES_BAD, CHECKS_NINTH
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


def test_numbers_in_words_are_limits_on_what_the_answer_exceeds(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, CHECKS_NINTH)
    # "Baris pertama pesan commit paling banyak delapan puluh karakter, ..." (codex)
    commit = tasks["Tulis pesan commit untuk perbaikan bug zona waktu di laporan harian."]
    assert "max_chars 80" in mined(commit)
    _text_holds(commit, _COMMIT, _COMMIT_BAD)
    # "Όχι πάνω από τρεις κουκκίδες, κανείς δεν διαβάζει περισσότερες. ..." (claude)
    minutes = tasks["Γράψε μια σύνοψη της σημερινής συνάντησης για το κανάλι της ομάδας."]
    assert any("Όχι πάνω από τρεις" in f for f in minutes.feedback.splitlines())
    _text_holds(minutes, _MINUTES, _MINUTES_BAD)
    assert not any(t.startswith(("Baris pertama", "Όχι πάνω")) for t in tasks)


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


def test_a_number_word_is_read_in_any_language_an_article_never() -> None:
    assert numbers_in_words("Keep it to three bullets, one per topic.") == [3]
    assert numbers_in_words("paling banyak delapan puluh karakter") == [80]
    assert numbers_in_words("не больше восьмидесяти символов") == [80]
    assert numbers_in_words("Pas plus de quatre-vingts caractères") == [80]
