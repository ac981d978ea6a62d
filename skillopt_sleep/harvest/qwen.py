"""Qwen Code sessions: ``<runtime dir>/projects/<sanitised cwd>/chats/<session id>.jsonl``.

The runtime dir is ``$QWEN_RUNTIME_DIR``, else ``$QWEN_HOME``, else ``~/.qwen``; the project's
directory name is its cwd with every non-alphanumeric made ``-`` (lower-cased on Windows).
Format facts this parser relies on (observed with qwen 0.15.10):
- Every line is one record ``{uuid, parentUuid, sessionId, timestamp, type, cwd, version,
  gitBranch, ...}``; ``type`` is ``user``, ``assistant``, ``tool_result`` or ``system``.
- ``message`` holds Gemini content: ``{role, parts}``; a part is ``{text}`` (``thought: true``
  for reasoning), ``{functionCall: {id, name, args}}`` or ``{functionResponse: {id, name,
  response}}``. Calls and their results meet by id.
- A ``user`` record is typed by the user, except with ``subtype`` ``cron`` / ``notification``
  (a scheduled prompt, a background agent's notice). Its first text part is what was typed;
  later text parts are what qwen added (``@file`` contents, a hook's additional context; from
  qwen's source, not seen in a recording).
  In ``-p`` a file slash command (``.qwen/commands/*.md``) is recorded as its expanded body.
- ``run_shell_command`` results give the exit status only as text (``Exit Code: 2`` or
  ``(none)`` with a ``Signal:``); ``toolCallResult.status`` stays ``success`` for a command
  that failed. A tool that failed has ``status: error`` and ``response.error``.
- ``write_file`` / ``edit`` / ``read_file`` name the file in ``args.file_path``.
- ``system`` records (telemetry, attribution snapshots, titles, compression) are not the
  conversation. ``qwen --continue`` / ``--resume`` append to the same file.
- Subagents write ``<project dir>/subagents/<session>/agent-<id>.jsonl`` (not listed), their
  records marked ``isSidechain: true`` (never read as the user's).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import actions
from .claude_code import sanitise_cwd, strip_blocks, tool_summary
from .expanded import mark
from .jsonl import BadRecord, LineParser, as_dict, as_str, prompt_blocks, require_dict
from .scan import Problem, printable
from .session import ParseState, RawAction, Turn, parse_time

if TYPE_CHECKING:  # a type only: `log` imports every parser and needs no model
    from ..models import ActionKind

SOURCE = "qwen"
SHELL = "run_shell_command"

_NOT_TYPED = frozenset({"cron", "notification"})
_INJECTED = ("This is the Qwen Code. We are setting up the context for our chat.",)
_FILE_TOOLS: dict[str, ActionKind] = {"write_file": "write", "edit": "edit", "read_file": "read"}
_EXIT = re.compile(r"^Exit Code: (-?\d+|\(none\))\s*$", re.MULTILINE)
_SIGNAL = re.compile(r"^Signal: (\d+)\s*$", re.MULTILINE)
_OUTPUT = re.compile(r"^Output: (.*?)\nError: ", re.MULTILINE | re.DOTALL)
_STOPPED = ("Command timed out", "Command was cancelled")


def _texts(parts: list[Any]) -> list[str]:
    """The text parts of a message, reasoning (``thought``) left out."""
    return [
        as_str(p.get("text"))
        for p in parts
        if isinstance(p, dict) and as_str(p.get("text")) and p.get("thought") is not True
    ]


def _path(args: dict[str, Any]) -> str:
    return as_str(args.get("file_path")) or as_str(args.get("absolute_path"))


class QwenParser(LineParser):
    """Turns the records of one Qwen Code session file into :class:`Turn` s."""

    source = SOURCE
    ignored_types = frozenset({"system"})

    def __init__(self, state: ParseState | None = None) -> None:
        super().__init__(state)
        self._calls: dict[str, tuple[str, RawAction | None]] = {}  # call id -> (tool, action)

    def record(self, kind: str, obj: dict[str, Any], offset: int) -> None:
        if obj.get("isSidechain") is True:
            return  # a subagent's conversation, not the user's
        self._learn_session(obj)
        if kind == "user":
            self._user(obj, offset)
        elif kind == "assistant":
            self._assistant(obj)
        elif kind == "tool_result":
            self._tool_result(obj)
        elif kind not in self.ignored_types:
            self.skip("unknown-type")

    def _learn_session(self, obj: dict[str, Any]) -> None:
        self.state.session_id = self.state.session_id or as_str(obj.get("sessionId"))
        self.state.branch = self.state.branch or as_str(obj.get("gitBranch"))
        if not self.state.project:
            cwd = as_str(obj.get("cwd"))
            if cwd.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", cwd):
                self.state.project = cwd

    def _parts(self, obj: dict[str, Any]) -> list[Any]:
        parts = require_dict(obj.get("message"), "message").get("parts")
        if not isinstance(parts, list):
            raise BadRecord("message.parts is not a list")
        return parts

    def _user(self, obj: dict[str, Any], offset: int) -> None:
        parts = prompt_blocks(self._parts(obj), "message.parts")
        if as_str(obj.get("subtype")) in _NOT_TYPED:
            return
        texts = [strip_blocks(t, "system-reminder").strip() for t in _texts(parts)]
        texts = [t for t in texts if t]
        if not texts or texts[0].startswith(_INJECTED):
            return
        turn = self.start_turn(offset, texts[0], obj.get("timestamp"))
        if len(texts) > 1:
            turn.context = mark("\n".join(texts[1:]), "text qwen added to the prompt")

    def _assistant(self, obj: dict[str, Any]) -> None:
        parts = self._parts(obj)
        turn = self.turn
        if turn is None:
            return  # work before the first prompt of this read belongs to an earlier turn
        model = as_str(obj.get("model"))
        if model:
            turn.model = self.state.model = model
        for part in parts:
            if not isinstance(part, dict):
                continue
            if part.get("thought") is not True and as_str(part.get("text")):
                turn.add_step("text", as_str(part.get("text")))
            call = part.get("functionCall")
            if isinstance(call, dict):
                self._call(turn, call)
        turn.ended_at = parse_time(obj.get("timestamp")) or turn.ended_at

    def _call(self, turn: Turn, call: dict[str, Any]) -> None:
        name = as_str(call.get("name")) or "tool"
        args = as_dict(call.get("args"))
        turn.note(turn.tools, name)
        turn.add_step("tool", tool_summary(name, args))
        action: RawAction | None = None
        if name == SHELL and as_str(args.get("command")).strip():
            action = actions.command(turn, as_str(args.get("command")), name)
        elif name in _FILE_TOOLS and _path(args):
            kind = _FILE_TOOLS[name]
            body = as_str(args.get("content")) or as_str(args.get("new_string"))
            before = len(turn.actions)
            actions.file(turn, kind, _path(args), name, body)
            action = turn.actions[-1] if len(turn.actions) > before else None
        elif name == "skill":
            turn.note(turn.skills, as_str(args.get("skill")) or as_str(args.get("name")))
        self._calls[as_str(call.get("id"))] = (name, action)

    def _tool_result(self, obj: dict[str, Any]) -> None:
        parts = self._parts(obj)
        turn = self.turn
        if turn is None:
            return
        status = as_str(as_dict(obj.get("toolCallResult")).get("status"))
        for part in parts:
            response = as_dict(part).get("functionResponse")
            if isinstance(response, dict):
                self._result(turn, response, status)

    def _result(self, turn: Turn, response: dict[str, Any], status: str) -> None:
        name, action = self._calls.pop(as_str(response.get("id")), ("", None))
        name = name or as_str(response.get("name")) or "tool"
        body = as_dict(response.get("response"))
        error = as_str(body.get("error"))
        output = as_str(body.get("output")) or error
        if error or status in ("error", "cancelled"):
            if action is not None:
                action.failed = True
            turn.add_error(f"{name}: {output}")
            turn.add_step("error", f"{name} failed: {output}", tail_cut=True)
        elif name == SHELL and action is not None:
            _shell_result(turn, action, output)
        elif action is not None and action.kind != "read":
            turn.note(turn.files, action.path)  # written only once the tool says it was
            turn.add_step("file", f"{action.path}:\n{action.content}" if action.content else "")
        elif output.strip():
            turn.add_step("output", output, tail_cut=True)


def _shell_result(turn: Turn, action: RawAction, text: str) -> None:
    """A ``run_shell_command`` result: its exit status, from the text (the only place it is)."""
    exit_match = _EXIT.search(text)
    out = _OUTPUT.search(text)
    output = out.group(1) if out else text
    if exit_match and exit_match.group(1) != "(none)":
        action.exit_code = int(exit_match.group(1))
    signal = _SIGNAL.search(text)
    killed = signal is not None and signal.group(1) != "0"
    action.failed = action.exit_code not in (None, 0) or killed or text.startswith(_STOPPED)
    if action.failed:
        how = f"exited {action.exit_code}" if action.exit_code is not None else "did not finish"
        turn.add_error(f"`{action.command}` {how}: {output.strip()[-300:]}")
        turn.add_step("error", f"{how}: {output}", tail_cut=True)
    elif output.strip() and output.strip() != "(empty)":
        turn.add_step("output", output, tail_cut=True)


def project_dir_names(project: str) -> frozenset[str]:
    """The directory names qwen may give ``project`` (Windows lower-cases the cwd first)."""
    return frozenset({sanitise_cwd(project), sanitise_cwd(project.lower())})


def qwen_files(
    root: Path, problems: list[Problem], projects: frozenset[str] | None = None
) -> Iterator[str]:
    """Session files ``<root>/projects/*/chats/*.jsonl`` (only the scoped projects' directories
    when ``projects`` is given). A missing root yields nothing; what cannot be listed is added
    to ``problems``, never raised."""
    base = root / "projects"
    if projects is None:
        dirs = [e.path for e in _entries(str(base), problems) if _is_dir(e, problems)]
    else:
        dirs = sorted({str(base / name) for p in projects for name in project_dir_names(p)})
    for d in dirs:
        for entry in _entries(os.path.join(d, "chats"), problems):
            if entry.name.endswith(".jsonl") and not _is_dir(entry, problems):
                yield entry.path


def _entries(path: str, problems: list[Problem]) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(path) as it:
            return sorted(it, key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        problems.append((printable(path), exc.strerror or type(exc).__name__))
        return []


def _is_dir(entry: os.DirEntry[str], problems: list[Problem]) -> bool:
    try:
        return entry.is_dir()
    except OSError as exc:
        problems.append((printable(entry.path), exc.strerror or type(exc).__name__))
        return False
