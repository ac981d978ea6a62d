"""Text corrections in plain words, from sessions recorded with the real claude and codex (the
sixth labelled set, tests/harvest/check_conversations_sixth.py), harvested through the CLI: a
limit in words (Italian) and one where the text is cut (Portuguese) land on their request as the
check the user's example passes; a relative path named instead of a full link becomes that link;
the thanks after it is praise on the same task, never a task of its own."""

from __future__ import annotations

from skillopt_sleep.checks.judge import rule_check
from skillopt_sleep.harvest.check_miner import plain

from .check_conversations_sixth import _BLURB, _BLURB_LONG, _PUSH, _PUSH_LONG, CHECKS_SIXTH
from .recorded_harvest import harvested, mined


def _held(task, answer: str, attempt: str) -> None:
    rules = [c for c in task.checks if c.kind != "rubric"]
    assert rules, task.intent
    for check in rules:
        assert rule_check(check, answer)[0], plain(check)
        assert not rule_check(check, attempt)[0], plain(check)


def test_a_limit_in_words_or_where_the_text_is_cut_lands_on_its_request(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, CHECKS_SIXTH)
    assert not any(i.startswith(("Il campo", "O Android")) for i in tasks)
    blurb = tasks["Scrivi la descrizione breve dell'app per lo store."]
    assert [n.kind for n in blurb.turns] == ["correction"]
    assert mined(blurb) == ["at most 25 words"]
    _held(blurb, _BLURB, _BLURB_LONG)
    push = tasks["Escreve a notificação push do lançamento da versão 5."]
    assert mined(push) == ["max_chars 90"]
    _held(push, _PUSH, _PUSH_LONG)


def test_a_relative_path_named_instead_of_a_full_link_and_the_thanks_after_it(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, CHECKS_SIXTH)
    assert not any(i.startswith("Obrigado") for i in tasks)
    link = tasks["Põe no guia de instalação um link para a referência da API."]
    assert [n.kind for n in link.turns] == ["correction", "praise"]
    assert "contains '../api/reference.md'" in mined(link)
    assert "links are relative (no http(s) link)" in mined(link)
    _held(
        link,
        "Consulta a [referência da API](../api/reference.md).",
        "Consulta a [referência da API](https://docs.acme.io/api/reference.html).",
    )
    out = cli("tasks", "show", link.id[:12]).out
    assert (
        "held against the user's example: 'Consulta a [referência da API](../api/reference.md).'"
        in out
    )
