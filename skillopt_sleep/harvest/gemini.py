"""Gemini CLI sessions: ``<gemini home>/tmp/<project>/chats/session-<start>-<id8>.jsonl``.

The home is ``$GEMINI_CLI_HOME/.gemini``, else ``~/.gemini``; ``<project>`` is the project
directory's name (``projects.json`` maps cwd to it). Format facts this parser relies on
(observed with gemini 0.61.0 driven headless, ``-p`` and ``--resume latest``):
- Line 1 is the session's metadata ``{sessionId, projectHash, startTime, lastUpdated, kind}``
  with no ``type``; ``projectHash`` is the sha256 of the cwd. A resume appends the same
  metadata line again, then its turns, to the *original* file. ``kind: "subagent"`` is another
  agent's conversation, never the user's.
- ``{"$set": {...}}`` lines patch the metadata. One holds ``messages[0]``: the injected
  ``<session_context>`` (OS, date, ``**Workspace Directories:**`` whose first entry is the
  cwd, the directory tree and the GEMINI.md text inlined). It is context, never a prompt; the
  project is read from it.
- Messages are ``{id, timestamp, type, content}``; ``type`` is ``user``, ``gemini``, ``info``,
  ``error`` or ``warning``. A ``user`` message whose content holds ``functionResponse`` parts
  is a tool result the CLI sent, not the user; a typed one holds ``text`` parts (an ``@file``
  reference expands after ``--- Content from referenced files ---``). A custom command
  (``.gemini/commands/*.toml``) writes its expanded prompt as ``content`` and what the user
  typed (``/name args``) as ``displayContent``.
- A ``gemini`` message is written once when its text arrives and **again under the same id**
  once its ``toolCalls`` complete: the last one wins. So a turn's replies are collected by id
  and read when the turn ends (the next prompt, or the end of the read).
- ``toolCalls[]`` are ``{id, name, args, result: [{functionResponse: {response: {output |
  error}}}], status, resultDisplay}``. ``run_shell_command`` ``args.command``; its exit status
  is only in the output text (``Exit Code: 2``) and ``status`` stays ``success``: no such line
  means it exited 0. ``write_file`` ``args.file_path`` + ``content`` (``resultDisplay.filePath``
  is absolute, ``isNewFile`` says created); ``replace`` ``file_path`` + ``new_string``;
  ``read_file`` ``absolute_path`` or ``file_path``; ``activate_skill`` ``name``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from . import actions
from .expanded import mark
from .jsonl import (
    MAX_LINE_BYTES,
    BadRecord,
    LineParser,
    as_dict,
    as_list,
    as_str,
    prompt_blocks,
)
from .scan import Problem, printable
from .session import ParseState, SessionChunk, Turn, parse_time

SOURCE = "gemini"
_CONTEXT = "<session_context>"
_REFERENCED = "--- Content from referenced files ---"
_WORKSPACE = re.compile(r"\*\*Workspace Directories:\*\*[ \t]*\r?\n[ \t]*-[ \t]*([^\r\n]+)")
_EXIT = re.compile(r"^Exit Code:\s*(-?\d+)\s*$", re.MULTILINE)
_SIGNAL = re.compile(r"^Signal:\s*(\d+)\s*$", re.MULTILINE)
# Lines of a shell result that describe the run, not its output.
_NOISE = re.compile(
    r"^(?:Command: |Directory: |Exit Code: |Signal: |Background PIDs: |Process Group PGID: "
    r"|Error: \(none\)|</?untrusted_context>).*$\n?",
    re.MULTILINE,
)
_FILE_TOOLS = {"write_file": "write", "replace": "edit", "edit": "edit"}
_READ_TOOLS = ("read_file", "read_many_files")
_FAILED = ("error", "cancelled")


def default_root(env: Mapping[str, str]) -> Path:
    """Gemini CLI's home: ``$GEMINI_CLI_HOME/.gemini``, else ``~/.gemini``."""
    home = env.get("GEMINI_CLI_HOME") or env.get("HOME") or env.get("USERPROFILE")
    return Path(home or Path.home()).expanduser() / ".gemini"


