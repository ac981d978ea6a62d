"""The small vocabularies per language the miner reads, each still held against the attempt and
the user's example: praise that is no task, a limit, a leave-out, and a relative link named in
languages and wordings the recorded sets do not hold."""

from __future__ import annotations

import pytest

from skillopt_sleep.checks.judge import rule_check
from skillopt_sleep.harvest.clauses import _clauses
from skillopt_sleep.harvest.held_text import held_text_checks
from skillopt_sleep.harvest.spans import limits
from skillopt_sleep.harvest.turns import classify_turn


@pytest.mark.parametrize(
    "said",
    [
        "¡Genial, ya funciona!",
        "Dzięki, działa.",
        "Çok net, teşekkürler!",
        "Спасибо, работает!",
        "Bedankt, werkt nu!",
        "Cảm ơn, chạy rồi!",
        "ありがとう、完璧です！",
        "감사합니다!",
    ],
)
def test_praise_in_other_languages_is_praise(said):
    assert classify_turn(said).kind == "praise"


def test_praise_with_a_reservation_is_a_correction():
    assert classify_turn("Díky, ale ještě přidej README.").kind == "correction"


@pytest.mark.parametrize(
    ("said", "limit"),
    [
        ("Ett SMS får vara högst 160 tecken.", ("chars", 160)),
        ("Не более 200 символов.", ("chars", 200)),
        ("Maximaal 20 woorden.", ("words", 20)),
        ("Nejvýše 3 řádky.", ("lines", 3)),
        ("최대 50 단어", ("words", 50)),
    ],
)
def test_a_limit_in_other_languages(said, limit):
    assert limits(said) == [limit]


def test_a_number_before_a_longer_word_is_no_limit():
    assert limits("max 3 radios in the form") == []


@pytest.mark.parametrize(
    "said",
    [
        "Vynech `node_modules/`, zajímá mě jen `src/`.",
        "Не трогай `node_modules/`, только `src/`.",
        "`node_modules/`는 빼고 `src/`만 보여 주세요.",
        "Pomiń `node_modules/`, tylko `src/`.",
    ],
)
def test_a_leave_out_in_other_languages_says_only_the_folder_against(said):
    clauses = _clauses(said)
    assert [neg for c, neg in clauses if "node_modules/" in c] == [True]
    assert [neg for c, neg in clauses if "src/" in c] == [False]


def test_a_relative_path_naming_the_linked_page_replaces_the_link_in_any_words():
    answer = "[Setup](https://docs.example.com/setup.html)"
    checks = held_text_checks("Ссылку делай на `./setup.md`.", answer, [])
    assert checks
    assert all(rule_check(c, "[Setup](./setup.md)")[0] for c in checks)
    assert not all(rule_check(c, answer)[0] for c in checks)
