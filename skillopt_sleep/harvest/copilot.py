"""GitHub Copilot CLI sessions: ``<copilot home>/session-state/<session uuid>/events.jsonl``.

The home is ``$COPILOT_HOME``, else ``~/.copilot``. Each line is one event
``{type, data, id, timestamp, parentId}`` (plus ``agentId`` on a sub-agent's events). Format
facts this parser relies on (observed with copilot 1.0.102, and its published event schema):
- ``session.start`` names the session (``data.sessionId``) and, in ``data.context``, the cwd,
  git branch and ``headCommit``; ``session.resume`` (``--continue`` / ``--resume``) appends to
  the same file and repeats the context. ``workspace.yaml`` beside the log says the same.
- ``user.message`` ``data.content`` is what the user typed; ``transformedContent`` is what the
  model got (a ``<current_datetime>`` prefix and other wrapping), never read. A message with a
  ``source`` (``skill-<name>`` for a hidden skill injection, ``agent-<id>`` for another agent's
  prompt) or ``isAutopilotContinuation`` was not typed by the user. Instruction files
  (AGENTS.md, CLAUDE.md, copilot-instructions.md) and skills only reach ``system.message``.
- ``assistant.message`` has the reply text (``content``) and ``toolRequests[]`` with
  ``toolCallId``, ``name`` and parsed ``arguments`` (``bash``: ``command``; ``create``:
  ``path`` + ``file_text``; ``edit``: ``path`` + ``new_str``; ``view``: ``path``).
- ``tool.execution_complete`` meets its request by ``toolCallId``: ``shellExecution.exitCode``
  is a command's exit status (``success`` stays true for a command that exited 2),
  ``fileEdits[{path, kind}]`` the files a tool really changed (``create``, ``edit``,
  ``delete``), ``error.message`` a tool that failed. Call ids restart in a resumed process,
  so they are forgotten at each prompt.
- Events with an ``agentId`` belong to a sub-agent, not to the user's conversation.
- There are about a hundred event types; the ones this parser does not read (usage, turn
  boundaries, hooks, the system prompt) are ignored by namespace, not counted as damage.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from . import actions
from .jsonl import MAX_LINE_BYTES, LineParser, as_dict, as_list, as_str, require_dict
from .scan import Problem, printable
from .session import ParseState, RawAction, Turn, parse_time

if TYPE_CHECKING:  # a type only: `log` imports every parser and needs no model
    from ..models import ActionKind

SOURCE = "copilot"
EVENTS = "events.jsonl"

# Event namespaces this parser knows; a type in them that is not read is ignored, not damage.
_KNOWN = frozenset(
    {
        "session",
        "assistant",
        "tool",
        "user",
        "system",
        "hook",
        "subagent",
        "skill",
        "model",
        "pending_messages",
        "tool_search",
        "abort",
        "permission",
        "elicitation",
        "command",
        "external_tool",
        "exit_plan_mode",
    }
)
_INJECTED_SOURCES = ("skill", "agent", "subagent", "system", "hook", "mcp", "plugin", "autopilot")
_SHELL_TRAILER = re.compile(r"\n?<shellId: [^>]*>\s*$")
_EDIT_KINDS: dict[str, ActionKind] = {"create": "write", "edit": "edit", "delete": "delete"}
_READ_TOOLS = ("view", "read")
_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$")


def default_root(env: Mapping[str, str]) -> Path:
    """Copilot's home: ``COPILOT_HOME``, else ``~/.copilot``."""
    home = Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())
    return Path(env.get("COPILOT_HOME") or home / ".copilot").expanduser()


