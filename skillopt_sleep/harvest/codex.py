"""Codex rollouts: ``<codex home>/sessions/YYYY/MM/DD/rollout-*.jsonl`` and ``archived_sessions/``.

Each line is ``{timestamp, type, payload}``. Format facts this parser relies on:
- 0.169 writes prompts, replies, commands and file changes as ``event_msg`` ``item_completed``
  items (``UserMessage``, ``AgentMessage``, ``CommandExecution``, ``FileChange``); a
  ``UserMessage`` is always typed by the user.
- Older rollouts write ``event_msg`` ``user_message`` / ``agent_message`` / ``exec_command_end``
  instead. Both are read; once a file shows item events, the older kinds are ignored in it.
- ``response_item`` holds the model's items: ``function_call`` / ``custom_tool_call`` name the
  tools; user messages there include injected text (``# AGENTS.md instructions``,
  ``<environment_context>``, ``<skill>``), never taken as prompts.
- ``codex exec resume`` appends to the same file.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from ..action_models import is_change
from . import actions
from .jsonl import (
    BadRecord,
    LineParser,
    as_dict,
    as_list,
    as_str,
    prompt_blocks,
    require_dict,
    text_field,
)
from .session import ParseState, Turn, parse_time

if TYPE_CHECKING:  # a type only: `log` imports every parser and needs no model
    from ..models import ActionKind

SOURCE = "codex"

_INJECTED = (
    "# AGENTS.md instructions",
    "<environment_context>",
    "<skill>",
    "<user_instructions>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<permissions instructions>",
)
_SKILL_MENTION = re.compile(r"(?<![\w$])\$([a-z0-9][a-z0-9_.\-]*[a-z0-9])")
_SKILL_NAME = re.compile(r"<name>\s*([^<\s]+)\s*</name>")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.MULTILINE)
# the output of a patch codex did not apply (its context not found, a file missing, ...)
_PATCH_FAILED = re.compile(
    r'^apply_patch verification failed|^Exit code: [1-9]|"exit_code":\s*[1-9]'
)


def _content_text(content: Any) -> str:
    parts = [as_str(c.get("text")) for c in as_list(content) if isinstance(c, dict)]
    return "\n".join(p for p in parts if p)


def command_text(command: Any) -> str:
    """``["/bin/bash", "-lc", "pytest -q"]`` -> ``pytest -q``."""
    if isinstance(command, str):
        return command
    parts = [as_str(p) for p in as_list(command)]
    if len(parts) == 3 and parts[1] in ("-lc", "-c"):
        return parts[2]
    return " ".join(p for p in parts if p)


class CodexParser(LineParser):
    """Turns the records of one Codex rollout into :class:`Turn` s."""

    source = SOURCE
    ignored_types = frozenset({"world_state", "token_usage_record", "compacted", "turn_context"})
    _REFUSED = "exec_command failed"  # codex refused to start the command (its own policy)

    def __init__(self, state: ParseState | None = None) -> None:
        super().__init__(state)
        self._shell_calls: dict[str, str] = {}  # call id -> command, until its output is read
        self._patches: dict[str, list[str]] = {}  # call id -> a patch's files, until its output

    def record(self, kind: str, obj: dict[str, Any], offset: int) -> None:
        payload = require_dict(obj.get("payload"), "payload")
        if kind == "session_meta":
            self.state.session_id = self.state.session_id or as_str(payload.get("id"))
            self.state.project = self.state.project or as_str(payload.get("cwd"))
            git = payload.get("git")
            if isinstance(git, dict) and not self.state.commit:
                self.state.commit = as_str(git.get("commit_hash"))
        elif kind == "event_msg":
            self._event(payload, obj, offset)
        elif kind == "response_item":
            self._item(payload)
        elif kind == "turn_context":
            self.state.project = self.state.project or as_str(payload.get("cwd"))
            self.state.model = as_str(payload.get("model")) or self.state.model
            if self.turn is not None and not self.turn.model:
                self.turn.model = self.state.model
        elif kind not in self.ignored_types:
            self.skip("unknown-type")

    # -- event_msg ----------------------------------------------------------------------------

    def _event(self, payload: dict[str, Any], obj: dict[str, Any], offset: int) -> None:
        etype = payload.get("type")
        if not isinstance(etype, str):  # it may have been the user's message
            raise BadRecord("payload.type is not text")
        if etype == "item_completed":
            self._completed(require_dict(payload.get("item"), "item"), obj, offset)
        elif etype == "user_message" and not self.state.item_events:
            self._prompt(text_field(payload.get("message"), "payload.message"), obj, offset)
        elif etype == "agent_message" and not self.state.item_events and self.turn is not None:
            self.turn.add_step("text", as_str(payload.get("message")))
        elif etype == "exec_command_end" and not self.state.item_events:
            self._command(payload)
        elif etype == "patch_apply_end" and not self.state.item_events and self.turn is not None:
            failed = payload.get("success") is False  # a patch that did not apply
            for path, change in as_dict(payload.get("changes")).items():
                if not failed:
                    self.turn.note(self.turn.files, path)
                _change_action(self.turn, path, as_dict(change), failed)
        elif etype == "task_complete" and self.turn is not None:
            last = as_str(payload.get("last_agent_message"))
            if last and not any(s.kind == "text" for s in self.turn.steps):
                self.turn.add_step("text", last)
            self.turn.ended_at = parse_time(obj.get("timestamp")) or self.turn.ended_at
        elif etype == "turn_aborted" and self.turn is not None:
            self.turn.note(self.turn.tags, "interrupted")
        elif etype == "error" and self.turn is not None:
            self.turn.add_error(as_str(payload.get("message")))

    def _completed(self, item: dict[str, Any], obj: dict[str, Any], offset: int) -> None:
        itype = item.get("type")
        if not isinstance(itype, str):  # it may have been the user's message
            raise BadRecord("item.type is not text")
        if itype == "UserMessage":
            self.state.item_events = True
            content = prompt_blocks(item.get("content"), "item.content")
            self._prompt(_content_text(content), obj, offset)
            return
        turn = self.turn
        if turn is None:
            return
        if itype == "AgentMessage":
            turn.add_step("text", _content_text(item.get("content")))
        elif itype == "CommandExecution":
            self._command(item)
        elif itype == "FileChange":
            self._file_change(turn, item)

    def _prompt(self, text: str, obj: dict[str, Any], offset: int) -> None:
        text = text.strip()
        if not text or text.startswith(_INJECTED):
            return
        turn = self.start_turn(offset, text, obj.get("timestamp"))
        for name in _SKILL_MENTION.findall(text):
            turn.note(turn.skills, name)

    def _command(self, item: dict[str, Any]) -> None:
        turn = self.turn
        if turn is None:
            return
        command = command_text(item.get("command"))
        output = as_str(item.get("aggregated_output")) or (
            as_str(item.get("stdout")) + as_str(item.get("stderr"))
        )
        turn.add_step("tool", f"$ {command}")
        code = item.get("exit_code")
        actions.command(
            turn,
            command,
            "exec_command",
            code if isinstance(code, int) and not isinstance(code, bool) else None,
        )
        if isinstance(code, int) and code != 0:
            turn.add_error(f"`{command}` exited {code}: {output.strip()[-300:]}")
            turn.add_step("error", f"exit {code}: {output}", tail_cut=True)
        elif output.strip():
            turn.add_step("output", output, tail_cut=True)

    def _file_change(self, turn: Turn, item: dict[str, Any]) -> None:
        status = as_str(item.get("status"))
        failed = bool(status) and status != "completed"  # a patch that did not apply
        for path, change in as_dict(item.get("changes")).items():
            if not failed:
                turn.note(turn.files, path)
            _change_action(turn, path, as_dict(change), failed)
            content = as_str(as_dict(change).get("content"))
            if content and not failed:
                turn.add_step("file", f"{path}:\n{content}")
        if status and status != "completed":
            turn.add_error(f"patch {status}: {as_str(item.get('stderr'))}")

    # -- response_item -------------------------------------------------------------------------

    def _item(self, payload: dict[str, Any]) -> None:
        turn = self.turn
        if turn is None:
            return
        itype = payload.get("type")
        if itype in ("function_call", "custom_tool_call", "local_shell_call"):
            name = as_str(payload.get("name")) or (
                "shell" if itype == "local_shell_call" else "tool"
            )
            turn.note(turn.tools, name)
            if name in ("exec_command", "shell"):
                self._shell_calls[as_str(payload.get("call_id"))] = _shell_arg(payload)
            if name == "apply_patch":
                patch = as_str(payload.get("input")) or _patch_arg(payload)
                paths = [path.strip() for path in _PATCH_FILE.findall(patch)]
                for path in paths:
                    turn.note(turn.files, path)
                self._patches[as_str(payload.get("call_id"))] = paths
        elif itype in ("function_call_output", "custom_tool_call_output"):
            if itype == "function_call_output":
                self._refused(turn, payload)
            self._unapplied(turn, payload)
        elif itype == "message" and payload.get("role") == "user":
            text = _content_text(payload.get("content"))
            if text.startswith("<skill>"):
                skill = _SKILL_NAME.search(text)
                if skill:
                    turn.note(turn.skills, skill.group(1))

    def _unapplied(self, turn: Turn, payload: dict[str, Any]) -> None:
        """A patch codex did not apply ('apply_patch verification failed'): its files are no
        change of the turn, each recorded as a failed edit."""
        paths = self._patches.pop(as_str(payload.get("call_id")), [])
        output = as_str(payload.get("output"))
        if not paths or not _PATCH_FAILED.search(output):
            return
        done = {a.path for a in turn.actions if is_change(a)}
        for path in paths:
            if path not in done and path in turn.files:
                turn.files.remove(path)
            failed = actions.file(turn, "edit", path, "apply_patch")
            if failed is not None:
                failed.failed = True
        turn.add_error(f"apply_patch failed: {output.strip()[-300:]}")
        turn.add_step("error", f"apply_patch failed: {output}", tail_cut=True)

    def _refused(self, turn: Turn, payload: dict[str, Any]) -> None:
        """A command codex refused to start: what the attempt tried, recorded as a failed
        command (it never ran, so no ``exec_command_end`` names it)."""
        command = self._shell_calls.pop(as_str(payload.get("call_id")), "")
        output = as_str(payload.get("output"))
        if command and output.startswith(self._REFUSED):
            actions.command(turn, command, "exec_command").failed = True
            turn.add_error(f"`{command}` was refused: {output.strip()[-300:]}")


def _shell_arg(payload: dict[str, Any]) -> str:
    """The command line of an ``exec_command`` / ``shell`` function call ("" when unreadable)."""
    try:
        args = json.loads(as_str(payload.get("arguments")) or "{}")
    except ValueError:
        return ""
    args = as_dict(args)
    return as_str(args.get("cmd")) or command_text(args.get("command"))


_CHANGE_KINDS: dict[str, ActionKind] = {
    "add": "write",
    "update": "edit",
    "delete": "delete",
    "modify": "edit",
}


def _change_action(turn: Turn, path: str, change: dict[str, Any], failed: bool = False) -> None:
    """A file change of a patch as an action (``add`` writes, ``update`` edits, ``delete``);
    ``failed``: the patch did not apply, so it changed nothing."""
    kind = as_str(change.get("type")).lower() or ("delete" if "delete" in change else "edit")
    body = as_str(change.get("content")) or as_str(change.get("unified_diff"))
    action = actions.file(turn, _CHANGE_KINDS.get(kind, "edit"), path, "apply_patch", body)
    if action is not None:
        action.failed = failed


def _patch_arg(payload: dict[str, Any]) -> str:
    """The patch text of a ``function_call`` apply_patch (older rollouts pass it as JSON)."""
    try:
        args = json.loads(as_str(payload.get("arguments")) or "{}")
    except ValueError:
        return ""
    return as_str(as_dict(args).get("input"))
