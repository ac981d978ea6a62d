"""A run's ``extras`` handed to its environment, the way the seed libraries describe it: free-form
settings (a language, a dataset's variant, a tool's URL) that the environment reads and the run
only carries. An environment takes them in its constructor (an ``extras`` keyword) or in a
``configure(extras)`` method; one that has neither is left as it is (the extras may be meant for
the prompt templates alone).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any
from weakref import WeakKeyDictionary

from ..errors import ConfigError

# what each environment was given, so that one handed its extras (in its constructor, or by a
# compat trainer before the run) is not handed the same again by the run
_GIVEN: WeakKeyDictionary[Any, dict[str, Any]] = WeakKeyDictionary()


def _given(env: object) -> dict[str, Any] | None:
    try:
        return _GIVEN.get(env)
    except TypeError:  # an object that cannot be weakly referenced is never remembered
        return None


def _remember(env: object, extras: Mapping[str, Any]) -> None:
    try:
        _GIVEN[env] = dict(extras)
    except TypeError:
        pass  # such an object may be configured twice with the same extras; no harm is known


def takes_extras(cls: type) -> bool:
    """Whether ``cls``'s constructor has an ``extras`` keyword."""
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        return False
    param = params.get("extras")
    return param is not None and param.kind in (param.KEYWORD_ONLY, param.POSITIONAL_OR_KEYWORD)


def make(cls: type, extras: Mapping[str, Any]) -> Any:
    """An instance of ``cls``, made with ``extras=`` when its constructor takes them."""
    if extras and takes_extras(cls):
        made = cls(extras=dict(extras))
        _remember(made, extras)
        return made
    return cls()


def configure(env: object, extras: Mapping[str, Any]) -> None:
    """``env.configure(extras)`` when there are extras and ``env`` has such a method. What it
    raises is one line naming the environment and the extras, since nothing can run without
    them."""
    method = getattr(env, "configure", None)
    if not extras or not callable(method) or _given(env) == dict(extras):
        return
    try:
        method(dict(extras))
        _remember(env, extras)
    except ConfigError:
        raise
    except Exception as exc:
        name = getattr(env, "name", "") or type(env).__name__
        raise ConfigError(
            f"{name}.configure(extras) failed: {type(exc).__name__}: {exc}",
            hint=f"check --extras {sorted(extras)} against what the environment expects",
        ) from exc