def copilot_files(root: Path, problems: list[Problem]) -> Iterator[str]:
    """The event logs ``<root>/session-state/<uuid>/events.jsonl``, sorted by session directory.

    A missing root yields nothing; a directory that cannot be listed is added to ``problems``,
    never raised. A session directory without an event log (a lock directory) is passed over.
    """
    base = os.path.join(str(root), "session-state")
    for entry in _entries(base, problems):
        try:
            is_dir = entry.is_dir()
        except OSError as exc:
            problems.append((printable(entry.path), exc.strerror or type(exc).__name__))
            continue
        if not is_dir or entry.name.startswith("."):
            continue
        path = os.path.join(entry.path, EVENTS)
        try:
            if not os.path.isfile(path):
                continue
            path.encode("utf-8")
        except UnicodeEncodeError:
            problems.append((printable(path), "the file name is not UTF-8"))
            continue
        yield path


def _entries(path: str, problems: list[Problem]) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(path) as it:
            return sorted(it, key=lambda e: e.name)
    except FileNotFoundError:
        return []
    except OSError as exc:
        problems.append((printable(path), exc.strerror or type(exc).__name__))
        return []


def peek_copilot_project(path: Path) -> str:
    """The cwd in an event log's first line (``session.start``), or "" if it has none."""
    try:
        with open(path, "rb") as fh:
            data = json.loads(fh.readline(MAX_LINE_BYTES))
    except (OSError, ValueError, RecursionError):
        return ""
    if not isinstance(data, dict) or data.get("type") != "session.start":
        return ""
    return as_str(as_dict(as_dict(data.get("data")).get("context")).get("cwd"))


def session_end_payload(hook: Mapping[str, Any], root: Path) -> dict[str, str]:
    """Copilot's ``sessionEnd`` hook JSON as the logger's payload (the fields of a Claude Code
    SessionEnd hook, plus ``agent``).

    Copilot's payload names no transcript (``{"sessionId", "timestamp", "cwd", "reason"}``; a
    Claude-format ``SessionEnd`` hook gets ``session_id`` instead): the log is
    ``<root>/session-state/<sessionId>/events.jsonl``. A session id that is not a plain name
    (a path, ``..``) is refused, so a payload can never point the logger at another file.
    """
    session = hook.get("sessionId") or hook.get("session_id")
    if not isinstance(session, str) or not _SESSION_ID.match(session):
        raise InputError(
            "the Copilot hook JSON has no valid sessionId",
            hint="run `log --agent copilot` only as a Copilot sessionEnd hook",
        )
    cwd, reason = hook.get("cwd"), hook.get("reason")
    return {
        "agent": SOURCE,
        "session_id": session,
        "transcript_path": str(root / "session-state" / session / EVENTS),
        "cwd": cwd if isinstance(cwd, str) else "",
        "hook_event_name": "SessionEnd",
        "reason": reason if isinstance(reason, str) else "",
    }


def _typed(data: dict[str, Any]) -> bool:
    """A ``user.message`` the user typed (not a skill's, another agent's or autopilot's)."""
    source = as_str(data.get("source")).lower()
    if source and source != "user" and source.startswith(_INJECTED_SOURCES):
        return False
    return data.get("isAutopilotContinuation") is not True


