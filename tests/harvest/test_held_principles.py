"""The principles a mined check is held to, on wordings written after they were built: sessions
recorded with the real claude and codex (tests/harvest/held_principles.py), harvested through the
CLI. Every correction lands on its request, and no check fails on the user's own example (the
answer, or the commands with the files they write) while each fails on the attempt corrected."""

from __future__ import annotations

from skillopt_sleep.action_models import ACTION_KINDS
from skillopt_sleep.checks.action_judge import action_check, recorded
from skillopt_sleep.checks.judge import rule_check
from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.models import Action

from .held_principles import PRINCIPLE_SESSIONS, PRINCIPLES
from .recorded_harvest import harvested, mined

_ANSWERS = {"Write the status line for the outage.": "Payments are down; we are working on it."}
# The user's own example: the commands they asked for (piped as the agent pipes), the files written.
_EXAMPLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "Formatiere den Code.": (("black src/ 2>&1 | tail -1",), ()),
    "Actualiza las dependencias de Rust.": (
        ("cargo update --workspace 2>&1 | tail -1",),
        ("Cargo.lock",),
    ),
    "Why is the api service down?": (("docker logs api 2>&1 | tail -50",), ()),
    "Lista os ficheiros de configuração.": (("find config -name '*.yaml' 2>&1 | head -20",), ()),
}


def _acts(commands: tuple[str, ...], writes: tuple[str, ...] = ()) -> list[Action]:
    return [
        *(Action(kind="command", command=c, exit_code=0) for c in commands),
        *(Action(kind="write", path=p, content="# lock\n") for p in writes),
    ]


def test_each_correction_lands_on_its_request_with_a_check(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, PRINCIPLES)
    assert sorted(tasks) == sorted(s.steps[0].prompt for s in PRINCIPLE_SESSIONS)
    for task in tasks.values():
        assert [n.kind for n in task.turns] == ["correction"], task.intent
        assert mined(task), task.intent


def test_no_check_fails_on_the_users_example_and_each_fails_on_the_attempt(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, PRINCIPLES)
    for intent, answer in _ANSWERS.items():
        for check in tasks[intent].checks:
            assert rule_check(check, answer)[0], (intent, plain(check))
            assert not rule_check(check, tasks[intent].attempt)[0], (intent, plain(check))
    for intent, (commands, writes) in _EXAMPLES.items():
        task = tasks[intent]
        for check in (c for c in task.checks if c.kind in ACTION_KINDS):
            assert action_check(check, recorded(_acts(commands, writes)))[0], (intent, plain(check))
            assert not action_check(check, recorded(task.actions))[0], (intent, plain(check))


def test_what_the_user_said_against_or_named_as_a_source_is_never_asked_for(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, PRINCIPLES)
    status = mined(tasks["Write the status line for the outage."])
    assert status == ["not_contains 'URGENT'"]
    black = mined(tasks["Formatiere den Code."])
    assert "runs black src" in black and not [c for c in black if "buf" in c]
    cargo = mined(tasks["Actualiza las dependencias de Rust."])
    assert "never runs rm Cargo.lock" in cargo and "leaves Cargo.lock alone" not in cargo
    logs = mined(tasks["Why is the api service down?"])
    assert "runs docker logs api" in logs and not [c for c in logs if "tail" in c]
