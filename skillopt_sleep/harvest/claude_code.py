"""Claude Code transcripts: ``<config dir>/projects/<sanitised cwd>/<session id>.jsonl``.

Format facts this parser relies on (observed with claude 2.1):
- ``user`` records are human prompts only when ``message.content`` is text; a list of
  ``tool_result`` blocks is a tool's answer. ``isMeta`` records hold the body a slash command
  expanded to; ``<command-message>``/``<command-name>``/``<command-args>`` wrap the command
  itself; ``<system-reminder>`` blocks are injected, not typed.
- ``assistant`` records hold ONE content block each; the blocks of one API message share
  ``message.id``. Tool calls and their results meet by ``tool_use_id``.
- A resumed session (``--resume``) appends to the same file with the same session id.
- ``isSidechain`` records belong to a subagent, not to the user's conversation.
"""

from __future__ import annotations

import re
from typing import Any

from . import actions
from .expanded import mark
from .jsonl import BadRecord, LineParser, as_dict, as_list, as_str, prompt_blocks, require_dict
from .session import ParseState, Turn, parse_time

SOURCE = "claude-code"

# User records that are the UI's own output, not something the user asked the agent.
_NOT_PROMPTS = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<user-memory-input>",
)
_INTERRUPTED = "[Request interrupted by user"
_SKILL_BASE = re.compile(r"^Base directory for this skill: (\S+)")
_FILE_TOOLS = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
# The input field that best says what a tool call did, for the attempt excerpt.
_TOOL_SUMMARY = (
    "command",
    "file_path",
    "notebook_path",
    "pattern",
    "path",
    "url",
    "query",
    "skill",
    "description",
    "prompt",
)


