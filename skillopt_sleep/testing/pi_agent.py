"""Run the real ``pi`` CLI (``@mariozechner/pi-coding-agent``) against a loopback model server.

Pi takes its providers from ``<agent dir>/models.json``: :func:`pi_home` writes one provider,
``loopback``, speaking OpenAI chat completions to the server, and returns an environment whose
HOME and XDG dirs all lie under ``home``, so the real ``~/.pi`` is never touched. Sessions land
under ``home/.pi/agent/sessions/--<cwd>--/``. Always run the CLI with ``stdin`` closed.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..agent_replay.environment import xdg_home
from ..harvest.pi import session_dir_name
from .agents import AgentRun, run_agent
from .replies import Text, ToolCall

PROVIDER, MODEL = "loopback", "loopback-model"
# Variables that would point pi at a real account, a real config dir or a real provider.
_LEAKY_PREFIXES = ("PI_", "XDG_", "OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_", "AZURE_")


def which_pi() -> str | None:
    """Path of the ``pi`` binary on PATH, or ``None``."""
    return shutil.which("pi")


def models_json(url: str) -> str:
    """The ``models.json`` text naming the server (its base URL, with or without ``/v1``)."""
    base_url = url.rstrip("/").removesuffix("/v1") + "/v1"
    model = {
        "id": MODEL,
        "name": "Loopback",
        "reasoning": False,
        "input": ["text"],
        "contextWindow": 128000,
        "maxTokens": 8000,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
    }
    provider = {
        "baseUrl": base_url,
        "api": "openai-completions",
        "apiKey": "dummy",
        "models": [model],
    }
    return json.dumps({"providers": {PROVIDER: provider}}, indent=2) + "\n"


def pi_home(home: Path, url: str, *, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Write ``home/.pi/agent/models.json`` for ``url`` and return the env for ``pi``."""
    agent_dir = home / ".pi" / "agent"
    agent_dir.mkdir(parents=True, exist_ok=True)
    (agent_dir / "models.json").write_text(models_json(url), encoding="utf-8")
    source = os.environ if base is None else base
    env = {k: v for k, v in source.items() if not k.startswith(_LEAKY_PREFIXES)}
    env.update(
        {
            "HOME": str(home),
            "PI_OFFLINE": "1",
            "PI_TELEMETRY": "0",
            **xdg_home(home),
        }
    )
    return env


def run_pi(
    prompt: str,
    *,
    home: Path,
    url: str,
    cwd: Path,
    extra: Sequence[str] = (),
    timeout: float = 120,
) -> AgentRun:
    """``pi -p --offline --provider loopback --model loopback-model [extra] PROMPT``."""
    binary = which_pi()
    if binary is None:
        raise FileNotFoundError("pi is not installed (npm i -g @mariozechner/pi-coding-agent)")
    argv = [binary, "-p", "--offline", "--provider", PROVIDER, "--model", MODEL, *extra, prompt]
    return run_agent(argv, pi_home(home, url), cwd, timeout)


def pi_sessions(home: Path) -> list[Path]:
    """Every pi session file under ``home/.pi/agent/sessions``, oldest name first."""
    return sorted((home / ".pi" / "agent" / "sessions").glob("*/*.jsonl"))


# The scripted conversation: a request answered with a command that passes, a file write, a
# command that fails with exit 2 and a final text; then a correction on the same session.
REQUEST = "run the tests please"
CORRECTION = "No, that's wrong: always use pytest -q"
PRAISE_REQUEST = "add a docstring to calc.py"
PRAISE = "thanks, perfect"
FORK_REQUEST = "add a changelog"
PASSING = "python3 -m unittest"
RETRY = "python3 -m pytest -q 2>&1 | tail -1 || true"  # pytest may be missing where it records
FAILING = "ls does-not-exist"


def first_session() -> list[ToolCall | Text]:
    """The replies to :data:`REQUEST`."""
    return [
        ToolCall("bash", {"command": PASSING}, text="Running the checks."),
        ToolCall("write", {"path": "NOTES.md", "content": "# Notes\n\nadd(2, 3) == 5\n"}),
        ToolCall("bash", {"command": FAILING}),
        Text("All tests pass (ran python3 -m unittest)."),
    ]


