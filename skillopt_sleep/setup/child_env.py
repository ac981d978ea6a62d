"""The environment and the working directory the installer's commands run in.

The install scripts put the checkout on ``PYTHONPATH`` so the installer runs from its sources,
and a user runs them from inside the checkout. Passed on, either one shows pip (and the engine's
Python) the checkout instead of what is installed: after an editable install, the checkout's
``skillopt_sleep.egg-info`` makes pip call the engine "already satisfied" and install no command
at all. So every command the installer starts gets the user's environment without the variables
that change which Python code runs, in a directory that holds no Python package.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

# Each one makes a Python started by pip, pipx, uv or the engine import, or find metadata in,
# something other than its own site-packages (the last two: macOS framework builds).
LEAKS = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONEXECUTABLE", "__PYVENV_LAUNCHER__")

# pip and uv must leave no self-check or cache files behind: uninstall restores the tree exactly.
QUIET_TOOLS = {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_CACHE_DIR": "1", "UV_NO_CACHE": "1"}


def child_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` as the installer's commands get it: no leak, and the tools kept quiet."""
    return {**{k: v for k, v in env.items() if k not in LEAKS}, **QUIET_TOOLS}


def neutral_dir() -> Path:
    """Where the commands run: the filesystem root, since `python -m` and `python -c` put their
    working directory first on ``sys.path`` (a checkout there is seen as installed)."""
    return Path(os.path.abspath(os.sep))
