"""Environments by name: the shipped ones, or a user's own as ``module:Class``."""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Mapping
from typing import Any

from ..checks.judge import RubricJudge
from ..errors import ConfigError
from .base import Environment
from .extras import configure, make
from .qa import QAEnv
from .seed_envs import wrap
from .task_record import TaskRecordEnv

SHIPPED = ("task-record", "qa", "agent")


def unknown_env(spec: str) -> ConfigError:
    """The error of an environment name that is neither shipped nor ``module:Class``."""
    close = difflib.get_close_matches(spec, SHIPPED, n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    return ConfigError(
        f"unknown environment {spec!r}",
        hint=f"{hint}choose {', '.join(SHIPPED)} or name your own as module:Class",
    )


def load_env(
    spec: str, rubric: RubricJudge | None = None, extras: Mapping[str, Any] | None = None
) -> Environment:
    """The environment ``spec`` names: ``task-record``, ``qa`` or ``module:Class`` (made with
    ``extras=`` when its constructor takes them, else with no arguments and then handed the
    ``extras`` by its ``configure``, when it has one). An unknown name is an error listing the
    choices. ``agent`` is chosen per item (the item's own agent, set up for the user's
    environment): a run gets it from :func:`~..night.agent_dispatch.agent_replays`, not here."""
    if spec == "agent":
        raise ConfigError(
            "the agent environment is set up from the user's environment (PATH, HOME, the "
            "agent's API settings)",
            hint="run `skillopt-sleep train --env agent`, or pass agents=agent_replays('agent', "
            "os.environ) to train()",
        )
    if spec == "task-record":
        return TaskRecordEnv(rubric)
    if spec == "qa":
        return QAEnv()
    if ":" not in spec:
        raise unknown_env(spec)
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(
            f"cannot import environment module {module_name!r}: {exc}",
            hint="check the name and that it is on PYTHONPATH",
        ) from exc
    cls = getattr(module, attr, None)
    if cls is None:
        raise ConfigError(
            f"module {module_name!r} has no {attr!r}", hint="write the environment as module:Class"
        )
    env = make(cls, extras or {})
    seeded = wrap(env)  # a skillrl SkillEnv or a SkillOpt EnvAdapter, run as it is
    configure(seeded if seeded is not None else env, extras or {})
    if seeded is not None:
        return seeded
    if not isinstance(env, Environment):
        raise ConfigError(
            f"{spec} is not an environment",
            hint="it needs a name and an async rollout(...), or to be a SkillEnv or an EnvAdapter",
        )
    return env
