"""`skillopt-sleep setup`: installs the engine, the agent plugins and the schedule, and removes
exactly what it installed.

Every step appends a line to a manifest as it succeeds; `--uninstall` replays it newest first.
The package imports nothing but the standard library and the error tree, so
``install/install.sh`` can run it from a checkout with a bare Python 3.10, before the engine and
its dependencies exist.
"""

from __future__ import annotations

from .main import main

__all__ = ["main"]