class CopilotParser(LineParser):
    """Turns the events of one Copilot CLI session log into :class:`Turn` s."""

    source = SOURCE

    def __init__(self, state: ParseState | None = None) -> None:
        super().__init__(state)
        self._calls: dict[str, tuple[str, dict[str, Any], RawAction | None]] = {}

    def record(self, kind: str, obj: dict[str, Any], offset: int) -> None:
        if obj.get("agentId"):
            return  # a sub-agent's work, not the user's conversation
        data = require_dict(obj.get("data"), "data")
        if kind in ("session.start", "session.resume"):
            self._session(data)
        elif kind == "user.message":
            self._user(data, obj, offset)
        elif kind == "assistant.message":
            self._assistant(data, obj)
        elif kind == "tool.execution_complete":
            self._complete(data)
        elif kind == "skill.invoked" and self.turn is not None:
            self.turn.note(self.turn.skills, as_str(data.get("name")))
        elif kind == "abort" and self.turn is not None:
            self.turn.note(self.turn.tags, "interrupted")
        elif kind == "session.error" and self.turn is not None:
            self.turn.add_error(as_str(data.get("message")) or as_str(data.get("errorType")))
        elif kind.split(".", 1)[0] not in _KNOWN:
            self.skip("unknown-type")

    def _session(self, data: dict[str, Any]) -> None:
        state = self.state
        state.session_id = state.session_id or as_str(data.get("sessionId"))
        context = as_dict(data.get("context"))
        state.project = state.project or as_str(context.get("cwd"))
        state.branch = as_str(context.get("branch")) or state.branch
        state.commit = state.commit or as_str(context.get("headCommit"))
        state.model = as_str(data.get("selectedModel")) or state.model

    def _user(self, data: dict[str, Any], obj: dict[str, Any], offset: int) -> None:
        text = data.get("content")
        if not isinstance(text, str):
            raise ValueError("user.message content is not text")
        if not _typed(data):
            return
        text = text.strip()
        if text:
            self._calls.clear()
            self.start_turn(offset, text, obj.get("timestamp"))

    def _assistant(self, data: dict[str, Any], obj: dict[str, Any]) -> None:
        turn = self.turn
        if turn is None:
            return  # work before the first prompt of this read belongs to an earlier turn
        model = as_str(data.get("model"))
        if model:
            turn.model = self.state.model = model
        turn.add_step("text", as_str(data.get("content")))
        for request in as_list(data.get("toolRequests")):
            if isinstance(request, dict):
                self._request(turn, request)
        turn.ended_at = parse_time(obj.get("timestamp")) or turn.ended_at

    def _request(self, turn: Turn, request: dict[str, Any]) -> None:
        name = as_str(request.get("name")) or "tool"
        args = as_dict(request.get("arguments"))
        turn.note(turn.tools, name)
        command = as_str(args.get("command")) if name == "bash" else ""
        pending = None
        if command.strip():
            turn.add_step("tool", f"$ {command}")
            pending = actions.command(turn, command, name)
        else:
            what = as_str(args.get("path")) or as_str(args.get("skill"))
            turn.add_step("tool", f"{name}: {what}" if what else name)
            if name in _READ_TOOLS:
                actions.file(turn, "read", as_str(args.get("path")), name)
            if name == "skill":
                turn.note(turn.skills, as_str(args.get("skill")))
        self._calls[as_str(request.get("toolCallId"))] = (name, args, pending)

    def _complete(self, data: dict[str, Any]) -> None:
        turn = self.turn
        if turn is None:
            return
        name, args, pending = self._calls.pop(as_str(data.get("toolCallId")), ("tool", {}, None))
        output = _SHELL_TRAILER.sub("", as_str(as_dict(data.get("result")).get("content")))
        code = as_dict(data.get("shellExecution")).get("exitCode")
        code = code if isinstance(code, int) and not isinstance(code, bool) else None
        error = as_str(as_dict(data.get("error")).get("message"))
        if pending is not None:
            pending.exit_code = code if code is not None else pending.exit_code
            pending.failed = data.get("success") is False or code not in (None, 0)
        for edit in as_list(data.get("fileEdits")):
            self._edit(turn, name, args, as_dict(edit))
        if code not in (None, 0):
            turn.add_error(
                f"`{pending.command if pending else name}` exited {code}: {output[-300:]}"
            )
            turn.add_step("error", f"exit {code}: {output}", tail_cut=True)
        elif data.get("success") is False:
            turn.add_error(f"{name}: {error or output}")
            turn.add_step("error", f"{name} failed: {error or output}", tail_cut=True)
        elif output.strip() and name not in ("create", "edit"):
            turn.add_step("output", output, tail_cut=True)

    def _edit(self, turn: Turn, name: str, args: dict[str, Any], edit: dict[str, Any]) -> None:
        path = as_str(edit.get("path"))
        if not path:
            return
        kind = _EDIT_KINDS.get(as_str(edit.get("kind")), "edit")
        same = as_str(args.get("path")) == path
        content = (as_str(args.get("file_text")) or as_str(args.get("new_str"))) if same else ""
        turn.note(turn.files, path)
        actions.file(turn, kind, path, name, content)
        if content:
            turn.add_step("file", f"{path}:\n{content}")
