"""A value the correction puts in place of one the attempt wrote to a file: "Pin the runner to
`ubuntu-24.04`. `ubuntu-latest` moved under us twice this year and broke the build." after a
workflow written with ``runs-on: ubuntu-latest`` (a session recorded with the real claude,
tests/harvest/check_conversations_twelfth.py, harvested through the CLI) lands on the request it
corrects, where it was a task of its own, with a check the written workflow fails and the
user's way passes. A value said against, or two values of different things, name none."""

from __future__ import annotations

from skillopt_sleep.checks.action_judge import action_check, recorded
from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.harvest.file_stand_ins import new_values
from skillopt_sleep.models import Action

from .check_conversations_twelfth import _WORKFLOW, _WORKFLOW_BAD, CHECKS_TWELFTH
from .recorded_harvest import harvested, mined

_PIN = (
    "Pin the runner to `ubuntu-24.04`. `ubuntu-latest` moved under us twice this year and broke "
    "the build."
)
_PATH = ".github/workflows/tests.yml"


def _wrote(content: str) -> list[Action]:
    return [Action(kind="write", path=_PATH, content=content)]


def test_a_value_put_in_place_of_one_the_attempt_wrote_lands_on_its_request(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, CHECKS_TWELFTH)
    assert _PIN not in tasks
    task = tasks["Add a CI workflow that runs the tests on every push."]
    assert task.turns[0].kind == "correction"
    assert task.feedback.splitlines()[0] == _PIN
    assert any("ubuntu" in m for m in mined(task)), mined(task)
    files = [c for c in task.checks if c.kind.startswith("file_")]
    assert files, mined(task)
    for check in files:
        assert action_check(check, recorded(_wrote(_WORKFLOW)))[0] is True, plain(check)
        assert action_check(check, recorded(_wrote(_WORKFLOW_BAD)))[0] is False, plain(check)


def test_only_a_value_of_the_same_thing_not_said_against_stands_in() -> None:
    wrote = _wrote(_WORKFLOW_BAD)
    assert new_values(_PIN, wrote) == [(_PATH, "ubuntu-24.04")]
    assert new_values("Never `ubuntu-24.04`, keep `ubuntu-latest`.", wrote) == []
    assert new_values("Add `pytest-cov`, `ubuntu-latest` is fine.", wrote) == []
    assert new_values(_PIN, []) == []  # nothing written: no file to carry it
