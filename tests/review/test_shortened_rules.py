"""A rule too long for one line is shown by its first whole words, in every place that shortens it."""

from skillopt_sleep.models import Edit, WaitingEdit
from skillopt_sleep.optimize.waiting import waiting_line
from skillopt_sleep.shorten import at_word

RULE = "Use the logging module for debug output in every module, never print(), for diagnostics"


def test_a_long_rule_is_cut_at_a_word_with_an_ellipsis():
    shown = at_word(RULE, 80)
    assert shown == "Use the logging module for debug output in every module, never print(), for…"
    assert len(shown) <= 80


def test_a_short_rule_and_one_long_token_are_shown_as_they_are_or_cut_where_the_span_ends():
    assert at_word("Use pytest -q", 80) == "Use pytest -q"
    assert at_word("x" * 100, 10) == "x" * 9 + "…"


def test_a_waiting_rule_in_the_nights_notes_ends_at_a_whole_word():
    w = WaitingEdit(edit=Edit(target="memory", content=RULE), since="N1", missing=["unseen"])
    line = waiting_line(w)
    assert "never print(), for…'" in line
    assert "for diag" not in line