def gemini_files(root: Path, problems: list[Problem]) -> Iterator[str]:
    """The session files ``<root>/tmp/<project>/chats/*.jsonl``, sorted by project and name.

    A missing root yields nothing; a directory that cannot be listed is added to ``problems``,
    never raised. A metadata-only file a resume leaves beside the real one is listed too (it
    yields no turns); both share the session id.
    """
    for project in _entries(os.path.join(str(root), "tmp"), problems):
        try:
            if not project.is_dir():
                continue
        except OSError as exc:
            problems.append((printable(project.path), exc.strerror or type(exc).__name__))
            continue
        for entry in _entries(os.path.join(project.path, "chats"), problems):
            if not entry.name.endswith(".jsonl"):
                continue
            try:
                entry.path.encode("utf-8")
            except UnicodeEncodeError:
                problems.append((printable(entry.path), "the file name is not UTF-8"))
                continue
            yield entry.path


def _entries(path: str, problems: list[Problem]) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(path) as it:
            return sorted(it, key=lambda e: e.name)
    except FileNotFoundError:
        return []
    except OSError as exc:
        problems.append((printable(path), exc.strerror or type(exc).__name__))
        return []


def peek_gemini_project(path: Path, lines: int = 4) -> str:
    """The cwd named by a session file's injected context (its first lines), or ""."""
    parser = GeminiParser()
    try:
        with open(path, "rb") as fh:
            for _ in range(lines):
                raw = fh.readline(MAX_LINE_BYTES + 1)
                if not raw.endswith(b"\n"):
                    break
                parser.feed(0, raw)
                if parser.state.project:
                    break
    except OSError:
        return ""
    return parser.state.project


def context_project(text: str) -> str:
    """The first workspace directory an injected ``<session_context>`` names (the cwd)."""
    match = _WORKSPACE.search(text)
    return match.group(1).strip() if match else ""


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = [as_str(as_dict(p).get("text")) for p in as_list(content)]
    return "\n".join(p for p in parts if p)


class GeminiParser(LineParser):
    """Turns the records of one Gemini CLI session file into :class:`Turn` s."""

    source = SOURCE
    ignored_types = frozenset({"info", "warning"})

    def __init__(self, state: ParseState | None = None) -> None:
        super().__init__(state)
        self._replies: dict[str, dict[str, Any]] = {}  # this turn's gemini messages, last wins
        self._prompts: set[str] = set()  # ids of the prompts read (a re-written one is not new)
        self._subagent = False

    def kind_of(self, obj: dict[str, Any]) -> Any:
        if "$set" in obj:
            return "$set"
        if "type" not in obj and "sessionId" in obj:
            return "session"
        return obj.get("type")

    def record(self, kind: str, obj: dict[str, Any], offset: int) -> None:
        if kind == "session":
            self.state.session_id = self.state.session_id or as_str(obj.get("sessionId"))
            self._subagent = self._subagent or obj.get("kind") == "subagent"
        elif kind == "$set":
            for message in as_list(as_dict(obj.get("$set")).get("messages")):
                self._learn_project(_texts(as_dict(message).get("content")))
        elif self._subagent:
            return
        elif kind == "user":
            self._user(obj, offset)
        elif kind == "gemini":
            self._reply(obj)
        elif kind == "error" and self.turn is not None:
            self.turn.add_error(_texts(obj.get("content")))
        elif kind not in self.ignored_types:
            self.skip("unknown-type")

    def finish(self) -> SessionChunk:
        self._flush()
        return super().finish()

    def _learn_project(self, text: str) -> None:
        if text.startswith(_CONTEXT) and not self.state.project:
            self.state.project = context_project(text)

    def _user(self, obj: dict[str, Any], offset: int) -> None:
        content = obj.get("content")
        if not isinstance(content, (str, list)):
            raise BadRecord("content is neither text nor a list")
        if isinstance(content, list):
            prompt_blocks(content, "content")
        if any("functionResponse" in as_dict(p) for p in as_list(content)):
            return  # a tool result the CLI sent back; the gemini message holds it too
        text = _texts(content).strip()
        if text.startswith(_CONTEXT):
            self._learn_project(text)
            return
        message_id = as_str(obj.get("id"))
        if not text or (message_id and message_id in self._prompts):
            return
        self._prompts.add(message_id)
        self._flush()
        shown = _texts(obj.get("displayContent")).strip()
        if shown.startswith("/") and shown != text:  # a custom command: its body is context
            turn = self.start_turn(offset, shown, obj.get("timestamp"))
            turn.note(turn.tags, "slash-command")
            turn.context = mark(text, f"the body of the command {shown.split()[0]}")
            return
        prompt, _, referenced = text.partition(_REFERENCED)
        turn = self.start_turn(offset, prompt.strip() or text, obj.get("timestamp"))
        if referenced.strip():
            turn.context = mark(referenced.strip(), "files the prompt referenced")

    def _reply(self, obj: dict[str, Any]) -> None:
        if not isinstance(obj.get("toolCalls", []), list):
            raise BadRecord("toolCalls is not a list")
        turn = self.turn
        if turn is None:
            return  # a reply before the first prompt of this read belongs to an earlier turn
        key = as_str(obj.get("id")) or f"#{len(self._replies)}"
        self._replies[key] = obj
        model = as_str(obj.get("model"))
        if model:
            turn.model = self.state.model = model
        turn.ended_at = parse_time(obj.get("timestamp")) or turn.ended_at

    def _flush(self) -> None:
        """Read the current turn's replies (each in its last version) into the turn."""
        turn, replies, self._replies = self.turn, self._replies, {}
        if turn is None:
            return
        for reply in replies.values():
            turn.add_step("text", _texts(reply.get("content")))
            for call in as_list(reply.get("toolCalls")):
                _tool(turn, as_dict(call))


