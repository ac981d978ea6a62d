"""Ready-made scripts (responders and replies) for the common agent exchanges."""

from __future__ import annotations

import re

from .replies import CustomToolCall, ModelCall, Reply, Responder, Text, ToolCall

# codex wraps a command's output in a header ("Chunk ID: ...\nOutput:\n<output>").
_CODEX_OUTPUT = re.compile(r"^Output:\n", re.MULTILINE)


def claude_bash(command: str, description: str = "Run a shell command", text: str = "") -> ToolCall:
    """Claude Code's ``Bash`` tool call."""
    return ToolCall("Bash", {"command": command, "description": description}, text=text)


def codex_exec(command: str, text: str = "") -> ToolCall:
    """Codex's ``exec_command`` tool call (codex 0.169 with a ``gpt-5.5`` model slug)."""
    return ToolCall("exec_command", {"cmd": command}, text=text)


def claude_write(file_path: str, content: str, text: str = "") -> ToolCall:
    """Claude Code's ``Write`` tool call (needs ``--allowedTools Write`` or acceptEdits)."""
    return ToolCall("Write", {"file_path": file_path, "content": content}, text=text)


def codex_apply_patch(patch: str, text: str = "") -> CustomToolCall:
    """Codex's freeform ``apply_patch`` tool call with a ``*** Begin Patch`` envelope."""
    return CustomToolCall("apply_patch", patch, text=text)


def add_file_patch(path: str, content: str) -> str:
    """An ``apply_patch`` envelope that creates ``path`` (relative to the cwd) with ``content``."""
    lines = "".join(f"+{line}\n" for line in content.splitlines())
    return f"*** Begin Patch\n*** Add File: {path}\n{lines}*** End Patch\n"


def shell_call(call: ModelCall, command: str) -> ToolCall:
    """The shell tool call an agent understands, chosen from the tools it offers.

    Claude Code offers ``Bash``; codex offers ``exec_command`` (or ``shell`` for other slugs);
    anything else gets a generic ``bash`` function call.
    """
    if "Bash" in call.tools:
        return claude_bash(command)
    if "exec_command" in call.tools:
        return codex_exec(command)
    if "shell" in call.tools:
        return ToolCall("shell", {"command": ["bash", "-lc", command]})
    return ToolCall("bash", {"command": command})


def tool_output(text: str) -> str:
    """A tool result's output without the agent's wrapper (codex's ``Output:`` header)."""
    match = _CODEX_OUTPUT.search(text)
    return (text[match.end() :] if match else text).strip()


def shell_then_reply(command: str, final: str = "Done. Output: {output}") -> Responder:
    """A responder: run ``command`` via the agent's shell tool, then answer ``final``.

    ``final`` is formatted with ``output`` (the tool output, unwrapped and stripped). Each
    user prompt gets one tool call; once its result comes back, the text answer follows.
    """

    def respond(call: ModelCall) -> Reply:
        result = call.last_tool_result
        if result is not None:
            return Text(final.format(output=tool_output(result)))
        return shell_call(call, command)

    return respond
