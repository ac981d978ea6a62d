"""The project at the commit its session started from, checked out for an agent replay.

``git clone --shared --no-checkout`` of the live repository into the throwaway directory, then a
detached checkout of the commit there. The live repository is only read: a clone writes nothing
into it (no ``.git/worktrees`` entry, as ``git worktree add`` would make; no ref, stash, index,
config or lock), and a failed or killed night leaves nothing in it to prune. The clone's ``.git``
is removed afterwards, as the working-tree copy has none: the agent never reaches the live
repository's objects, refs or stash, and a ``.git`` whose objects live in a directory the
sandbox hides would not work anyway.

Where the commit is unknown or not in the repository (rebased away, another clone), the caller
falls back to the working-tree copy (:func:`.workspace.copy_project`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from .workspace import MAX_FILE, MAX_TOTAL, CopyTooLarge, copy_project

_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
# No user hooks, filters or fsmonitor: a checkout here runs nothing of the user's.
_GIT = (
    "git",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "advice.detachedHead=false",
    "-c",
    "filter.lfs.smudge=",
    "-c",
    "filter.lfs.process=",
    "-c",
    "filter.lfs.required=false",
)


def _git(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    env = {
        **os.environ,
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_LFS_SKIP_SMUDGE": "1",
    }
    return subprocess.run(
        [*_GIT, *args], capture_output=True, timeout=timeout, check=False, env=env
    )


def has_commit(project: Path, commit: str) -> bool:
    """``commit`` is a full hash and an object of ``project``'s repository."""
    if not _COMMIT.fullmatch(commit) or not (project / ".git").exists():
        return False
    try:
        done = _git("-C", str(project), "cat-file", "-e", f"{commit}^{{commit}}", timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _prune(dest: Path) -> None:
    """Drop what the working-tree copy leaves out too: files over :data:`MAX_FILE`; refuse a
    checkout over :data:`MAX_TOTAL`."""
    total = 0
    for root, _dirs, files in os.walk(dest):
        for name in files:
            path = Path(root, name)
            if path.is_symlink():
                continue
            size = path.stat().st_size
            if size > MAX_FILE:
                path.unlink()
                continue
            total += size
            if total > MAX_TOTAL:
                raise CopyTooLarge(
                    f"the commit holds more than {MAX_TOTAL // 2**20} MiB of files to copy"
                )


def checkout_commit(project: Path, commit: str, dest: Path) -> None:
    """The tree of ``commit`` in ``dest`` (a new directory), without ``.git``.

    ``OSError`` when git fails (the caller falls back to the working-tree copy)."""
    try:
        clone = _git("clone", "--quiet", "--shared", "--no-checkout", "--", str(project), str(dest))
        if clone.returncode != 0:
            raise OSError(f"git clone failed: {clone.stderr.decode(errors='replace').strip()}")
        done = _git("-C", str(dest), "checkout", "--quiet", "--detach", commit)
        if done.returncode != 0:
            raise OSError(f"git checkout failed: {done.stderr.decode(errors='replace').strip()}")
    except subprocess.TimeoutExpired as exc:
        raise OSError(f"git took longer than {exc.timeout:g}s") from exc
    shutil.rmtree(dest / ".git")
    _prune(dest)


def build_copy(project: Path, dest: Path, commit: str) -> str:
    """The project for a replay in ``dest``: at ``commit`` when the repository has it, else its
    working tree (:func:`.workspace.copy_project`). Returns which, for the rollout's record."""
    if commit and has_commit(project, commit):
        try:
            checkout_commit(project, commit, dest)
            return f"commit {commit[:12]}"
        except OSError:
            shutil.rmtree(dest, ignore_errors=True)
            dest.mkdir(parents=True)
    copy_project(project, dest)
    return "working tree"
