"""Training a skill over a task set: epochs of steps (rollout, reflect, merge, rank, select under the
schedule, update, gate), a slow update and a meta skill at each epoch boundary, a run directory that
resumes, and a test report on the initial and the best skill.

``skillopt_sleep.train`` is both this package and the library call: the package is callable, and
calling it runs :func:`.api.train` (so ``from skillopt_sleep import train; train(...)`` works
whether or not the package was imported first).
"""

from __future__ import annotations

import sys
import types
from typing import Any

from .config import TrainConfig, TrainResult, TrainSummary
from .data import TaskSet, load_task_set

__all__ = ["TaskSet", "TrainConfig", "TrainResult", "TrainSummary", "load_task_set"]


class _CallablePackage(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> TrainResult:
        from .api import train

        return train(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
