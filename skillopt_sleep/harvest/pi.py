"""Pi sessions: ``<agent dir>/sessions/--<cwd, / as ->--/<ISO time>_<uuidv7>.jsonl``.

The agent dir is ``~/.pi/agent`` unless ``PI_CODING_AGENT_DIR`` moves it;
``PI_CODING_AGENT_SESSION_DIR`` (or ``--session-dir``) moves the sessions alone, and then they
lie in that directory itself, with no per-project folder (:func:`sessions_root`).
Format facts this parser relies on (observed with pi 0.73.1, session version 3):
- The first line is the header ``{"type": "session", "id", "cwd", "timestamp"}``; it is not part
  of the tree. Every later entry has an ``id`` and a ``parentId`` (null at the root): the entries
  form a tree, and the branch that is current is the path from the last entry appended back to
  the root. Going back in the tree (``/tree``) appends the next entry under an earlier one.
- ``message`` entries hold ``message.role``: ``user`` (``content`` a string or text/image
  blocks), ``assistant`` (``text``, ``thinking`` and ``toolCall{id, name, arguments}`` blocks;
  ``model``; ``stopReason`` ``error``/``aborted`` with ``errorMessage``), ``toolResult``
  (``toolCallId``, ``toolName``, ``isError``, text blocks; a failed command's text ends
  "Command exited with code N"). ``bashExecution`` (a ``!`` command the user ran themselves),
  ``custom``, ``branchSummary`` and ``compactionSummary`` are not the agent's work.
- The built-in tools: ``bash {command}``, ``write {path, content}``, ``edit {path,
  edits[{oldText, newText}]}`` (older: ``oldText``/``newText`` at the top), ``read {path}``,
  ``grep``/``find``/``ls {path}``.
- Injected context never comes as a user message: ``AGENTS.md`` (``CLAUDE.md`` as a fallback)
  goes into the system prompt. A ``/skill:name`` prompt is written as
  ``<skill name=… location=…>body</skill>`` then the typed arguments; ``@file`` arguments as
  ``<file name=…>content</file>`` before the typed text (``/skill:skillopt-sleep`` is read as
  the ``/skillopt-sleep`` control prompt). A prompt template (``/name``) is
  written already expanded, with no trace of the command.
- ``custom_message`` (an extension's injected text), ``compaction``, ``branch_summary``,
  ``custom``, ``label``, ``session_info``, ``model_change`` and ``thinking_level_change`` are
  never prompts.
- ``--continue`` / ``--session`` append to the same file, under the last entry. ``--fork``
  (``/fork``) writes a new file whose header names ``parentSession`` and which starts with a copy
  of the parent's entries, their ids and timestamps unchanged (so, older than the header).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from . import actions
from .expanded import mark
from .jsonl import (
    BadRecord,
    LineParser,
    as_dict,
    as_list,
    as_str,
    prompt_blocks,
    require_dict,
)
from .scan import Problem, _walk
from .session import ParseState, SessionChunk, Turn, parse_time

SOURCE = "pi"
AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"
SESSIONS_ENV = "PI_CODING_AGENT_SESSION_DIR"
CONTROL_SKILL = "skillopt-sleep"  # /skill:skillopt-sleep talks to this tool: never a task

_SKILL = re.compile(
    r'^<skill name="([^"]+)" location="([^"]+)">\n(.*?)\n</skill>(?:\n\n(.*))?\Z', re.DOTALL
)
_FILE = re.compile(r'\A<file name="([^"]*)">(?:\n(.*?)\n)?</file>\n', re.DOTALL)
_EXIT = re.compile(r"Command exited with code (-?\d+)\s*\Z")
_FILE_TOOLS = frozenset({"write", "edit"})
_READ_TOOLS = frozenset({"read", "grep", "find", "ls"})
_NOT_WORK = frozenset({"bashExecution", "custom", "branchSummary", "compactionSummary"})


def sessions_root(env: Mapping[str, str], setting: str | None = None) -> Path:
    """Where pi writes sessions: a setting, ``PI_CODING_AGENT_SESSION_DIR``,
    ``$PI_CODING_AGENT_DIR/sessions``, else ``~/.pi/agent/sessions``."""
    home = Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())

    def expand(path: str) -> Path:  # ``~`` is the HOME of ``env``, not of this process
        return home / path[2:] if path == "~" or path.startswith("~/") else Path(path)

    chosen = setting or env.get(SESSIONS_ENV)
    if chosen:
        return expand(chosen)
    agent_dir = env.get(AGENT_DIR_ENV)
    return expand(agent_dir) / "sessions" if agent_dir else home / ".pi" / "agent" / "sessions"


def pi_files(
    root: Path, problems: list[Problem], projects: frozenset[str] | None = None
) -> Iterator[str]:
    """Session files in ``root`` (see :func:`sessions_root`) and its ``--<cwd>--/`` folders
    (with ``projects``, only theirs); a missing root yields nothing, and what cannot be listed
    is added to ``problems``, never raised."""
    if projects is None:
        yield from _walk(str(root), problems, depth=1, seen=set())
        return
    yield from _walk(str(root), problems, depth=0, seen=None)  # a moved session dir: no folders
    for name in sorted({session_dir_name(p) for p in projects}):
        yield from _walk(str(root / name), problems, depth=0, seen=None)


def session_dir_name(cwd: str) -> str:
    """The directory pi gives a project's sessions: ``/home/u/app`` -> ``--home-u-app--``."""
    path = cwd[1:] if cwd[:1] in ("/", "\\") else cwd  # one leading separator, as pi drops it
    return "--" + re.sub(r"[/\\:]", "-", path) + "--"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = [
        as_str(b.get("text"))
        for b in as_list(content)
        if isinstance(b, dict) and b.get("type") == "text"
    ]
    return "\n".join(p for p in parts if p)


