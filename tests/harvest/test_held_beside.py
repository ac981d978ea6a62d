"""A turn that quotes a file the attempt read and, beside it in the same folder, one it did not
speaks of that attempt, in any language: the Arabic "never open `config/prod.env` ... all you
need is in `config/dev.example.env`" after ``cat config/prod.env`` lands on its request with the
check that refuses the file (a session recorded with the real codex,
tests/harvest/check_conversations_eleventh.py, harvested through the CLI)."""

from __future__ import annotations

from skillopt_sleep.action_models import ACTION_KINDS
from skillopt_sleep.checks.action_judge import action_check, recorded
from skillopt_sleep.harvest.action_refs import refine
from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.harvest.turns import TurnVerdict
from skillopt_sleep.models import Action

from .check_conversations_eleventh import CHECKS_ELEVENTH
from .recorded_harvest import harvested, mined

_REQUEST = "ما هو عنوان قاعدة البيانات التي يستخدمها التطبيق؟"
_USERS_WAY = ("cat config/dev.example.env 2>&1 | head -5",)


def test_a_file_named_beside_the_one_the_attempt_read_lands_on_its_request(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, CHECKS_ELEVENTH)
    assert not any(t.startswith("لا تفتح") for t in tasks)  # never a task of its own
    task = tasks[_REQUEST]
    assert [n.kind for n in task.turns] == ["correction"]
    assert "never runs config/prod.env" in mined(task)
    users_way = recorded([Action(kind="command", command=c, exit_code=0) for c in _USERS_WAY])
    for check in (c for c in task.checks if c.kind in ACTION_KINDS):
        assert not action_check(check, recorded(task.actions))[0], plain(check)
        assert action_check(check, users_way)[0], plain(check)


def test_a_file_in_another_folder_or_one_the_attempt_used_sets_nothing_against_it() -> None:
    read = [
        Action(kind="command", command="cat config/prod.env"),
        Action(kind="read", path="config/prod.env", tool="shell"),
    ]
    unsure = TurnVerdict("new_request", "no cue", sure=False)
    said = "Lies bitte `config/prod.env` und danach auch {} durch und fasse beides zusammen."
    beside = refine(unsure, said.format("`config/dev.example.env`"), read)
    assert beside.kind == "correction" and "beside" in beside.reason
    for other in ("`docs/setup.md`", "`config/`"):
        assert refine(unsure, said.format(other), read).kind == "new_request", other
