"""Run the real GitHub Copilot CLI (``copilot``) against a loopback model server, in a sandbox home.

Copilot's offline BYOK mode (``COPILOT_OFFLINE=true`` + ``COPILOT_PROVIDER_BASE_URL``) speaks
OpenAI Chat Completions to the server and needs no GitHub account. Everything it writes
(``~/.copilot/session-state/<uuid>/events.jsonl``, its SQLite index, logs, settings) lands
under the given ``home``; the real ``~/.copilot`` is never touched.

Its first start unpacks ~235 MB into ``$XDG_CACHE_HOME/copilot/pkg``. That cache holds only the
CLI's own files, so every run shares one (:func:`shared_cache`: ``.tools/cache`` of the checkout
when the pinned CLI is there), and a run costs seconds instead of an unpack.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..agent_replay.environment import xdg_home
from .agents import AgentRun, pinned_cli, run_agent
from .replies import Reply, Text, ToolCall
from .server import ModelServer

COPILOT_MODEL = "gpt-5"
# Variables that would point copilot at a real account, config or home, dropped from the base env.
_LEAKY = (
    "COPILOT_HOME",
    "COPILOT_GITHUB_TOKEN",
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "COPILOT_PROVIDER_BASE_URL",
    "COPILOT_PROVIDER_TYPE",
    "COPILOT_PROVIDER_API_KEY",
    "COPILOT_PROVIDER_BEARER_TOKEN",
    "COPILOT_PROVIDER_API_KEY_COMMAND",
    "COPILOT_PROVIDER_WIRE_API",
    "COPILOT_MODEL",
    "COPILOT_ALLOW_ALL",
    "COPILOT_CUSTOM_INSTRUCTIONS_DIRS",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
)
_TOOLS = Path(__file__).resolve().parents[2] / ".tools"

PROMPT = "run the tests please"
OK_COMMAND = "python3 -m unittest"
RETRY_COMMAND = "python3 -m pytest -q 2>&1 | tail -1"
FAILING_COMMAND = "ls does-not-exist"
NOTES = "NOTES.md"
NOTES_TEXT = "# Notes\nadd() works.\n"
FINAL = "Done: add(2, 3) is 5, and NOTES.md records it."
CORRECTION = "No, that's wrong: always use pytest -q"
PRAISE_PROMPT = "show me calc.py"
PRAISE = "thanks, perfect"
_TEST = (
    "import unittest\n\nfrom calc import add\n\n\n"
    "class AddTest(unittest.TestCase):\n    def test_add(self):\n"
    "        self.assertEqual(add(2, 3), 5)\n"
)


def which_copilot() -> str | None:
    """Path of the ``copilot`` binary (on PATH, else the checkout's pinned ``.tools``), or None."""
    return pinned_cli("copilot")


def shared_cache(home: Path) -> Path:
    """Where the CLI unpacks itself: the checkout's ``.tools/cache`` (shared by every run and
    test) when the pinned CLI is installed there, else a cache inside ``home``."""
    return _TOOLS / "cache" if _TOOLS.is_dir() else home / ".cache"


def copilot_env(
    home: Path, url: str, *, base: Mapping[str, str] | None = None, cache: Path | None = None
) -> dict[str, str]:
    """Environment for ``copilot`` talking to ``url`` (the server's base URL) from ``home``.

    HOME and the XDG config/data/state directories lie in ``home``; the package cache is
    :func:`shared_cache` unless ``cache`` names another. Offline: no auth, telemetry or update.
    """
    home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in (os.environ if base is None else base).items() if k not in _LEAKY}
    env.update(
        {
            "HOME": str(home),
            **xdg_home(home),
            "XDG_CACHE_HOME": str(cache or shared_cache(home)),
            "COPILOT_OFFLINE": "true",
            "COPILOT_AUTO_UPDATE": "false",
            "COPILOT_PROVIDER_BASE_URL": url.rstrip("/").removesuffix("/v1") + "/v1",
            "COPILOT_PROVIDER_API_KEY": "dummy",
            "COPILOT_MODEL": COPILOT_MODEL,
            "NO_COLOR": "1",
        }
    )
    return env


