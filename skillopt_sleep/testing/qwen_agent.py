"""Run the real Qwen Code CLI (``qwen``) against a loopback model server, in a sandbox home.

Qwen Code speaks OpenAI Chat Completions when started with ``--auth-type openai`` and reads
its endpoint from ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` / ``OPENAI_MODEL``. Everything it
writes (sessions under ``~/.qwen/projects/<sanitised cwd>/chats/``, settings, debug logs) lands
under the given ``home``; the real ``~/.qwen`` is never touched. The responder
:func:`scripted_session` plays the conversation the harvest tests record: a shell call that
succeeds, a file write, a shell call that exits 2, a final text.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..agent_replay.environment import xdg_home
from .agents import AgentRun, pinned_cli, run_agent
from .replies import ModelCall, Reply, Responder, Text, ToolCall
from .server import ModelServer, default_responder

QWEN_MODEL = "stub-model"
# Variables that would point qwen at a real account, config or home, dropped from the base env.
_LEAKY = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_MODEL",
    "DASHSCOPE_API_KEY",
    "QWEN_HOME",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
)
_SETTINGS = {
    "privacy": {"usageStatisticsEnabled": False},
    "general": {"enableAutoUpdate": False},
}

OK_COMMAND = "python3 -m unittest"  # the project's tests, by another runner than pytest
FAILING_COMMAND = "ls does-not-exist"
NOTES = "NOTES.md"
_TEST = (
    "import unittest\n\nfrom calc import add\n\n\n"
    "class AddTest(unittest.TestCase):\n    def test_add(self):\n"
    "        self.assertEqual(add(2, 3), 5)\n"
)
NOTES_TEXT = "# Notes\nadd() works.\n"
FINAL = "Done: the tests pass, and NOTES.md records it."
# Prompts qwen sends by itself (not the user): its managed-memory extraction after a session.
_SIDE_REQUESTS = ("Managed memory directory",)


def which_qwen() -> str | None:
    """Path of the ``qwen`` binary (on PATH, else the project's pinned ``.tools``), or ``None``."""
    return pinned_cli("qwen")


def qwen_env(home: Path, url: str, *, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment for ``qwen`` talking to ``url`` (the server's base URL) from ``home``.

    HOME and the XDG directories all lie in ``home``. ``home/.qwen/settings.json`` (written when
    absent) turns off qwen's usage statistics, which it otherwise posts to its vendor's host,
    and its update check: a test never reaches the internet.
    """
    home.mkdir(parents=True, exist_ok=True)
    settings = home / ".qwen" / "settings.json"
    if not settings.exists():
        settings.parent.mkdir(exist_ok=True)
        settings.write_text(json.dumps(_SETTINGS, indent=2), encoding="utf-8")
    env = {k: v for k, v in (os.environ if base is None else base).items() if k not in _LEAKY}
    tmp = home / ".tmp"
    tmp.mkdir(exist_ok=True)
    env.update(
        {
            "HOME": str(home),
            **xdg_home(home),
            "TMPDIR": str(tmp),
            "OPENAI_BASE_URL": url.rstrip("/").removesuffix("/v1") + "/v1",
            "OPENAI_API_KEY": "dummy",
            "OPENAI_MODEL": QWEN_MODEL,
            "QWEN_TELEMETRY_ENABLED": "false",
            # qwen otherwise starts itself a second time, only to raise node's heap limit: a
            # second load of its 25 MB bundle, about 2 s before every prompt reaches the model.
            "QWEN_CODE_NO_RELAUNCH": "true",
            "NO_UPDATE_NOTIFIER": "1",
            "NO_COLOR": "1",
        }
    )
    return env


def run_qwen(
    prompt: str,
    *,
    home: Path,
    url: str,
    cwd: Path,
    extra: Sequence[str] = (),
    timeout: float = 120,
) -> AgentRun:
    """``qwen -p PROMPT --yolo --auth-type openai`` against ``url`` (``extra``: ``--continue``)."""
    binary = which_qwen()
    if binary is None:
        raise FileNotFoundError("qwen is not installed (npm i -g @qwen-code/qwen-code@0.15.10)")
    argv = [binary, "-p", prompt, "--yolo", "--auth-type", "openai", *extra]
    return run_agent(argv, qwen_env(home, url), cwd, timeout)


def qwen_sessions(home: Path) -> list[Path]:
    """Every Qwen Code session file under ``home/.qwen/projects/*/chats``."""
    return sorted((home / ".qwen" / "projects").glob("*/chats/*.jsonl"))


def qwen_shell(command: str, text: str = "") -> ToolCall:
    """Qwen Code's ``run_shell_command`` tool call."""
    return ToolCall("run_shell_command", {"command": command, "description": "Run"}, text=text)


def qwen_write(path: str, content: str, text: str = "") -> ToolCall:
    """Qwen Code's ``write_file`` tool call (``path`` absolute, as the tool requires)."""
    return ToolCall("write_file", {"file_path": path, "content": content}, text=text)


def _results_since_prompt(call: ModelCall) -> int:
    count = 0
    for message in reversed(call.conversation):
        if message.role == "user":
            break
        count += message.role == "tool"
    return count


def scripted_session(project: Path, follow_up: Reply | None = None) -> Responder:
    """A responder for qwen's main conversation; its side requests get the default answers.

    The prompt that asks to "run the tests" gets: text + a succeeding shell call, a write of
    ``NOTES.md``, a shell call that exits 2, then a final text. Any other prompt the user types
    (``--continue``) gets ``follow_up`` (a short text by default). Qwen's own requests (the
    managed-memory extraction after a session) get the server's default answer.
    """

    def respond(call: ModelCall) -> Reply:
        prompt = call.prompt
        if "run_shell_command" not in call.tools or prompt.startswith(_SIDE_REQUESTS):
            return default_responder(call)
        if "run the tests" not in prompt:
            if call.last_tool_result is not None:
                return Text("Understood.")
            return follow_up or Text("Understood.")
        step = _results_since_prompt(call)
        if step == 0:
            return qwen_shell(OK_COMMAND, text="Running the check.")
        if step == 1:
            return qwen_write(str(project / NOTES), NOTES_TEXT)
        if step == 2:
            return qwen_shell(FAILING_COMMAND)
        return Text(FINAL)

    return respond


def calc_project(path: Path) -> Path:
    """A throwaway git project: ``calc.py`` (``add``) and its unittest, committed on ``master``."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "calc.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    (path / "test_calc.py").write_text(_TEST, encoding="utf-8")
    git = ["git", "-c", "user.email=dev@example.com", "-c", "user.name=Dev"]
    for args in (["init", "-q", "-b", "master"], ["add", "."], ["commit", "-qm", "calc"]):
        subprocess.run([*git, *args], cwd=path, check=True, capture_output=True)
    return path


def record_conversation(
    home: Path, project: Path, prompts: Sequence[str], *, timeout: float = 180
) -> list[AgentRun]:
    """Run ``prompts`` as one qwen session in ``project``: the first starts it, each later one
    continues it (``--continue``), each against a fresh :func:`scripted_session` server.

    Raises RuntimeError naming the prompt when qwen exits non-zero.
    """
    runs = []
    for i, prompt in enumerate(prompts):
        with ModelServer(responder=scripted_session(project)) as srv:
            extra = ["--continue"] if i else []
            run = run_qwen(
                prompt, home=home, url=srv.url, cwd=project, extra=extra, timeout=timeout
            )
        if run.code != 0:
            raise RuntimeError(f"qwen exited {run.code} on {prompt!r}: {run.err[-500:]}")
        runs.append(run)
    return runs


FIXTURE_HOME = "/home/dev"
FIXTURE_PROJECT = "/home/dev/work/calc"


def as_fixture(text: str, home: Path, project: Path) -> str:
    """A recorded session with the sandbox paths replaced by stable ones (``/home/dev``...)."""
    for real, stable in ((project, FIXTURE_PROJECT), (home, FIXTURE_HOME)):
        text = text.replace(str(real.resolve()), stable).replace(str(real), stable)
    return text


def link_extension(path: Path, env: Mapping[str, str], cwd: Path) -> AgentRun:
    """``qwen extensions link PATH``, answering its one confirmation prompt with yes.

    Linking (not installing) keeps the extension's relative links working: ``install`` copies
    the directory, and the plugins' ``bin/skillopt-sleep`` is a link into the checkout.
    """
    binary = which_qwen()
    if binary is None:
        raise FileNotFoundError("qwen is not installed (npm i -g @qwen-code/qwen-code@0.15.10)")
    proc = subprocess.run(
        [binary, "extensions", "link", str(path)],
        env=dict(env),
        cwd=cwd,
        input="y\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return AgentRun(proc.returncode, proc.stdout, proc.stderr)
