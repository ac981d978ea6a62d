"""Scoring action checks on what an attempt *did*: a recorded attempt (its actions, and the text
its writes put in files) and an agent replay (its actions and the tree it left) alike.

A check that cannot be scored on an attempt (a file's content after a text replay, a command to
run afterwards when there is no tree) is *not applicable*: ``None``, never a 0. Reasons speak of
what went wrong, never of the check's pattern.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..action_models import COMMAND_KINDS, CONTENT_KINDS, PATH_KINDS, is_change
from ..models import Action, Check

# Runs one command line in a tree; returns its exit status (the IO is injected by the caller).
CommandRunner = Callable[[str, Path], int]
_MAX_READ = 2_000_000  # a file larger than this is not searched (it is no source file)


@dataclass(frozen=True)
class Effects:
    """What an attempt did: its actions in order and, for a replay, the tree it left."""

    actions: tuple[Action, ...] = ()
    tree: Path | None = None
    run: CommandRunner | None = None
    from_text: bool = False  # a text replay: commands are only what the answer says it would run


def glob_match(glob: str, path: str) -> bool:
    """Whether a project-relative ``path`` falls under ``glob`` (a plain name also matches the
    directory of that name and everything in it, and a file of that name in any directory)."""
    while path.startswith("./"):
        path = path[2:]
    glob = glob.rstrip("/")
    if fnmatch.fnmatchcase(path, glob) or fnmatch.fnmatchcase(path, glob + "/*"):
        return True
    if glob.endswith("/**") and (path == glob[:-3] or path.startswith(glob[:-2])):
        return True
    if "/" not in glob:  # ".env" matches "config/.env"; "node_modules" any file under one
        parts = path.split("/")
        return any(fnmatch.fnmatchcase(p, glob) for p in parts)
    return False


def _command_hit(check: Check, effects: Effects, text: str) -> bool:
    flags = 0 if check.case_sensitive else re.IGNORECASE
    pattern = re.compile(str(check.value), flags | re.MULTILINE)
    if effects.from_text:
        return pattern.search(text) is not None
    # a command is read as written and as the shell runs it, its quotes aside: `-name '*.md'`
    # runs what a check mined from the words ``-name *.md`` asks for
    return any(
        pattern.search(a.command) or pattern.search(re.sub(r"[\'\"]", "", a.command))
        for a in effects.actions
        if a.kind == "command"
    )


def _paths(effects: Effects, read: bool) -> list[str]:
    """The paths the attempt read (``read``), else those it changed: a write, edit or delete
    whose tool call failed changed nothing."""
    return [
        a.path for a in effects.actions if a.path and (a.kind == "read" if read else is_change(a))
    ]


def _recorded_content(effects: Effects, glob: str) -> list[str] | None:
    """What the attempt's own writes put in the files under ``glob`` (None: unknown)."""
    texts: dict[str, str] = {}
    for action in effects.actions:
        if not glob_match(glob, action.path) or action.failed:
            continue
        if action.kind == "write":
            texts[action.path] = action.content
        elif action.kind == "edit" and action.path in texts:
            texts[action.path] += "\n" + action.content
        elif action.kind == "delete":
            texts[action.path] = ""
        elif action.kind == "edit":
            return None  # an edit of a file whose whole text the record never saw
    return list(texts.values()) if texts else None


def _tree_content(tree: Path, glob: str) -> list[str]:
    out: list[str] = []
    for path in sorted(tree.rglob("*")):
        rel = path.relative_to(tree).as_posix()
        if rel.startswith(".git/") or not glob_match(glob, rel):
            continue
        if path.is_file() and not path.is_symlink() and path.stat().st_size <= _MAX_READ:
            out.append(path.read_text(encoding="utf-8", errors="replace"))
    return out


def _content(check: Check, effects: Effects) -> tuple[bool, str] | None:
    glob = str(check.path)
    texts = (
        _tree_content(effects.tree, glob)
        if effects.tree is not None
        else _recorded_content(effects, glob)
    )
    if texts is None:
        return None
    flags = 0 if check.case_sensitive else re.IGNORECASE
    found = any(re.search(str(check.value), t, flags | re.MULTILINE) for t in texts)
    if check.kind == "file_contains":
        return found, "a file the user cares about lacks what the user asked for"
    return not found, "a file contains something the user rejected"


def action_check(check: Check, effects: Effects, text: str = "") -> tuple[bool, str] | None:
    """``(passed, reason)`` of one action check on an attempt, or None when not applicable."""
    kind = check.kind
    if kind in COMMAND_KINDS:
        hit = _command_hit(check, effects, text)
        if kind == "ran":
            return hit, "did not run the command the user expects"
        return not hit, "ran a command the user does not want run"
    if effects.from_text:
        return None  # a text replay touches no file
    if kind in PATH_KINDS:
        hit = any(glob_match(str(check.value), p) for p in _paths(effects, kind == "never_read"))
        if kind == "changed":
            return hit, "did not change the files the user expects changed"
        if kind == "untouched":
            return not hit, "changed files the user wants left alone"
        return not hit, "read a file the user does not want read"
    if kind in CONTENT_KINDS:
        return _content(check, effects)
    if kind == "passes_after":
        if effects.tree is None or effects.run is None:
            return None
        return effects.run(
            str(check.value), effects.tree
        ) == 0, "the project's own check fails afterwards"
    raise ValueError(f"not an action check: {kind}")


def recorded(actions: Sequence[Action]) -> Effects:
    """The effects of a recorded attempt (from the task log)."""
    return Effects(actions=tuple(actions))
