"""Scopes said in Chinese and Japanese, from sessions recorded with the real claude and codex
(the sixth labelled set, tests/harvest/check_conversations_sixth.py), harvested through the CLI:
"`node_modules/` 和 `vendor/` 里的不要算，我只要 `docs/` 下面的。" after ``find . -name '*.md'``
asks for the listing kept to ``docs/`` (the check reads the command as the shell runs it, its
quotes aside); "消していいのは `tmp/logs/` の中だけです。" after a deletion everywhere lands on its
request, as the deletion kept to ``tmp/logs/``."""

from __future__ import annotations

from skillopt_sleep.checks.action_judge import action_check, recorded
from skillopt_sleep.models import Action

from .check_conversations_sixth import CHECKS_SIXTH
from .recorded_harvest import harvested, mined


def _ran(command: str) -> list[Action]:
    return [Action(kind="command", command=command, exit_code=0)]


def test_a_scope_said_in_chinese_asks_for_the_command_kept_to_it(cli, sandbox_home):
    task = harvested(cli, sandbox_home, CHECKS_SIXTH)["列出所有的 Markdown 文件。"]
    assert mined(task) == ["runs find docs -name *.md"]
    [check] = [c for c in task.checks if c.kind == "ran"]
    assert action_check(check, recorded(_ran("find docs -name '*.md' | head -20")))[0] is True
    assert action_check(check, recorded(_ran("find . -name '*.md'")))[0] is False
    out = cli("tasks", "show", task.id[:12]).out
    assert "held against the user's example: `find docs -name '*.md' | head -20`" in out


def test_a_scope_said_in_japanese_after_a_deletion_lands_on_its_request(cli, sandbox_home):
    # "消していいのは `tmp/logs/` の中だけです。..." after `find . -name '*.log' -delete`
    tasks = harvested(cli, sandbox_home, CHECKS_SIXTH)
    assert not any(i.startswith("消していいのは") for i in tasks)
    task = tasks["古いログファイルを消して。"]
    assert [n.kind for n in task.turns] == ["correction"]
    assert mined(task) == ["runs find tmp/logs -name *.log -delete"]
    [check] = task.checks
    assert action_check(check, recorded(_ran("find tmp/logs -name '*.log' -delete")))[0] is True
    assert action_check(check, recorded(_ran("find . -name '*.log' -delete")))[0] is False