class PiParser(LineParser):
    """Turns the entries of one Pi session file into :class:`Turn` s, on the current branch."""

    source = SOURCE
    ignored_types = frozenset(
        {
            "thinking_level_change",
            "compaction",
            "branch_summary",
            "custom",
            "custom_message",
            "label",
            "session_info",
        }
    )

    def __init__(self, state: ParseState | None = None) -> None:
        super().__init__(state)
        self._commands: dict[
            str, actions.RawAction
        ] = {}  # toolCallId -> its command or file action
        self._parents: dict[str, str | None] = {}  # entry id -> parent id, for this read
        self._prompts: dict[int, str] = {}  # a turn's offset -> the entry id of its prompt
        self._tip: str | None = None  # the last entry read: where the current branch ends
        self._forked_at: datetime | None = None  # a fork's header time (copies are older)

    def record(self, kind: str, obj: dict[str, Any], offset: int) -> None:
        if kind == "session":
            self.state.session_id = self.state.session_id or as_str(obj.get("id"))
            self.state.project = self.state.project or as_str(obj.get("cwd"))
            if as_str(obj.get("parentSession")):
                self._forked_at = parse_time(obj.get("timestamp"))
            return
        self._follow(obj)
        if kind == "message":
            self._message(require_dict(obj.get("message"), "message"), obj, offset)
        elif kind == "model_change":
            self.state.model = as_str(obj.get("modelId")) or self.state.model
        elif kind not in self.ignored_types:
            self.skip("unknown-type")

    def finish(self) -> SessionChunk:
        if self._forked_at is not None:
            self.chunk.turns = without_copies(self.chunk.turns, self._forked_at)
        return super().finish()

    # -- the tree ------------------------------------------------------------------------------

    def _follow(self, obj: dict[str, Any]) -> None:
        """Keep the turns of the branch that is current: an entry appended under an earlier one
        than the last read (the user went back in the tree) abandons the turns after it.

        Only what this read saw can be judged: a parent read before (or on a skipped line) is
        taken as the continuation, so a damaged line loses nothing.
        """
        entry = as_str(obj.get("id"))
        raw = obj.get("parentId", "")  # null: the root; no id (a damaged field): unknown
        parent = raw if isinstance(raw, str) else None
        known = raw is None or parent in self._parents
        if self._tip is not None and parent != self._tip and known:
            self._abandon(parent)
        if entry:
            self._parents[entry] = parent
            self._tip = entry

    def _abandon(self, parent: str | None) -> None:
        path: set[str] = set()
        node = parent
        while node is not None and node not in path:
            path.add(node)
            node = self._parents.get(node)
        kept = [t for t in self.chunk.turns if self._prompts.get(t.offset) in path]
        if len(kept) == len(self.chunk.turns):
            return
        self.chunk.turns = kept
        self.turn = kept[-1] if kept else None

    # -- messages ------------------------------------------------------------------------------

    def _message(self, message: dict[str, Any], obj: dict[str, Any], offset: int) -> None:
        role = message.get("role")
        if role == "user":
            self._prompt(message, obj, offset)
        elif role == "assistant":
            self._assistant(message, obj)
        elif role == "toolResult":
            self._result(message)
        elif not isinstance(role, str):
            raise BadRecord("message.role is not text")
        elif role not in _NOT_WORK:
            self.skip("unknown-role")

    def _prompt(self, message: dict[str, Any], obj: dict[str, Any], offset: int) -> None:
        content = message.get("content")
        if not isinstance(content, (str, list)):
            raise BadRecord("message.content is neither text nor a list")
        if isinstance(content, list):
            prompt_blocks(content, "message.content")
        text, skill, context = _typed(_text(content))
        if not text and not skill:
            return
        if skill == CONTROL_SKILL:  # spelt as the control prompts of the other agents are
            text = f"/{CONTROL_SKILL} {text}".strip()
        turn = self.start_turn(offset, text or f"/skill:{skill}", obj.get("timestamp"))
        self._prompts[offset] = as_str(obj.get("id"))
        if skill:
            turn.note(turn.skills, skill)
        turn.context = context

    def _assistant(self, message: dict[str, Any], obj: dict[str, Any]) -> None:
        turn = self.turn
        if turn is None:
            return  # work before the first prompt of this read belongs to an earlier turn
        model = as_str(message.get("model"))
        if model:
            turn.model = self.state.model = model
        for block in as_list(message.get("content")):
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                turn.add_step("text", as_str(block.get("text")))
            elif block.get("type") == "toolCall":
                self._call(turn, block)
        stop = as_str(message.get("stopReason"))
        if stop == "error":
            turn.add_error(as_str(message.get("errorMessage")) or "the model call failed")
        elif stop == "aborted":
            turn.note(turn.tags, "interrupted")
        turn.ended_at = parse_time(obj.get("timestamp")) or turn.ended_at

    def _call(self, turn: Turn, block: dict[str, Any]) -> None:
        name = as_str(block.get("name")) or "tool"
        args = as_dict(block.get("arguments"))
        call_id = as_str(block.get("id"))
        turn.note(turn.tools, name)
        path = as_str(args.get("path"))
        command = as_str(args.get("command"))
        if name == "bash" and command.strip():
            turn.add_step("tool", f"$ {command}")
            self._commands[call_id] = actions.command(turn, command, name)
            return
        turn.add_step("tool", f"{name}: {path}" if path else name)
        if name in _FILE_TOOLS:
            turn.note(turn.files, path)
            written = as_str(args.get("content")) or _edit_text(args)
            action = actions.file(turn, "write" if name == "write" else "edit", path, name, written)
            if action is not None:  # its result says whether it wrote
                self._commands[call_id] = action
            if written:
                turn.add_step("file", f"{path}:\n{written}")
        elif name in _READ_TOOLS and path:
            actions.file(turn, "read", path, name)

    def _result(self, message: dict[str, Any]) -> None:
        turn = self.turn
        if turn is None:
            return
        text = _text(message.get("content")).strip()
        failed = message.get("isError") is True
        pending = self._commands.pop(as_str(message.get("toolCallId")), None)
        code = _EXIT.search(text)
        if pending is not None:
            # the exit code is the last line of pi's text; ``finished`` reads it from the start
            actions.finished(
                pending, is_error=failed, output=f"Exit code {code.group(1)}" if code else ""
            )
            if pending.failed and pending.kind != "command":
                turn.unwrite(pending.path)
        name = as_str(message.get("toolName")) or "tool"
        if failed:
            turn.add_error(f"{name}: {text}")
            turn.add_step("error", f"{name} failed: {text}", tail_cut=True)
        elif text:
            turn.add_step("output", text, tail_cut=True)


