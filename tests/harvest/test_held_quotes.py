"""A span between „ and ” is quoted, as Hungarian, Romanian, Polish and German write quotes:
"A gombfeliratok végére soha ne tegyél „...” jelet" after buttons that end in "..." lands on
its request with the check that refuses the span (a session recorded with the real claude,
tests/harvest/check_conversations_eleventh.py, harvested through the CLI)."""

from __future__ import annotations

from skillopt_sleep.harvest.spans import spans

from .check_conversations_eleventh import _BUTTONS, _BUTTONS_BAD, CHECKS_ELEVENTH
from .recorded_harvest import assert_told_apart, harvested, mined


def test_a_span_opened_with_a_low_quote_mark_is_refused_on_its_request(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, CHECKS_ELEVENTH)
    assert not any(t.startswith("A gombfeliratok") for t in tasks)  # never a task of its own
    task = tasks["Írd meg a mentés párbeszédablak gombfeliratait."]
    assert [n.kind for n in task.turns] == ["correction"]
    assert "not_contains '...'" in mined(task)
    assert_told_apart(task, _BUTTONS_BAD, _BUTTONS)


def test_the_low_quote_mark_opens_a_span_and_the_words_around_it_are_no_part_of_it() -> None:
    assert [s.text for s in spans("Nie pisz „Szanowny Kliencie” w mailach.") if s.quoted] == [
        "Szanowny Kliencie"
    ]
