"""Action checks: what they take, validated when a check is made (never a silent 0 at night).

``ran`` / ``never_ran``: ``value`` is a regex searched in every command the attempt ran.
``changed`` / ``untouched`` / ``never_read``: ``value`` is a glob of project-relative paths
(``dist/**``, ``*.lock``, ``.env``).
``file_contains`` / ``file_not_contains``: ``path`` is a glob, ``value`` a regex searched in the
file(s) after the attempt.
``passes_after``: ``value`` is a shell command run in the attempt's tree afterwards; it passes
when it exits 0.
"""

from __future__ import annotations

import re
from typing import Protocol

COMMAND_KINDS = frozenset({"ran", "never_ran"})
PATH_KINDS = frozenset({"changed", "untouched", "never_read"})
CONTENT_KINDS = frozenset({"file_contains", "file_not_contains"})
ACTION_KINDS = COMMAND_KINDS | PATH_KINDS | CONTENT_KINDS | {"passes_after"}
CHANGE_KINDS = frozenset({"write", "edit", "delete"})


class _Done(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def failed(self) -> bool: ...


def is_change(action: _Done) -> bool:
    """Whether ``action`` changed a file: a write, edit or delete whose tool call did not fail (a
    Write refused with an error, a patch that did not apply, changed nothing)."""
    return action.kind in CHANGE_KINDS and not action.failed


def wrote(action: _Done) -> bool:
    """Whether ``action`` put text in a file: a write or edit that did not fail."""
    return action.kind in ("write", "edit") and not action.failed


def _glob(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} needs a non-empty glob of project paths, like 'dist/**'")
    if value.startswith(("/", "~")) or re.match(r"^[A-Za-z]:[\\/]", value):
        raise ValueError(f"{what} glob {value!r} must be relative to the project, like 'dist/**'")
    if ".." in re.split(r"[\\/]", value):
        raise ValueError(f"{what} glob {value!r} must not leave the project ('..')")
    return value


def _regex(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} needs a non-empty regex")
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"invalid regex {value!r} in {what}: {exc}") from exc
    return value


def validate_action_check(kind: str, value: object, path: str | None) -> None:
    """Raise ``ValueError`` (one line, naming the fix) when an action check is malformed."""
    if kind in CONTENT_KINDS:
        if path is None:
            raise ValueError(f"{kind} needs a path (a glob of the file to read after the attempt)")
        _glob(path, f"{kind} path")
        _regex(value, kind)
        return
    if path is not None:
        raise ValueError(f"{kind} takes no path; put the glob or command in value")
    if kind in COMMAND_KINDS:
        _regex(value, kind)
    elif kind in PATH_KINDS:
        _glob(value, kind)
    elif kind == "passes_after":
        if not isinstance(value, str) or not value.strip() or "\n" in value:
            raise ValueError("passes_after needs one command line, like 'pytest -q'")
    else:
        raise ValueError(f"not an action check: {kind}")
