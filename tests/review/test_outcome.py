"""Verdicts on an adopted rule from the requests of its kind before and after adoption."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from skillopt_sleep.models import Edit, TaskRecord, TurnNote
from skillopt_sleep.review.ledger import AdoptedRule, rule_id
from skillopt_sleep.review.outcome import ALPHA, assess, binom_sf, correction_ways

ADOPTED = datetime(2026, 10, 1, tzinfo=timezone.utc)
RULE_TEXT = "Run the tests with `pytest -q`."


def _task(n: int, days: float, intent: str, said: str | None = None) -> TaskRecord:
    when = ADOPTED + timedelta(days=days)
    turns = [TurnNote(kind="correction", text=said, at=when)] if said else []
    return TaskRecord(
        source="claude-code",
        project="/p",
        session_id=f"s{n}",
        created_at=when,
        intent=intent,
        turns=turns,
        tags=["corrected"] if said else [],
    )


def _rule(cited: list[TaskRecord]) -> AdoptedRule:
    edit = Edit(target="memory", content=RULE_TEXT, status="applied")
    return AdoptedRule(
        id=rule_id(edit),
        project="/p",
        text=RULE_TEXT,
        target="memory",
        files=[],
        night_id="n",
        adopted_at=ADOPTED,
        edit=edit,
        task_ids=[t.id for t in cited],
        cited=[t.id for t in cited],
        exemplars=[t.intent for t in cited],
        checks=["contains 'pytest -q'"],
    )


def _world(after: list[str | None]) -> tuple[AdoptedRule, list[TaskRecord]]:
    before = [
        _task(i, -20 + i, f"run the tests for module m{i}", "no, use `pytest -q`") for i in range(6)
    ]
    before += [
        _task(10 + i, -15 + i, "write the changelog entry for release", None) for i in range(5)
    ]
    later = [
        _task(100 + i, 1 + i, f"run the tests for module n{i}", said)
        for i, said in enumerate(after)
    ]
    return _rule(before[:2]), before + later


def test_no_request_since_adoption_is_no_data_yet_and_says_how_many_are_needed():
    rule, tasks = _world([])
    out = assess(rule, tasks)
    assert out.verdict == "no data yet" and out.needed > 0
    assert out.before.requests == 4 and out.before.corrected == 4  # the cited two are left out
    assert f"no data yet: {out.needed} more requests of its kind needed" in out.sentence()


def test_corrections_that_stop_make_a_rule_working():
    rule, tasks = _world([None] * 6)
    out = assess(rule, tasks)
    assert out.verdict == "working" and out.p_fell is not None and out.p_fell <= ALPHA
    assert out.after.requests == 6 and out.after.corrected == 0


def test_corrections_at_the_old_rate_make_a_rule_ignored():
    rule, tasks = _world(["no, use `pytest -q`"] * 4)
    out = assess(rule, tasks)
    assert out.verdict == "ignored" and "does not follow it" in out.sentence()


def test_corrections_the_other_way_make_a_rule_contradicted():
    rule, tasks = _world(["don't use `pytest -q` any more, run plain `pytest`"] * 2 + [None] * 2)
    out = assess(rule, tasks)
    assert out.verdict == "contradicted" and out.after.opposite == 2


def test_unrelated_requests_and_state_tags_do_not_count_as_its_kind():
    rule, tasks = _world([None])
    out = assess(rule, tasks)
    assert (
        out.before.requests == 4
    )  # the five changelog requests (some tagged alike) are another kind


def test_the_same_correction_and_its_opposite_are_told_apart():
    rule, _ = _world([])
    same = _task(1, 1, "run the tests", "no, always use `pytest -q`")
    other = _task(2, 1, "run the tests", "never use `pytest -q` here")
    assert correction_ways(rule, same) == (True, False)
    assert correction_ways(rule, other) == (False, True)


def test_binomial_tail():
    assert binom_sf(0, 5, 0.3) == 1.0
    assert abs(binom_sf(5, 5, 0.5) - 1 / 32) < 1e-12
