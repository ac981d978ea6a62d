"""A project whose log holds one request the user corrected: "use the logging module, not print"."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any


def log_one_corrected_request(cli: Any, project: Path) -> None:
    """``git init`` the project and add the one request through the CLI, as a user types it."""
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    r = cli(
        "tasks", "add", "--intent", "Add debug output to module 1",
        "--check", "not_contains=print(", "--check", "contains=logging",
        "--feedback", "use the logging module, not print", "--outcome", "failure",
        cwd=project,
    )  # fmt: skip
    assert r.code == 0, r.err
