"""The environment seam: the shipped environments and a user's own, and the failure policy."""

from __future__ import annotations

import asyncio
import sys
from datetime import datetime, timezone

import pytest

from skillopt_sleep.backends.scripted import ScriptedBackend
from skillopt_sleep.envs import EnvResult, QAEnv, TaskRecordEnv, load_env
from skillopt_sleep.envs.qa import token_f1
from skillopt_sleep.errors import AuthError, ConfigError, TransientError
from skillopt_sleep.models import Check, TaskRecord

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def item(intent: str, *checks: Check) -> TaskRecord:
    return TaskRecord(
        source="import",
        project="/p",
        session_id=intent,
        created_at=NOW,
        intent=intent,
        checks=list(checks),
    )


def roll(env, task, backend):  # type: ignore[no-untyped-def]
    return asyncio.run(env.rollout(task, "be brief", backend, seed=1))


def test_qa_scores_exact_match_and_f1() -> None:
    q = item("Capital of France?", Check(kind="equals", value="Paris"))
    hit = roll(QAEnv(), q, ScriptedBackend(["Let me think.\nThe Paris."]))
    assert (hit.hard, hit.soft, hit.error) == (1.0, 1.0, None)
    near = roll(
        QAEnv(),
        item("Who wrote it?", Check(kind="equals", value="Jane Austen")),
        ScriptedBackend(["Austen"]),
    )
    assert near.hard == 0.0 and near.soft == pytest.approx(
        token_f1("Austen", "Jane Austen")
    ) == pytest.approx(2 / 3)
    assert near.fail_reason == ("answer is not the expected answer",)


def test_task_record_env_judges_by_checks_and_keeps_the_conversation() -> None:
    t = item("How do I run the tests?", Check(kind="contains", value="pytest -q"))
    got = roll(TaskRecordEnv(), t, ScriptedBackend(["Run `pytest -q`."]))
    assert (got.hard, got.soft) == (1.0, 1.0)
    assert [m.role for m in got.conversation] == [
        "user",
        "assistant",
    ] and got.answer == "Run `pytest -q`."
    miss = roll(TaskRecordEnv(), t, ScriptedBackend(["Run `pytest`."]))
    assert miss.hard == 0.0 and miss.fail_reason == ("answer lacks something the user asked for",)


@pytest.mark.parametrize("env", [TaskRecordEnv(), QAEnv()])
def test_one_bad_item_is_an_error_never_a_zero_and_never_raises(env) -> None:  # type: ignore[no-untyped-def]
    t = item("Q?", Check(kind="equals", value="A"))
    got = roll(env, t, ScriptedBackend([TransientError("server overloaded")]))
    assert got.hard is None and got.soft is None and "overloaded" in (got.error or "")


@pytest.mark.parametrize("env", [TaskRecordEnv(), QAEnv()])
def test_a_systemic_failure_raises(env) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(AuthError):
        roll(
            env,
            item("Q?", Check(kind="equals", value="A")),
            ScriptedBackend([AuthError("key rejected")]),
        )


def test_qa_item_without_reference_is_an_error() -> None:
    got = roll(QAEnv(), item("Q?"), ScriptedBackend(["x"]))
    assert got.hard is None and "no reference answer" in (got.error or "")


class Shouting:
    """A user's own environment: passes when the answer is upper case."""

    name = "shouting"

    async def rollout(self, item, instructions, backend, *, seed, max_tokens=1024):  # type: ignore[no-untyped-def]
        from skillopt_sleep.backends.base import Message, Request

        text = (
            await backend.complete(Request("target", instructions, (Message("user", item.intent),)))
        ).text
        ok = float(text.isupper())
        return EnvResult(ok, ok, (), (Message("assistant", text),))


def test_a_users_own_environment_by_module_and_class(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "my_envs", sys.modules[__name__])
    env = load_env("my_envs:Shouting")
    assert roll(env, item("hi"), ScriptedBackend(["HELLO"])).hard == 1.0


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("task_record", "unknown environment 'task_record' (did you mean task-record?"),
        ("no_such_module_xyz:Env", "cannot import environment module 'no_such_module_xyz'"),
        ("json:Nope", "module 'json' has no 'Nope'"),
    ],
)
def test_a_bad_environment_name_is_a_one_line_config_error(spec: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_env(spec)
    assert err.value.one_line().startswith(message)