def without_copies(turns: list[Turn], forked_at: datetime) -> list[Turn]:
    """A fork's turns without the requests it copied from its parent session (they are the
    parent's tasks, harvested there), unless the fork adds feedback to one: then the request
    stays, so the correction lands on it. Copies keep their first timestamps, before the fork's."""
    # the task miner, imported when a fork is read, not with the agent registry (`log` loads
    # the registry at every session end)
    from .mine import group_turns

    def copied(turn: Turn) -> bool:
        return turn.timestamp is not None and turn.timestamp < forked_at

    dropped: set[int] = set()
    for group in group_turns(turns):
        if copied(group.task) and all(copied(a.turn) for a in group.attached):
            dropped.update(id(t) for t in (group.task, *(a.turn for a in group.attached)))
    return [t for t in turns if id(t) not in dropped]


def _edit_text(args: dict[str, Any]) -> str:
    edits = as_list(args.get("edits")) or [args]
    return "\n".join(as_str(as_dict(e).get("newText")) for e in edits).strip()


def _typed(text: str) -> tuple[str, str, str]:
    """What the user typed, the skill a ``/skill:`` prompt ran, and the expanded context."""
    skill = _SKILL.match(text)
    if skill:
        context = mark(skill.group(3).strip(), f"the skill {skill.group(1)}")
        return (skill.group(4) or "").strip(), skill.group(1), context
    files: list[str] = []
    bodies: list[str] = []
    while match := _FILE.match(text):
        files.append(match.group(1))
        if match.group(2):
            bodies.append(f"{match.group(1)}:\n{match.group(2)}")
        text = text[match.end() :]
    context = (
        mark("\n\n".join(bodies), "files attached with @: " + ", ".join(files)) if bodies else ""
    )
    return text.strip(), "", context