def correction_replies() -> list[ToolCall | Text]:
    """The replies to :data:`CORRECTION`: the retry the user lets stand."""
    return [ToolCall("bash", {"command": RETRY}), Text("Understood: pytest -q from now on.")]


def praise_session() -> list[ToolCall | Text]:
    """The replies to :data:`PRAISE_REQUEST` (an edit), then to :data:`PRAISE`."""
    edit = {"oldText": "def add(a, b):\n", "newText": 'def add(a, b):\n    """Sum."""\n'}
    return [
        ToolCall("edit", {"path": "calc.py", "edits": [edit]}),
        Text("Added a docstring to add()."),
        Text("Glad it helps."),
    ]


_TEST = """import unittest

from calc import add


class AddTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)
"""


def make_project(work: Path) -> None:
    """A throwaway git project: ``calc.py`` with ``add()``, its test, and an ``AGENTS.md``."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "calc.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    (work / "test_calc.py").write_text(_TEST, encoding="utf-8")
    (work / "AGENTS.md").write_text("# Project rules\n\nKeep answers short.\n", encoding="utf-8")
    git = shutil.which("git")
    if git is not None:
        run_agent([git, "init", "-q"], {**os.environ, "HOME": str(work.parent)}, work, 30)


def record_sessions(home: Path, work: Path, *, timeout: float = 120) -> list[Path]:
    """Record the scripted conversation with the real CLI; returns the session files.

    Session one: :data:`REQUEST`, then :data:`CORRECTION` with ``--continue``. Session two:
    :data:`PRAISE_REQUEST`, then :data:`PRAISE`. Session three: ``--fork`` of session one (a
    copy of its entries), then :data:`FORK_REQUEST`.
    Raises ``AssertionError`` with the CLI's stderr when a run fails.
    """
    from .server import ModelServer

    make_project(work)
    runs: list[tuple[str, list[ToolCall | Text], list[str]]] = [
        (REQUEST, first_session(), []),
        (CORRECTION, correction_replies(), ["--continue"]),
    ]
    praise = praise_session()
    runs += [(PRAISE_REQUEST, praise[:2], []), (PRAISE, praise[2:], ["--continue"])]
    runs += [(FORK_REQUEST, [Text("Added CHANGELOG.md.")], ["--fork"])]
    before: set[Path] = set()
    files: list[Path] = []
    for prompt, replies, extra in runs:
        if extra == ["--fork"]:  # session three: a fork of session one
            extra = ["--fork", str(files[0])]
        with ModelServer(list(replies)) as srv:
            done = run_pi(prompt, home=home, url=srv.url, cwd=work, extra=extra, timeout=timeout)
        if done.code != 0:
            raise AssertionError(f"pi exited {done.code}: {done.err.strip()[-2000:]}")
        new = [p for p in pi_sessions(home) if p not in before]
        files += new
        before.update(new)
    return files


FIXTURE_HOME = "/home/dev"
FIXTURE_PROJECT = "/home/dev/work/calc"


def as_fixture(text: str, home: Path, work: Path) -> str:
    """A recorded session with its temp paths replaced by stable ones (``/home/dev/...``)."""
    for real in {str(work.resolve()), str(work)}:
        text = text.replace(real, FIXTURE_PROJECT)
        text = text.replace(session_dir_name(real), session_dir_name(FIXTURE_PROJECT))
    for real in {str(home.resolve()), str(home)}:
        text = text.replace(real, FIXTURE_HOME)
    return text


def record_fixtures(dest: Path, scratch: Path) -> list[Path]:
    """Record the conversation in ``scratch`` and write it under ``dest`` (a HOME laid out like
    the user's: ``dest/.pi/agent/sessions/--home-dev-work-calc--/``)."""
    home, work = scratch / "agent-home", scratch / "work"
    sessions = dest / ".pi" / "agent" / "sessions" / session_dir_name(FIXTURE_PROJECT)
    sessions.mkdir(parents=True, exist_ok=True)
    out = []
    for path in record_sessions(home, work):
        target = sessions / path.name
        target.write_text(as_fixture(path.read_text("utf-8"), home, work), encoding="utf-8")
        out.append(target)
    return out