def run_copilot(
    prompt: str,
    *,
    home: Path,
    url: str,
    cwd: Path,
    extra: Sequence[str] = (),
    timeout: float = 180,
) -> AgentRun:
    """``copilot -p PROMPT --allow-all-tools`` against ``url`` (``extra``: ``--continue``)."""
    binary = which_copilot()
    if binary is None:
        raise FileNotFoundError("copilot is not installed (npm i -g @github/copilot@1.0.102)")
    argv = [binary, "-p", prompt, "--allow-all-tools", *extra]
    return run_agent(argv, copilot_env(home, url), cwd, timeout)


def copilot_sessions(home: Path) -> list[Path]:
    """Every session event log under ``home/.copilot/session-state``, oldest first."""
    logs = (home / ".copilot" / "session-state").glob("*/events.jsonl")
    return sorted(logs, key=lambda p: p.stat().st_mtime_ns)


def make_project(path: Path) -> Path:
    """A throwaway git project: ``calc.py`` with ``add()``, its unittest test, and an
    ``AGENTS.md`` (which Copilot loads as instructions, never as a prompt); one commit."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "calc.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    (path / "test_calc.py").write_text(_TEST, encoding="utf-8")
    (path / "AGENTS.md").write_text("# Project\n\nKeep answers short.\n", encoding="utf-8")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for argv in (["init", "-q"], ["add", "."], ["commit", "-qm", "calc"]):
        subprocess.run([*git, *argv], cwd=path, check=True, capture_output=True)
    return path


def copilot_shell(command: str, text: str = "") -> ToolCall:
    """Copilot's ``bash`` tool call."""
    return ToolCall("bash", {"command": command, "description": "Run"}, text=text)


def copilot_create(path: str, text: str) -> ToolCall:
    """Copilot's ``create`` tool call (``path`` absolute)."""
    return ToolCall("create", {"path": path, "file_text": text})


def first_session(project: Path) -> list[Reply]:
    """The model's side of :data:`PROMPT`: a shell call that succeeds, a write of ``NOTES.md``,
    a shell call that exits 2, a final text (one reply per model call)."""
    return [
        copilot_shell(OK_COMMAND, text="Running the check."),
        copilot_create(str(project / NOTES), NOTES_TEXT),
        copilot_shell(FAILING_COMMAND),
        Text(FINAL),
    ]


def corrected_session() -> list[Reply]:
    """The model's side of :data:`CORRECTION` (``--continue``): it runs pytest -q, then agrees."""
    return [copilot_shell(RETRY_COMMAND), Text("Understood: pytest -q from now on.")]


def praised_session() -> tuple[list[Reply], list[Reply]]:
    """The model's side of :data:`PRAISE_PROMPT` (it reads ``calc.py``), then of :data:`PRAISE`."""
    return [copilot_shell("cat calc.py"), Text("calc.py defines add(a, b).")], [
        Text("Glad it helped.")
    ]


def record_sessions(root: Path, timeout: float = 180) -> tuple[Path, Path]:
    """Record the two scripted sessions in ``root/home`` for the project ``root/project``.

    The first asks :data:`PROMPT` and is corrected with :data:`CORRECTION` on ``--continue``;
    the second asks :data:`PRAISE_PROMPT` and is praised with :data:`PRAISE`. Returns their
    event logs. Raises AssertionError (with the CLI's output) when a run fails.
    """
    home, project = root / "home", make_project(root / "project")
    runs = [
        (PROMPT, first_session(project), ()),
        (CORRECTION, corrected_session(), ("--continue",)),
        (PRAISE_PROMPT, praised_session()[0], ()),
        (PRAISE, praised_session()[1], ("--continue",)),
    ]
    for prompt, replies, extra in runs:
        with ModelServer(replies) as srv:
            run = run_copilot(
                prompt, home=home, url=srv.url, cwd=project, extra=extra, timeout=timeout
            )
        assert run.code == 0, f"copilot exited {run.code}: {run.err[-2000:]}"
    corrected, praised = copilot_sessions(home)
    return corrected, praised


def install_plugin(plugin: Path, home: Path, timeout: float = 120) -> AgentRun:
    """``copilot plugin install PLUGIN`` into ``home`` (a local directory; copilot copies it,
    links resolved, into ``~/.copilot/installed-plugins/_direct/``)."""
    binary = which_copilot()
    if binary is None:
        raise FileNotFoundError("copilot is not installed (npm i -g @github/copilot@1.0.102)")
    env = copilot_env(home, "http://127.0.0.1:9")  # installing a local plugin calls no model
    return run_agent([binary, "plugin", "install", str(plugin)], env, home, timeout)