def sanitise_cwd(cwd: str) -> str:
    """The directory name Claude Code gives a project: every non-alphanumeric becomes ``-``."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def strip_blocks(text: str, tag: str) -> str:
    """``text`` without its ``<tag>...</tag>`` blocks; an unclosed tag and what follows it stay.

    Linear: a lazy regex rescans the rest of the text from every unclosed tag, which is
    quadratic on a prompt holding thousands of them.
    """
    opening, closing = f"<{tag}>", f"</{tag}>"
    parts: list[str] = []
    pos = 0
    while True:
        start = text.find(opening, pos)
        if start < 0:
            break
        end = text.find(closing, start + len(opening))
        if end < 0:
            break  # no closing tag after this one: none after any later one either
        parts.append(text[pos:start])
        pos = end + len(closing)
    parts.append(text[pos:])
    return "".join(parts)


def first_block(text: str, tag: str) -> str | None:
    """The inside of the first closed ``<tag>...</tag>`` (linear, like :func:`strip_blocks`)."""
    opening, closing = f"<{tag}>", f"</{tag}>"
    start = text.find(opening)
    if start < 0:
        return None
    end = text.find(closing, start + len(opening))
    return None if end < 0 else text[start + len(opening) : end]


def clean_prompt(text: str) -> tuple[str, str] | None:
    """A human prompt's text without injected blocks, and the slash command it ran ("" if none).

    None when the record is not something the user asked (command output, shell escapes).
    """
    text = strip_blocks(text, "system-reminder").strip()
    if not text or text.startswith(_NOT_PROMPTS):
        return None
    name = first_block(text, "command-name")
    if name is not None:
        command = name.strip()
        arg_text = (first_block(text, "command-args") or "").strip()
        return f"{command} {arg_text}".strip(), command.lstrip("/")
    return text, ""


def _blocks_text(blocks: list[Any]) -> str:
    parts = [
        as_str(b.get("text")) for b in blocks if isinstance(b, dict) and b.get("type") == "text"
    ]
    return "\n".join(p for p in parts if p)


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return _blocks_text(as_list(content))


def tool_summary(name: str, tool_input: dict[str, Any]) -> str:
    """``Bash: pytest -q`` — the tool and the input field that says what it did."""
    for key in _TOOL_SUMMARY:
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            return f"{name}: {value.strip()}"
    return name


class ClaudeCodeParser(LineParser):
    """Turns the records of one Claude Code transcript into :class:`Turn` s."""

    source = SOURCE
    ignored_types = frozenset(
        {
            "queue-operation",
            "last-prompt",
            "mode",
            "ai-title",
            "summary",
            "system",
            "progress",
            "file-history-snapshot",
            "custom-title",
            "permission-mode",
            "agent-name",
            "tag",
        }
    )

    def __init__(self, state: ParseState | None = None) -> None:
        super().__init__(state)
        self._tools: dict[str, str] = {}  # tool_use_id -> tool name
        self._seen_blocks: set[tuple[str, str]] = set()  # (message.id, block identity)
        self._commands: dict[str, actions.RawAction] = {}  # tool_use_id -> its command action
        self._files: dict[str, actions.RawAction | None] = {}  # tool_use_id -> its write or edit

    def record(self, kind: str, obj: dict[str, Any], offset: int) -> None:
        if obj.get("isSidechain") is True:
            return
        self._learn_session(obj)
        if kind == "user":
            self._user(obj, offset)
        elif kind == "assistant":
            self._assistant(obj)
        elif kind == "attachment":
            self._attachment(obj)
        elif kind not in self.ignored_types:
            self.skip("unknown-type")

    def _learn_session(self, obj: dict[str, Any]) -> None:
        if not self.state.session_id:
            self.state.session_id = as_str(obj.get("sessionId"))
        self.state.branch = self.state.branch or as_str(obj.get("gitBranch"))
        if not self.state.project:
            cwd = as_str(obj.get("cwd"))
            if cwd.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", cwd):
                self.state.project = cwd

    def _user(self, obj: dict[str, Any], offset: int) -> None:
        message = require_dict(obj.get("message"), "message")
        content = message.get("content")
        if isinstance(content, str):
            blocks: list[Any] = [{"type": "text", "text": content}]
        elif isinstance(content, list):
            blocks = prompt_blocks(content, "message.content")
        else:
            raise BadRecord("message.content is neither text nor a list")
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        if results:
            for block in results:
                self._tool_result(block)
            return
        text = _blocks_text(blocks)
        if obj.get("isMeta") is True or _SKILL_BASE.match(text):
            self._meta(text)
            return
        if obj.get("isCompactSummary") is True or obj.get("isVisibleInTranscriptOnly") is True:
            return
        if text.startswith(_INTERRUPTED):
            if self.turn is not None:
                self.turn.note(self.turn.tags, "interrupted")
            return
        cleaned = clean_prompt(text)
        if cleaned is None:
            return
        prompt, command = cleaned
        turn = self.start_turn(offset, prompt, obj.get("timestamp"))
        if command:
            turn.note(turn.tags, "slash-command")
            if ":" in command:  # plugin commands are namespaced "plugin:command"
                turn.note(turn.skills, command)

    def _meta(self, text: str) -> None:
        """A slash command's or a skill's expanded body: the agent's context, marked as not typed
        by the user (:mod:`.expanded`), never a request or feedback."""
        turn = self.turn
        if turn is None or turn.has_work or turn.context:
            return
        skill = _SKILL_BASE.match(text)
        if skill:
            name = skill.group(1).rstrip("/").rsplit("/", 1)[-1]
            turn.note(turn.skills, name)
            what = f"the skill {name}"
        else:
            command = turn.prompt.split(" ", 1)[0] if turn.prompt.startswith("/") else ""
            what = f"the body of the slash command {command}" if command else "an expanded file"
        turn.context = mark(strip_blocks(text, "system-reminder").strip(), what)

    def _assistant(self, obj: dict[str, Any]) -> None:
        message = require_dict(obj.get("message"), "message")
        turn = self.turn
        if turn is None:
            return  # work before the first prompt of this read belongs to an earlier turn
        content = message.get("content")
        blocks = (
            [{"type": "text", "text": content}] if isinstance(content, str) else as_list(content)
        )
        message_id = as_str(message.get("id")) or as_str(obj.get("uuid"))
        model = as_str(message.get("model"))
        if model and not model.startswith("<"):  # "<synthetic>": Claude Code's own notices
            turn.model = self.state.model = model
        for block in blocks:
            if isinstance(block, dict):
                self._block(turn, message_id, block)
        skill = as_str(obj.get("attributionSkill"))
        if skill:
            turn.note(turn.skills, skill)
        turn.ended_at = parse_time(obj.get("timestamp")) or turn.ended_at

    def _block(self, turn: Turn, message_id: str, block: dict[str, Any]) -> None:
        btype = block.get("type")
        identity = as_str(block.get("id")) or as_str(block.get("text"))[:200]
        key = (message_id, f"{btype}:{identity}")
        if key in self._seen_blocks:
            return  # the same block written twice (streamed message re-written)
        self._seen_blocks.add(key)
        if btype == "text":
            turn.add_step("text", as_str(block.get("text")))
        elif btype == "tool_use":
            name = as_str(block.get("name")) or "tool"
            tool_input = as_dict(block.get("input"))
            self._tools[as_str(block.get("id"))] = name
            turn.note(turn.tools, name)
            turn.add_step("tool", tool_summary(name, tool_input))
            self._tool_effects(turn, name, tool_input)
            self._action(turn, as_str(block.get("id")), name, tool_input)

    def _action(self, turn: Turn, use_id: str, name: str, tool_input: dict[str, Any]) -> None:
        """The call as a structured action (Bash: a command and the file effects it shows)."""
        if name == "Bash":
            cmd = as_str(tool_input.get("command"))
            if cmd.strip():
                self._commands[use_id] = actions.command(turn, cmd, name)
        elif name == "Read":
            actions.file(turn, "read", as_str(tool_input.get("file_path")), name)
        elif name == "Write":
            self._files[use_id] = actions.file(
                turn,
                "write",
                as_str(tool_input.get("file_path")),
                name,
                as_str(tool_input.get("content")),
            )
        elif name in ("Edit", "MultiEdit", "NotebookEdit"):
            edits = as_list(tool_input.get("edits")) or [tool_input]
            new = "\n".join(
                as_str(as_dict(e).get("new_string") or as_dict(e).get("new_source")) for e in edits
            )
            path = as_str(tool_input.get("file_path")) or as_str(tool_input.get("notebook_path"))
            self._files[use_id] = actions.file(turn, "edit", path, name, new)
        elif name == "Grep" and as_str(tool_input.get("path")):
            actions.file(turn, "read", as_str(tool_input.get("path")), name)

    def _tool_effects(self, turn: Turn, name: str, tool_input: dict[str, Any]) -> None:
        field = _FILE_TOOLS.get(name)
        if field:
            path = as_str(tool_input.get(field))
            turn.note(turn.files, path)
            written = as_str(tool_input.get("content")) or as_str(tool_input.get("new_string"))
            if written:
                turn.add_step("file", f"{path}:\n{written}")
        if name == "Skill":
            turn.note(
                turn.skills, as_str(tool_input.get("skill")) or as_str(tool_input.get("command"))
            )

    def _tool_result(self, block: dict[str, Any]) -> None:
        turn = self.turn
        if turn is None:
            return
        name = self._tools.get(as_str(block.get("tool_use_id")), "tool")
        text = _result_text(block.get("content")).strip()
        use_id = as_str(block.get("tool_use_id"))
        pending = self._commands.pop(use_id, None) or self._files.pop(use_id, None)
        if pending is not None:
            actions.finished(pending, is_error=block.get("is_error") is True, output=text)
            if pending.failed and pending.kind != "command":
                turn.unwrite(pending.path)
        if block.get("is_error") is True:
            turn.add_error(f"{name}: {text}")
            turn.add_step("error", f"{name} failed: {text}", tail_cut=True)
        elif text:
            turn.add_step("output", text, tail_cut=True)

    def _attachment(self, obj: dict[str, Any]) -> None:
        attachment = as_dict(obj.get("attachment"))
        if attachment.get("type") == "edited_text_file" and self.turn is not None:
            self.turn.note(self.turn.files, as_str(attachment.get("filename")))