def _tool(turn: Turn, call: dict[str, Any]) -> None:
    """One completed tool call: a step, an action, and an error when it failed."""
    name = as_str(call.get("name")) or "tool"
    args = as_dict(call.get("args"))
    status = as_str(call.get("status"))
    output = _output(call)
    turn.note(turn.tools, name)
    if name == "run_shell_command":
        _shell(turn, as_str(args.get("command")), output, status)
        return
    display = as_dict(call.get("resultDisplay"))
    if name in _FILE_TOOLS:
        path = as_str(display.get("filePath")) or as_str(args.get("file_path"))
        body = as_str(args.get("content")) or as_str(args.get("new_string"))
        failed = status in _FAILED  # it wrote nothing
        if not failed:
            turn.note(turn.files, path)
            turn.add_step("file", f"{path}:\n{body}")
        action = actions.file(turn, "write" if name == "write_file" else "edit", path, name, body)
        if action is not None:
            action.failed = failed
    elif name in _READ_TOOLS:
        path = as_str(args.get("absolute_path")) or as_str(args.get("file_path"))
        turn.add_step("tool", f"{name} {path}")
        actions.file(turn, "read", path, name)
    elif name == "activate_skill":
        turn.note(turn.skills, as_str(args.get("name")))
        turn.add_step("tool", f"{name} {as_str(args.get('name'))}")
    else:
        turn.add_step("tool", f"{name} {json.dumps(args, sort_keys=True)[:200]}")
    if status in _FAILED:
        turn.add_error(f"{name} {status}: {output}")
        turn.add_step("error", f"{name} {status}: {output}", tail_cut=True)


def _shell(turn: Turn, command: str, output: str, status: str) -> None:
    if not command.strip():
        return
    turn.add_step("tool", f"$ {command}")
    code = _exit_code(output, status)
    action = actions.command(turn, command, "run_shell_command", code)
    action.failed = action.failed or status in _FAILED or bool(_SIGNAL.search(output))
    text = _NOISE.sub("", output).removeprefix("Output: ").strip()
    if action.failed:
        what = f"exited {code}" if code else status or "failed"
        turn.add_error(f"`{command}` {what}: {text[-300:]}")
        turn.add_step("error", f"{what}: {text}", tail_cut=True)
    elif text:
        turn.add_step("output", text, tail_cut=True)


def _exit_code(output: str, status: str) -> int | None:
    """The exit status the output text states; none stated by a successful call is 0."""
    match = _EXIT.search(output)
    if match:
        return int(match.group(1))
    return 0 if status == "success" and not _SIGNAL.search(output) else None


def _output(call: dict[str, Any]) -> str:
    """The text of a tool call's result (its ``output``, else its ``error``)."""
    texts = []
    for item in as_list(call.get("result")):
        response = as_dict(as_dict(as_dict(item).get("functionResponse")).get("response"))
        texts.append(as_str(response.get("output")) or as_str(response.get("error")))
    return "\n".join(t for t in texts if t)
