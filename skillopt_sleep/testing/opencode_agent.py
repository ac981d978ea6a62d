"""Run the real ``opencode`` CLI against a loopback model server, in a sandbox home.

OpenCode reads its provider from ``~/.config/opencode/opencode.json``: a custom
``@ai-sdk/openai-compatible`` provider points it at the server's chat completions. Every path it
writes (config, the SQLite session store, logs, its ``.so`` file finder in ``$TMPDIR``) is kept
under ``home`` through ``HOME``, the ``XDG_*`` directories and ``TMPDIR``. On its first start it
npm-installs ``@opencode-ai/plugin`` into the config directory; the npm registry is pointed at a
closed loopback port with ``npm_config_offline``, so that install fails at once in the background
(OpenCode logs it and goes on) and nothing reaches the network.

:func:`record_conversation` drives the scripted conversation the harvest fixtures hold, and
:func:`dump_rows` writes what it left in ``opencode.db`` as JSON lines.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..agent_replay.environment import xdg_home
from .agents import AgentRun, run_agent
from .replies import ModelCall, Reply, Responder, Text, ToolCall

MODEL = "stub/stub-model"
# Variables that would point the CLI at a real account, config or data directory.
_LEAKY = (
    "OPENCODE_CONFIG",
    "OPENCODE_CONFIG_DIR",
    "OPENCODE_CONFIG_CONTENT",
    "OPENCODE_DB",
    "OPENCODE_API_KEY",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
)
_QUIET = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "npm_config_registry": "http://127.0.0.1:9/",  # a closed port: the plugin install fails fast
    "npm_config_offline": "true",
    "npm_config_update_notifier": "false",
}
# The tables a harvest reads, in the order their rows are dumped (parents first).
TABLES = ("project", "session", "message", "part")


def which_opencode() -> str | None:
    """Path of the ``opencode`` binary on PATH, or ``None``."""
    return shutil.which("opencode")


def opencode_config(url: str) -> dict[str, Any]:
    """The ``opencode.json`` pointing OpenCode at ``url`` (with or without ``/v1``)."""
    base_url = url.rstrip("/").removesuffix("/v1") + "/v1"
    model = {"name": "Stub model", "tool_call": True, "limit": {"context": 128000, "output": 8000}}
    return {
        "autoupdate": False,
        "share": "disabled",
        "model": MODEL,
        "provider": {
            "stub": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Loopback stub",
                "options": {"baseURL": base_url, "apiKey": "dummy"},
                "models": {"stub-model": model},
            }
        },
    }


def opencode_env(home: Path, url: str, *, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Write ``home/.config/opencode/opencode.json`` for ``url``; return the env for ``opencode``.

    Sessions land in ``home/.local/share/opencode/opencode.db`` (:func:`opencode_db`).
    """
    config = home / ".config" / "opencode"
    config.mkdir(parents=True, exist_ok=True)
    (config / "opencode.json").write_text(json.dumps(opencode_config(url)), encoding="utf-8")
    tmp = home / ".tmp"
    tmp.mkdir(exist_ok=True)
    env = {k: v for k, v in (os.environ if base is None else base).items() if k not in _LEAKY}
    env.update(_QUIET)
    env.update(
        {
            "HOME": str(home),
            "TMPDIR": str(tmp),
            **xdg_home(home),
        }
    )
    return env


def opencode_db(home: Path) -> Path:
    """Where OpenCode 1.2+ keeps its sessions under ``home``."""
    return home / ".local" / "share" / "opencode" / "opencode.db"


def run_opencode(
    prompt: str,
    *,
    home: Path,
    url: str,
    cwd: Path,
    extra: Sequence[str] = (),
    timeout: float = 180,
) -> AgentRun:
    """``opencode run [EXTRA] PROMPT`` against ``url`` (``extra``: e.g. ``--continue``).

    One prompt argument, as a user types it: OpenCode then stores it wrapped in double quotes.
    OpenCode takes its directory from ``$PWD``, not from the process's cwd, so both are set.
    """
    binary = which_opencode()
    if binary is None:
        raise FileNotFoundError("opencode is not installed (npm i -g opencode-ai)")
    env = opencode_env(home, url)
    env["PWD"] = str(cwd)
    return run_agent([binary, "run", *extra, prompt], env, cwd, timeout)


def scripted(replies: Iterable[Reply], title: str = "Scripted session") -> Responder:
    """A responder for OpenCode: its tools-less title request gets ``title``; every other call
    takes the next reply (then a plain "ok"). The title request races the first model call, so
    a plain reply queue would hand it a scripted tool call."""
    queue = deque(replies)

    def respond(call: ModelCall) -> Reply:
        if not call.tools:
            return Text(title)
        return queue.popleft() if queue else Text("ok")

    return respond


def bash(command: str, text: str = "") -> ToolCall:
    """OpenCode's ``bash`` tool call."""
    return ToolCall("bash", {"command": command, "description": "Run a command"}, text=text)


def write(path: Path, content: str, text: str = "") -> ToolCall:
    """OpenCode's ``write`` tool call (an absolute ``filePath``)."""
    return ToolCall("write", {"filePath": str(path), "content": content}, text=text)


