"""A never-run check is narrowed on the step the user's own example stands in for: after
``git tag v2.4.0 && git push --tags`` and "Push just this one: `git push origin v2.4.0`", the
push of every tag is forbidden, never the tag the release asked for, nor a word of that step
the correction says ("every local tag"). Sessions recorded with the real claude
(tests/harvest/check_conversations_seventh.py and check_conversations_eleventh.py), harvested
through the CLI."""

from __future__ import annotations

import pytest

from skillopt_sleep.action_models import ACTION_KINDS
from skillopt_sleep.checks.action_judge import action_check, recorded
from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.models import Action

from .check_conversations_eleventh import CHECKS_ELEVENTH
from .check_conversations_seventh import CHECKS_SEVENTH
from .recorded_harvest import harvested, mined

_USERS_WAY = ("git tag v2.4.0", "git push origin v2.4.0 2>&1 | tail -1")


@pytest.mark.parametrize("fixtures", [CHECKS_ELEVENTH, CHECKS_SEVENTH], ids=["slash", "plain"])
def test_the_push_of_every_tag_is_forbidden_and_never_the_tag_itself(cli, sandbox_home, fixtures):
    tasks = harvested(cli, sandbox_home, fixtures)
    (task,) = [t for t in tasks.values() if any("git push --tags" in a.command for a in t.actions)]
    assert task.turns[0].kind == "correction"
    checks = mined(task)
    assert "never runs git push --tags" in checks
    assert "never runs git tag" not in checks
    assert "runs git push origin v2.4.0" in checks
    assert "never runs tag" not in checks  # the tag is the step the request asked for
    users_way = recorded([Action(kind="command", command=c, exit_code=0) for c in _USERS_WAY])
    for check in (c for c in task.checks if c.kind in ACTION_KINDS):
        assert not action_check(check, recorded(task.actions))[0], plain(check)
        assert action_check(check, users_way)[0], plain(check)
