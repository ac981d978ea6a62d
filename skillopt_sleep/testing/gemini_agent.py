"""Run the real Gemini CLI (``gemini``) against a loopback model server, in a sandbox home.

Gemini CLI speaks the Gemini API (``generateContent``, see :mod:`.gemini_wire`) and reads its
endpoint from ``GOOGLE_GEMINI_BASE_URL``. Everything it writes (sessions under
``~/.gemini/tmp/<project>/chats/``, settings, error reports) lands under the given ``home``; the
real ``~/.gemini`` is never touched. Without ``--yolo`` a headless run is offered read-only tools
only, so :func:`run_gemini` passes it. :func:`scripted_session` plays the conversation the
harvest tests record: a shell call that succeeds, a file write, a shell call that exits 2, a
final text.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..agent_replay.environment import xdg_home
from .agents import AgentRun, pinned_cli, run_agent
from .replies import ModelCall, Reply, Responder, Text, ToolCall
from .server import ModelServer, default_responder

# Variables that would point gemini at a real account, config or home, dropped from the base env.
_LEAKY = (
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_VERTEX_BASE_URL",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GEMINI_CLI_HOME",
    "GEMINI_MODEL",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
)
# Offline, quiet and with the API-key auth: a base URL alone switches gemini to a gateway auth.
SETTINGS: dict[str, Any] = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
    "telemetry": {"enabled": False},
}

OK_COMMAND = "python3 -m unittest"  # a test runner the user then corrects to pytest -q
FAILING_COMMAND = "ls does-not-exist"
NOTES = "NOTES.md"
NOTES_TEXT = "# Notes\nadd() works.\n"
FINAL = "Done: the tests pass, and NOTES.md records it."
TEST_CALC = (
    "import unittest\n\nfrom calc import add\n\n\n"
    "class AddTest(unittest.TestCase):\n    def test_add(self):\n"
    "        self.assertEqual(add(2, 3), 5)\n"
)


def which_gemini() -> str | None:
    """Path of the ``gemini`` binary (on PATH, else the project's pinned ``.tools``), or ``None``."""
    return pinned_cli("gemini")


def write_settings(home: Path, extra: Mapping[str, Any] | None = None) -> Path:
    """``home/.gemini/settings.json``: :data:`SETTINGS` with ``extra`` keys (hooks, context)."""
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**SETTINGS, **(extra or {})}, indent=2), encoding="utf-8")
    return path


def gemini_env(
    home: Path, url: str, *, base: Mapping[str, str] | None = None, users_shell: bool = False
) -> dict[str, str]:
    """Environment for ``gemini`` talking to ``url`` (the server's base URL, no ``/v1beta``).

    HOME, TMPDIR (its error reports) and the XDG directories all lie in ``home``; the workspace
    is trusted (else a headless run exits 55) and gemini starts once. ``users_shell``: neither,
    as in a user's own shell (gemini then asks before it trusts a folder, and restarts itself).
    """
    home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in (os.environ if base is None else base).items() if k not in _LEAKY}
    tmp = home / ".tmp"
    tmp.mkdir(exist_ok=True)
    env.update(
        {
            "HOME": str(home),
            **xdg_home(home),
            "TMPDIR": str(tmp),
            "GEMINI_API_KEY": "dummy",
            "GOOGLE_GEMINI_BASE_URL": url.rstrip("/"),
            "NO_UPDATE_NOTIFIER": "1",
            "NO_COLOR": "1",
        }
    )
    for name in ("GEMINI_CLI_TRUST_WORKSPACE", "GEMINI_CLI_NO_RELAUNCH"):
        env.pop(name, None)
    if not users_shell:
        env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
        # gemini otherwise starts itself a second time, only to raise node's heap limit:
        # about 2 s before every prompt reaches the model.
        env["GEMINI_CLI_NO_RELAUNCH"] = "true"
    return env


