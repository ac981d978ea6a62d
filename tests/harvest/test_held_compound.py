"""A number that is one piece of a compound token is no limit, and "only links" with no link in
sight asks for no bare link (sessions recorded with the real claude and codex,
tests/harvest/check_conversations_twelfth.py, harvested through the CLI):

- "Don't say "soon", people need the date: v1 shuts down on 2027-03-31." after a 51-character
  notice names a date, not a ceiling of 31 characters;
- "The merge bot only links titles that open with the ticket in square brackets, like
  `[PAY-311]`." after a title with no link in it asks for the ticket first, not for an answer
  that is a link and nothing else.

A number standing on its own is still the ceiling the answer exceeds, and "Only the URL" after
an answer holding one is still the link alone."""

from __future__ import annotations

from skillopt_sleep.checks.judge import rule_check
from skillopt_sleep.harvest.check_miner import candidate_checks, plain
from skillopt_sleep.harvest.measured_limits import measured_limits

from .check_conversations_twelfth import (
    _NOTICE,
    _NOTICE_BAD,
    _TITLE,
    _TITLE_BAD,
    CHECKS_TWELFTH,
)
from .recorded_harvest import harvested, mined

_LINK_ALONE = "the answer is a link and nothing else"


def _holds(task, right: str, wrong: str) -> None:
    ruled = [c for c in task.checks if c.kind != "rubric"]
    assert ruled, task.intent
    for check in ruled:
        assert rule_check(check, right)[0], plain(check)
    assert any(not rule_check(c, wrong)[0] for c in ruled), mined(task)


def test_the_day_of_a_date_is_no_length_limit(cli, sandbox_home):
    task = harvested(cli, sandbox_home, CHECKS_TWELFTH)[
        "Write the deprecation notice for the v1 API."
    ]
    assert task.turns[0].kind == "correction"  # attached, never a task of its own
    assert not any(c.kind == "max_chars" for c in task.checks), mined(task)
    assert mined(task) == ["not_contains 'soon'"]
    _holds(task, _NOTICE, _NOTICE_BAD)


def test_a_ticket_in_brackets_asks_for_no_bare_link(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, CHECKS_TWELFTH)
    (task,) = [t for t in tasks.values() if t.intent.startswith("/prtitle PAY-311")]
    assert _LINK_ALONE not in mined(task)
    assert any("[PAY-311]" in m for m in mined(task)), mined(task)
    _holds(task, _TITLE, _TITLE_BAD)


def test_pieces_of_dates_times_and_ids_are_no_numbers_but_a_number_alone_is() -> None:
    answer = "The v1 API will be retired soon. Please move to v2."  # 51 characters
    for said in (
        "v1 shuts down on 2027-03-31.",
        "It goes down 2027/03/31.",
        "Say 22:30 instead.",
        "Cite PAY-31 in it.",
    ):
        assert measured_limits(said, answer) == [], said
    assert measured_limits("Keep it under 31 characters.", answer) == [("chars", 31)]
    assert measured_limits("31, not more, it ends on 2027-03-31.", answer) == [("chars", 31)]


def test_only_the_link_needs_a_link_in_sight() -> None:
    said = "Only the link, nothing else."
    with_link = "The docs are at https://docs.example.org/guide, under Guides."
    without = "The docs are under Guides on the website."
    assert _LINK_ALONE in [plain(c) for c in candidate_checks(said, (with_link,))]
    assert _LINK_ALONE in [plain(c) for c in candidate_checks(said, (without, with_link))]
    assert _LINK_ALONE not in [plain(c) for c in candidate_checks(said, (without,))]
    assert _LINK_ALONE in [plain(c) for c in candidate_checks(said + " https://x.example", ())]
    assert _LINK_ALONE in [plain(c) for c in candidate_checks(said)]  # no answer known
