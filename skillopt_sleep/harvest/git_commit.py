"""The git commit a Claude Code task started from, where its transcript does not say.

Codex writes the commit into its session (``session_meta.git.commit_hash``). Claude Code writes
only the branch (``gitBranch``) and the time of each record; the commit is then the branch's
newest commit made before the task's prompt, as ``git rev-list -1 --before=TIME BRANCH`` finds
it in the project (read only: no lock, no ref, nothing written). A history rewritten since (an
amended or rebased commit) gives an older commit or none; with none, an agent replay copies the
working tree instead.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
from datetime import datetime
from pathlib import Path

_HASH = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_REF = re.compile(r"^[A-Za-z0-9._/-]{1,200}$")


@functools.lru_cache(maxsize=512)
def commit_at(project: str, branch: str, when: datetime) -> str:
    """The newest commit of ``branch`` (HEAD when unknown or detached) in the repository at
    ``project`` made before ``when``; "" when there is none or git cannot say."""
    if not (Path(project) / ".git").exists():
        return ""
    ref = (
        branch
        if branch and branch != "HEAD" and _REF.match(branch) and ".." not in branch
        else "HEAD"
    )
    argv = ["git", "-C", project, "rev-list", "-1", f"--before={when.isoformat()}", ref, "--"]
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    found = done.stdout.strip()
    return found if done.returncode == 0 and _HASH.fullmatch(found) else ""