def run_gemini(
    prompt: str,
    *,
    home: Path,
    url: str,
    cwd: Path,
    extra: Sequence[str] = (),
    timeout: float = 120,
) -> AgentRun:
    """``gemini -p PROMPT --yolo --output-format json`` against ``url`` (settings written once)."""
    binary = which_gemini()
    if binary is None:
        raise FileNotFoundError("gemini is not installed (npm i -g @google/gemini-cli)")
    if not (home / ".gemini" / "settings.json").is_file():
        write_settings(home)
    argv = [binary, "-p", prompt, "--yolo", "--output-format", "json", *extra]
    return run_agent(argv, gemini_env(home, url), cwd, timeout)


def gemini_shell(command: str, text: str = "") -> ToolCall:
    """Gemini CLI's ``run_shell_command`` tool call."""
    return ToolCall("run_shell_command", {"command": command, "description": "Run it"}, text=text)


def gemini_write(file_path: str, content: str, text: str = "") -> ToolCall:
    """Gemini CLI's ``write_file`` tool call (a path relative to the project is fine)."""
    return ToolCall("write_file", {"file_path": file_path, "content": content}, text=text)


def _is_side_request(call: ModelCall) -> bool:
    """The model router's classifier call: tools-less, asking for JSON."""
    return not call.tools and call.json_schema is not None


def scripted(replies: Sequence[Reply]) -> Responder:
    """A responder playing ``replies`` in order for the agent's own calls; the router's
    classifier calls get schema-shaped JSON and consume nothing. Past the end: a short text."""
    queue = list(replies)

    def respond(call: ModelCall) -> Reply:
        if _is_side_request(call) or not queue:
            return default_responder(call)
        return queue.pop(0)

    return respond


def scripted_session(final: str = FINAL) -> Responder:
    """The recorded conversation: shell ok, write a file, shell exit 2, then ``final``."""
    return scripted(
        [
            gemini_shell(OK_COMMAND, text="Running the check."),
            gemini_write(NOTES, NOTES_TEXT),
            gemini_shell(FAILING_COMMAND),
            Text(final),
        ]
    )


def make_project(work: Path) -> Path:
    """A throwaway git project: ``calc.py`` and its test (what :func:`scripted_session` runs)."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "calc.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    (work / "test_calc.py").write_text(TEST_CALC, encoding="utf-8")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "calc"]):
        subprocess.run([*git, *args], cwd=work, check=True, capture_output=True)
    return work


def converse(
    turns: Sequence[tuple[str, Responder]], *, home: Path, cwd: Path, timeout: float = 120
) -> list[AgentRun]:
    """One session: the first prompt starts it, each later one resumes it (``--resume latest``),
    each answered by its own responder on a fresh loopback server."""
    runs = []
    for i, (prompt, responder) in enumerate(turns):
        extra = ["--resume", "latest"] if i else []
        with ModelServer(responder=responder) as srv:
            runs.append(
                run_gemini(prompt, home=home, url=srv.url, cwd=cwd, extra=extra, timeout=timeout)
            )
    return runs


def gemini_sessions(home: Path) -> list[Path]:
    """Every session transcript under ``home/.gemini/tmp/*/chats``."""
    return sorted((home / ".gemini" / "tmp").glob("*/chats/session-*.jsonl"))


def install_extension(extension: Path, home: Path, timeout: float = 120) -> AgentRun:
    """``gemini extensions install EXTENSION --consent`` into ``home`` (a local directory;
    gemini copies it into ``~/.gemini/extensions/<name>/``, a relative link made absolute)."""
    binary = which_gemini()
    if binary is None:
        raise FileNotFoundError("gemini is not installed (npm i -g @google/gemini-cli)")
    if not (home / ".gemini" / "settings.json").is_file():
        write_settings(home)
    env = gemini_env(home, "http://127.0.0.1:9")  # installing a local extension calls no model
    argv = [binary, "extensions", "install", str(extension), "--consent"]
    return run_agent(argv, env, home, timeout)