def edit(path: Path, old: str, new: str, text: str = "") -> ToolCall:
    """OpenCode's ``edit`` tool call (replace ``old`` by ``new`` in ``path``)."""
    return ToolCall("edit", {"filePath": str(path), "oldString": old, "newString": new}, text=text)


def make_project(path: Path) -> Path:
    """A throwaway git project with a ``calc.py`` holding ``add()``."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "calc.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    git = ["git", "-c", "user.email=dev@example.com", "-c", "user.name=dev"]
    for args in (["init", "-q"], ["add", "calc.py"], ["commit", "-qm", "calc"]):
        subprocess.run([*git, *args], cwd=path, check=True, capture_output=True)
    return path


FIRST, FIX = "run the tests please", "No, that's wrong: always use pytest -q"
SECOND, PRAISE = "add a subtract function to calc.py", "thanks, perfect"
Server = Callable[[Responder], Any]  # ModelServer(responder=...) as a context manager


def record_conversation(home: Path, project: Path, server: Server) -> list[AgentRun]:
    """The fixtures' conversation, four ``opencode run`` calls in ``project``:

    1. "run the tests please": ``python3 -m unittest`` (succeeds), a ``NOTES.md`` write, a
       failing shell call (exit 2), a final text; 2. ``--continue`` "No, that's wrong: always
       use pytest -q";
    3. a new session "add a subtract function to calc.py" (an edit); 4. ``--continue`` praise.
    """
    steps: list[tuple[str, Sequence[str], list[Reply]]] = [
        (
            FIRST,
            (),
            [
                bash("python3 -m unittest 2>&1 | tail -1", "Running the tests."),
                write(project / "NOTES.md", "# Notes\nadd() works.\n"),
                bash("ls does-not-exist"),
                Text("The tests ran (python3 -m unittest)."),
            ],
        ),
        (FIX, ("--continue",), [bash("python3 -m pytest -q || true"), Text("Understood.")]),
        (
            SECOND,
            (),
            [
                edit(project / "calc.py", "    return a + b\n", _SUBTRACT),
                Text("Added subtract()."),
            ],
        ),
        (PRAISE, ("--continue",), [Text("Glad it helps.")]),
    ]
    runs = []
    for prompt, extra, replies in steps:
        with server(scripted(replies)) as srv:
            runs.append(run_opencode(prompt, home=home, url=srv.url, cwd=project, extra=extra))
    return runs


_SUBTRACT = "    return a + b\n\n\ndef subtract(a, b):\n    return a - b\n"


def write_fixture(root: Path, out: Path, server: Server) -> list[AgentRun]:
    """Record :func:`record_conversation` under ``root`` and write ``out/rows.jsonl`` and
    ``out/schema.sql`` from it, the temp paths replaced by ``/home/dev/...``. To re-record the
    harvest fixture: ``write_fixture(tmp, Path("tests/fixtures/transcripts/opencode"),
    lambda r: ModelServer(responder=r))`` with ``opencode`` on PATH."""
    home, project = root / "home", make_project(root / "calc")
    runs = record_conversation(home, project, server)
    db = opencode_db(home)
    places = {str(project): "/home/dev/calc", str(home): "/home/dev", str(root): "/home/dev/tmp"}
    out.mkdir(parents=True, exist_ok=True)
    (out / "rows.jsonl").write_text("\n".join(dump_rows(db, places)) + "\n", encoding="utf-8")
    (out / "schema.sql").write_text(schema_sql(db), encoding="utf-8")
    return runs


def dump_rows(db: Path, replace: Mapping[str, str] = {}) -> list[str]:
    """The rows of :data:`TABLES` as JSON lines ``{"table": ..., "row": {...}}``, in order.

    ``replace`` maps path prefixes (the temp home and project) to stable placeholders; longer
    prefixes are replaced first. The database is opened read-only.
    """
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    lines = []
    try:
        for table in TABLES:
            order = "time_created, id" if table != "project" else "id"
            for row in con.execute(f"SELECT * FROM {table} ORDER BY {order}"):
                lines.append(json.dumps({"table": table, "row": dict(row)}, sort_keys=True))
    finally:
        con.close()
    text = "\n".join(lines)
    for old in sorted(replace, key=len, reverse=True):
        text = text.replace(old, replace[old])
    return text.splitlines()


def schema_sql(db: Path) -> str:
    """The ``CREATE TABLE`` statements of :data:`TABLES` as OpenCode made them."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name IN (?, ?, ?, ?)",
            TABLES,
        ).fetchall()
    finally:
        con.close()
    by_name = dict(rows)
    return "".join(f"{by_name[t]};\n" for t in TABLES if t in by_name)


def load_rows(db: Path, schema: str, lines: Iterable[str]) -> None:
    """Make ``db`` (WAL, as OpenCode keeps it) from ``schema`` and :func:`dump_rows` lines."""
    con = sqlite3.connect(db)
    try:
        con.execute("PRAGMA journal_mode = WAL")
        con.executescript(schema)
        for line in lines:
            item = json.loads(line)
            row = item["row"]
            names = ", ".join(row)
            marks = ", ".join("?" for _ in row)
            con.execute(
                f"INSERT INTO {item['table']} ({names}) VALUES ({marks})",
                list(row.values()),
            )
        con.commit()
    finally:
        con.close()
