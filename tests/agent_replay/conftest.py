"""Fixtures for agent replay: the real CLIs (skipped when absent), a project, an acting world."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from skillopt_sleep.agent_replay import prepare
from skillopt_sleep.testing.agents import codex_home

TOOLS = Path(__file__).resolve().parents[2] / ".tools" / "node_modules" / ".bin"


def agent_path() -> str:
    return f"{TOOLS}{os.pathsep}{os.environ.get('PATH', '')}"


def need(agent: str) -> None:
    """Skip unless the agent's binary and bubblewrap are both usable here."""
    binary = "claude" if agent == "claude-code" else "codex"
    if shutil.which(binary, path=agent_path()) is None:
        pytest.skip(f"{binary} is not installed (put it in .tools/node_modules/.bin)")
    keys = {"ANTHROPIC_API_KEY": "x", "OPENAI_API_KEY": "x"}  # the login is each test's own
    found = prepare(agent, {"PATH": agent_path(), "HOME": os.environ["HOME"], **keys})  # type: ignore[arg-type]
    if isinstance(found, str):
        pytest.skip(found)


def agent_env(home: Path, url: str) -> dict[str, str]:
    """The user's environment as a night sees it: both CLIs pointed at the loopback server."""
    env = {
        "PATH": agent_path(),
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "x",
    }
    codex = codex_home(home, url)
    env.update({k: codex[k] for k in ("LOCAL_API_KEY",)})
    return env


def snapshot(root: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Every file under ``root`` (and every symlink) with a hash of its bytes."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if any(rel == s or rel.startswith(s + "/") for s in skip):
            continue
        if path.is_symlink():
            out[rel] = "link:" + os.readlink(path)
        elif path.is_file():
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif path.is_dir():
            out[rel] = "dir"
    return out


@pytest.fixture
def project(tmp_path: Path) -> Path:
    from skillopt_sleep.testing.acting_world import world_files

    root = tmp_path / "live-project"
    for rel, text in world_files().items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "CLAUDE.md").write_text("# Project notes\nHand-written.\n")
    (root / "AGENTS.md").write_text("# Project notes\nHand-written.\n")
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "out.bin").write_text("ignored")
    if shutil.which("git"):  # a live repository: its refs, index and stash must stay as they are
        git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run([*git, "init", "-q"], check=True)
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-qm", "start"], check=True)
        (root / "src" / "app.py").write_text("def parse(d):\n    return d  # work in progress\n")
        subprocess.run([*git, "stash", "-q"], check=True)
    return root
