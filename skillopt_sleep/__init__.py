"""skillopt-sleep: a nightly sleep for coding agents.

As a library::

    from skillopt_sleep import run_night
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "run_night"]


def __getattr__(name: str) -> Any:
    # Lazy, so that `skillopt-sleep log` (run at every session end) imports little.
    if name == "run_night":
        from .night.root import run_night

        return run_night
    raise AttributeError(name)
