"""OpenCode sessions: the SQLite store ``<data>/opencode/opencode.db`` of OpenCode 1.2+.

Format facts this module relies on (OpenCode 1.18.33, recorded in the fixtures):
- The store is ``$OPENCODE_DB`` (absolute, or relative to the data directory), else
  ``$XDG_DATA_HOME/opencode/opencode.db`` (``~/.local/share/opencode``); a build of another
  channel writes ``opencode-<channel>.db`` beside it. It is in WAL mode and written while the
  agent runs. Older versions (before 1.2) wrote JSON files under ``storage/``: not read here.
- ``session(id "ses_…", directory, parent_id, time_updated ms)``: ``directory`` is the project;
  a session with a ``parent_id`` is a subagent's (the ``task`` tool), not the user's talk.
- ``message(id, session_id, time_created ms, data)``: ``data`` is JSON with ``role``
  (``user`` | ``assistant``), ``modelID``, ``time.completed`` and ``error`` on the answer.
- ``part(id, message_id, session_id, data)``: ``data.type`` is ``text`` (``synthetic`` or
  ``ignored`` text is injected, never typed), ``tool`` (``tool``, ``state.status``,
  ``state.input``, ``state.output``, ``state.metadata.exit`` for ``bash``, ``state.error``),
  ``patch``, ``reasoning``, ``step-start`` / ``step-finish``, ``file``, ``agent``.
- ``opencode run "one quoted prompt"`` stores the prompt wrapped in one pair of double quotes.
- The instruction files (``AGENTS.md``) and the environment go in the system prompt, never into
  a user message; a resumed session (``--continue``) appends messages to the same session.

The reader (:mod:`.opencode_store`) feeds each row as one JSON line into
:class:`OpenCodeParser`, so a damaged row is skipped and counted like a damaged transcript line
(a message whose ``data`` has fields of the wrong type too; the parts of a skipped message are
neither a prompt nor work); a line's offset is the ordinal of the message it belongs to.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import actions
from .expanded import mark
from .jsonl import BadRecord, LineParser, as_dict, as_str, require_dict, text_field
from .scan import Problem, printable
from .session import ParseState

if TYPE_CHECKING:  # a type only: `log` imports every parser and needs no model
    from ..models import ActionKind

SOURCE = "opencode"
_INJECTED = ("<system-reminder>", "<environment_details>", "Instructions from:")
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$", re.MULTILINE)
_PATCH_KINDS: dict[str, ActionKind] = {"Add": "write", "Update": "edit", "Delete": "delete"}


def default_root(env: Mapping[str, str]) -> Path:
    """The store OpenCode uses: ``$OPENCODE_DB``, else ``$XDG_DATA_HOME/opencode``, else
    ``~/.local/share/opencode`` (a directory, or the database file ``$OPENCODE_DB`` names)."""
    home = Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())
    data = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share") / "opencode"
    named = env.get("OPENCODE_DB")
    if named and named != ":memory:":
        return Path(named) if os.path.isabs(named) else data / named
    return data


def opencode_files(root: Path, problems: list[Problem]) -> Iterator[str]:
    """The session stores under ``root``: ``opencode.db`` and ``opencode-<channel>.db`` (or
    ``root`` itself when it is a database file). A missing root yields nothing; a directory that
    cannot be listed is added to ``problems``, never raised."""
    if root.is_file():
        yield str(root)
        return
    try:
        names = sorted(os.listdir(root))
    except FileNotFoundError:
        return
    except OSError as exc:
        problems.append((printable(root), exc.strerror or type(exc).__name__))
        return
    for name in names:
        if name == "opencode.db" or (name.startswith("opencode-") and name.endswith(".db")):
            yield str(root / name)


class OpenCodeParser(LineParser):
    """Turns the rows of one OpenCode session (as :func:`read_session` feeds them) into turns."""

    source = SOURCE

    def __init__(self, state: ParseState | None = None) -> None:
        super().__init__(state)
        self._message_id: object = None  # the message read last: later parts are its own
        self._user = ""  # the id of the user message whose text starts (or extends) a turn
        self._user_at: object = None
        self._prompted = False
        self._expanded: list[str] = []  # synthetic text of the user message (an attached file)

    def record(self, kind: str, obj: dict[str, Any], offset: int) -> None:
        if kind == "session":
            self.state.session_id = self.state.session_id or as_str(obj.get("id"))
            self.state.project = self.state.project or as_str(obj.get("directory"))
        elif kind == "message":
            self._message_id, self._user = None, ""  # its parts are read only if it is
            info = _message_fields(require_dict(obj.get("data"), "data"))
            self._message_id = obj.get("id")
            self._message(info, obj)
        elif kind == "part":
            if obj.get("message") != self._message_id:
                return  # a part of a message skipped as damaged: neither prompt nor work
            self._part(require_dict(obj.get("data"), "data"), obj, offset)
        else:
            self.skip("unknown-type")

    def _message(self, info: dict[str, Any], obj: dict[str, Any]) -> None:
        role = info.get("role")
        if role == "user":
            self._user, self._user_at, self._prompted = (
                as_str(obj.get("id")),
                obj.get("time"),
                False,
            )
            return
        self._user = ""
        model = as_str(info.get("modelID"))
        self.state.model = model or self.state.model
        turn = self.turn
        if turn is None or role != "assistant":
            return
        turn.model = model or turn.model
        ended = _ms_time(as_dict(info.get("time")).get("completed") or obj.get("time"))
        if ended is not None and (turn.ended_at is None or ended > turn.ended_at):
            turn.ended_at = ended
        error = as_dict(info.get("error"))
        if error:
            detail = as_str(as_dict(error.get("data")).get("message")) or as_str(error.get("name"))
            turn.add_error(f"the model call failed: {detail}")

    def _part(self, part: dict[str, Any], obj: dict[str, Any], offset: int) -> None:
        ptype = part.get("type")
        if self._user and obj.get("message") == self._user:
            if ptype == "text" and part.get("synthetic"):
                self._expanded.append(text_field(part.get("text"), "text"))
            elif ptype == "text" and not part.get("ignored"):
                self._prompt(text_field(part.get("text"), "text"), offset)
            return
        turn = self.turn
        if turn is None:
            return
        if ptype == "text" and not part.get("synthetic"):
            turn.add_step("text", as_str(part.get("text")))
        elif ptype == "tool":
            self._tool(as_str(part.get("tool")) or "tool", as_dict(part.get("state")))

    def _prompt(self, text: str, offset: int) -> None:
        text = _unquoted(text.strip())
        if not text or text.startswith(_INJECTED):
            return
        if self._prompted and self.turn is not None:  # a second text part of the same message
            self.turn.prompt = f"{self.turn.prompt}\n{text}"
            return
        self._prompted = True
        turn = self.start_turn(offset, text, _iso(_ms_time(self._user_at)))
        body = "\n".join(t for t in self._expanded if t.strip())
        if body:  # what OpenCode read into the prompt: the replay's context, never the request
            turn.context = mark(body, "a file attached to the prompt")

    def _tool(self, name: str, state: dict[str, Any]) -> None:
        turn = self.turn
        assert turn is not None
        turn.note(turn.tools, name)
        args = as_dict(state.get("input"))
        status = as_str(state.get("status"))
        error = as_str(state.get("error"))
        path = as_str(args.get("filePath"))
        if name == "bash":
            self._command(as_str(args.get("command")), state, error)
        elif name == "write" and status == "completed":
            turn.note(turn.files, path)
            actions.file(turn, "write", path, name, as_str(args.get("content")))
        elif name == "edit" and status == "completed":
            turn.note(turn.files, path)
            actions.file(turn, "edit", path, name, as_str(args.get("newString")))
        elif name in ("patch", "apply_patch") and status == "completed":
            for verb, file in _PATCH_FILE.findall(as_str(args.get("patchText"))):
                turn.note(turn.files, file.strip())
                actions.file(turn, _PATCH_KINDS[verb], file.strip(), name)
        elif name == "read" and status == "completed":
            actions.file(turn, "read", path, name)
        elif name == "skill":
            turn.note(turn.skills, as_str(args.get("name")))
        if status == "error" and name != "bash":
            turn.add_error(f"{name} failed: {error}")
            turn.add_step("error", f"{name}: {error}")

    def _command(self, command: str, state: dict[str, Any], error: str) -> None:
        turn = self.turn
        assert turn is not None
        if not command:
            return
        meta = as_dict(state.get("metadata"))
        code = meta.get("exit")
        code = code if isinstance(code, int) and not isinstance(code, bool) else None
        output = as_str(state.get("output")) or as_str(meta.get("output"))
        turn.add_step("tool", f"$ {command}")
        action = actions.command(turn, command, "bash", code)
        if as_str(state.get("status")) == "error":  # refused or interrupted: it never finished
            action.failed = True
            turn.add_error(f"`{command}` failed: {error.strip()[-300:]}")
        elif code is not None and code != 0:
            turn.add_error(f"`{command}` exited {code}: {output.strip()[-300:]}")
            turn.add_step("error", f"exit {code}: {output}", tail_cut=True)
        elif output.strip():
            turn.add_step("output", output, tail_cut=True)


def _message_fields(info: dict[str, Any]) -> dict[str, Any]:
    """A message's ``data`` when its fields have the types OpenCode writes (``role`` text,
    ``time`` and ``error`` objects, ``modelID`` text); else :class:`BadRecord`, as a transcript
    line of the wrong shape is."""
    if not isinstance(info.get("role"), str):
        raise BadRecord("data.role is not text")
    for key, kind in (("time", dict), ("error", dict), ("modelID", str)):
        if info.get(key) is not None and not isinstance(info[key], kind):
            raise BadRecord(f"data.{key} is not {'text' if kind is str else 'an object'}")
    return info


def _unquoted(text: str) -> str:
    """``"run the tests"`` -> ``run the tests`` (one pair, as ``opencode run "..."`` adds it)."""
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1].strip()
    return text


def _ms_time(value: object) -> datetime | None:
    """Epoch milliseconds as aware UTC (None when absent or out of range)."""
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    try:
        return datetime.fromtimestamp(value / 1000, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None
