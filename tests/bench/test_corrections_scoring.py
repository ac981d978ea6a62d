"""``bench.corrections`` scoring: a check that fails on what the user asked for is never a correct
check, even where the labelled example does not spell that command out. A ``never_ran pytest``
catches part of the labelled ``pytest -n auto``, but it forbids the user's own ``pytest -n 2``."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bench import corrections as bench
from skillopt_sleep.models import Check
from tests.harvest.check_conversations import Example, Label, Want

_WANTS = (Want("ran", "pytest -n 2"), Want("never_ran", "pytest -n auto"))
_PROGRAM = Check(kind="never_ran", value=r"(?<![\w-])pytest(?![\w-])")
_VALUE = Check(kind="never_ran", value=r"(?<![\w-])auto(?![\w-])")


def _scored(label: Label, *checks: Check) -> tuple[dict[str, int], list[str]]:
    row = dict.fromkeys(("correct", "contradicting", "contradicting_checks"), 0)
    wrong: list[str] = []
    bench._tally(SimpleNamespace(checks=list(checks)), label, row, wrong)
    return row, wrong


@pytest.mark.parametrize(
    "example",
    [None, Example(answer="Ran the suite on two workers.")],
    ids=["no example", "an example in words only"],
)
def test_a_never_ran_of_the_users_own_command_is_a_contradiction_not_a_correct_check(example):
    label = Label("Only two workers: `pytest -n 2`.", "action", _WANTS, example)
    row, wrong = _scored(label, _PROGRAM)
    assert row == {"correct": 0, "contradicting": 1, "contradicting_checks": 1}
    assert wrong == [f"{label.correction}  ->  never_ran {_PROGRAM.value!r}"]


def test_the_flag_value_the_user_forbids_is_still_correct_beside_it():
    label = Label("Only two workers: `pytest -n 2`.", "action", _WANTS, None)
    row, _ = _scored(label, _PROGRAM, _VALUE)
    assert row == {"correct": 1, "contradicting": 1, "contradicting_checks": 1}
