"""skillopt-sleep: a nightly sleep for coding agents.

As a library::

    from skillopt_sleep import run_night
    from skillopt_sleep import train, TrainConfig   # train a skill over a task set
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for type checkers: ``train`` is the function (the package is callable alike)
    from .train.api import train as train
    from .train.config import TrainConfig as TrainConfig
    from .train.config import TrainResult as TrainResult

__version__ = "0.1.0"

__all__ = ["TrainConfig", "TrainResult", "__version__", "run_night", "train"]


def __getattr__(name: str) -> Any:
    # Lazy, so that `skillopt-sleep log` (run at every session end) imports little.
    if name == "run_night":
        from .night.root import run_night

        return run_night
    if name == "train":  # the package, which is callable: ``train(data, skill, out, ...)``
        import importlib

        return importlib.import_module(f"{__name__}.train")
    if name in ("TrainConfig", "TrainResult"):
        from .train import config

        return getattr(config, name)
    raise AttributeError(name)
