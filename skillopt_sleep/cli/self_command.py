"""How to spell this program in a command line we print, so that it runs as printed: the bare
name when the shell finds it on PATH, else the path it was started by."""

from __future__ import annotations

import shlex
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

NAME = "skillopt-sleep"


def self_command(
    env: Mapping[str, str], argv0: str | None = None, executable: str | None = None
) -> str:
    if shutil.which(NAME, path=env.get("PATH", "")):
        return NAME
    started = Path(argv0 if argv0 is not None else sys.argv[0])
    if started.name == NAME and started.is_file():
        return shlex.quote(str(started.absolute()))
    return f"{shlex.quote(executable or sys.executable)} -m skillopt_sleep"
