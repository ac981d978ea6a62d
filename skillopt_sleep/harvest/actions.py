"""The actions of a turn as a parser sees them, and how they become :class:`Action` records.

Parsers call :func:`command` and :func:`file` as the transcript shows tool calls; a command's
exit status may come later (Claude Code writes the tool result as a separate record), so the
raw action stays mutable until the turn is mined. At most :data:`MAX_ACTIONS` a turn are kept.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..redact import redact
from .session import RawAction as RawAction  # the record is defined beside the Turn holding it
from .session import Turn, cut
from .shell_effects import shell_effects

if TYPE_CHECKING:  # the records' models are imported when a turn becomes one: parsing needs none,
    # and the session-end hook, which imports every parser through the agent registry, none at all
    from ..models import Action, ActionKind

MAX_ACTIONS = 200
COMMAND_CHARS = 600
CONTENT_CHARS = 2000
TOOL_ERROR = "<tool_use_error>"  # Claude Code's wrapping of a tool call it refused
_EXIT = re.compile(r"^(?:Exit code|exit code:?|exited with code)\s*(-?\d+)", re.IGNORECASE)


def _keep(turn: Turn, action: RawAction) -> RawAction:
    if len(turn.actions) < MAX_ACTIONS:
        turn.actions.append(action)
    return action


def command(turn: Turn, text: str, tool: str, exit_code: int | None = None) -> RawAction:
    """A command the agent ran, followed by the file effects its text shows. The text is redacted
    first: a secret in it (a key in a heredoc, a ``--password`` value) never becomes a path."""
    text = redact(text)
    action = _keep(
        turn,
        RawAction(
            "command",
            command=text,
            tool=tool,
            exit_code=exit_code,
            failed=exit_code not in (None, 0),
        ),
    )
    for kind, path in shell_effects(text):
        _keep(turn, RawAction(kind, path=path, tool=tool))
    return action


def file(turn: Turn, kind: ActionKind, path: str, tool: str, content: str = "") -> RawAction | None:
    """A file the agent read, wrote, edited or deleted through a tool (its result, when it
    comes later, through :func:`finished`)."""
    if not path:
        return None
    return _keep(turn, RawAction(kind, path=path, tool=tool, content=content))


def finished(action: RawAction, *, is_error: bool, output: str) -> None:
    """A tool result for ``action``: the exit status, when the result says it; a file tool's
    error (Claude Code's ``<tool_use_error>``) marks the call failed, so it changed nothing."""
    is_error = is_error or output.lstrip().startswith(TOOL_ERROR)
    match = _EXIT.match(output.strip())
    if match:
        action.exit_code = int(match.group(1))
    elif not is_error and action.kind == "command" and action.exit_code is None:
        action.exit_code = 0
    action.failed = is_error or action.exit_code not in (None, 0)


def relative(path: str, project: str, cwd: str = "") -> str:
    """A path relative to the project when it lies inside it (``./`` dropped)."""
    base = project.rstrip("/\\")
    if base and path.startswith((base + "/", base + "\\")):
        path = path[len(base) + 1 :]
    while path.startswith("./"):
        path = path[2:]
    return path


def to_models(turn: Turn, project: str) -> list[Action]:
    """The turn's actions as records: paths project-relative, text redacted and cut."""
    from ..models import Action

    out: list[Action] = []
    for raw in turn.actions:
        path = relative(raw.path, project)
        out.append(
            Action(
                kind=raw.kind,
                command=cut(redact(raw.command), COMMAND_CHARS),
                path=cut(redact(path), COMMAND_CHARS),
                exit_code=raw.exit_code,
                failed=raw.failed,
                content=cut(redact(raw.content), CONTENT_CHARS),
                tool=raw.tool,
            )
        )
    return out
