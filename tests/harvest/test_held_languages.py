"""The small vocabularies per language the miner reads, each still held against the attempt and
the user's example: praise that is no task, a limit, a leave-out, a relative link, a construct
refused, and a phrase quoted the way Chinese and Japanese quote (against their letters), named in
languages and wordings the recorded sets do not hold."""

from __future__ import annotations

import pytest

from skillopt_sleep.checks.judge import rule_check
from skillopt_sleep.harvest.answer_refs import refine_by_answer
from skillopt_sleep.harvest.clauses import _clauses
from skillopt_sleep.harvest.constructs import format_rules
from skillopt_sleep.harvest.examples import user_example
from skillopt_sleep.harvest.held_text import held_text_checks
from skillopt_sleep.harvest.spans import limits, spans
from skillopt_sleep.harvest.text_checks import check_or_none
from skillopt_sleep.harvest.turns import classify_turn
from skillopt_sleep.models import Action


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


@pytest.mark.parametrize(
    ("said", "answer"),
    [
        ("Geen uitroeptekens in de UI-teksten.", "Opgeslagen!"),
        ("Pas de points d'exclamation dans l'interface.", "Enregistré !"),
        ("感嘆符は使わないでください。", "保存しました!"),
        ("不要用感叹号。", "已保存!"),
        ("Не используй жирный шрифт, это для SMS.", "**Готово**"),
    ],
)
def test_a_construct_refused_in_other_languages_corrects_the_answer(said, answer):
    verdict = refine_by_answer(classify_turn(said), said, answer, [])
    assert verdict.kind == "correction"
    checks = [c for k, v in format_rules(said) if (c := check_or_none(kind=k, value=v))]
    assert checks and not all(rule_check(c, answer)[0] for c in checks)


@pytest.mark.parametrize(
    ("said", "answer", "refused"),
    [
        ('不要写"亲爱的用户"，直接说重点。', "亲爱的用户，系统已恢复。", "亲爱的用户"),
        ("别用“尊敬的客户”开头。", "尊敬的客户：系统已恢复。", "尊敬的客户"),
    ],
)
def test_a_phrase_quoted_against_its_letters_is_a_span(said, answer, refused):
    verdict = refine_by_answer(classify_turn(said), said, answer, [])
    assert verdict.kind == "correction"
    assert [s.text for s in spans(said) if s.quoted] == [refused]


@pytest.mark.parametrize(
    "said",
    [
        "Pomiń `vendor/` i `build/`, interesują mnie tylko pliki w `src/`.",
        "Hoppa över `vendor/`, jag vill bara se det som ligger i `src/`.",
        "`vendor/` ve `build/` hariç, sadece `src/` altındakiler.",
        "Без `vendor/`, только то, что в `src/`.",
        "`vendor/` 말고 `src/` 안에 있는 것만 보여 주세요.",
        "Laat `vendor/` weg, alleen `src/` telt.",
    ],
)
def test_a_listing_kept_to_one_folder_in_other_languages(said):
    corrected = [Action(kind="command", command="find . -name '*.go' 2>&1 | head -20")]
    example = user_example(said, corrected)
    assert example is not None and example.where.only
    assert example.commands == ("find src -name '*.go' | head -20",)


def test_a_handle_named_against_is_refused_and_an_address_is_no_handle():
    said = "Never ping @oncall-team in public notes; support@acme.fr is fine."
    assert [s.text for s in spans(said)] == ["@oncall-team"]
    answer = "Release 2.0 is out, thanks @oncall-team!"
    assert refine_by_answer(classify_turn(said), said, answer, []).kind == "correction"
