"""`--uninstall`: the manifest replayed newest first. A step that fails stays in the manifest
(and the command exits non-zero), so running it again finishes the job; what the user changed
since (a skill edited, another package in pipx, Claude Code used) is left in place."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from .agent_plugins import undo_agent
from .claude import CLAUDE_ENV, claude_paths, remove_leftovers
from .codex import remove_codex
from .command_path import remove_block
from .context import Ctx, SetupFailed
from .layout import NAME, engine_dirs
from .manifest import Entry
from .schedule_entry import unschedule_own_job
from .tool_paths import tool_holds_others
from .tree import remove_deepest_first

ENGINE_UNINSTALL = {"pipx": ["pipx", "uninstall", NAME], "uv": ["uv", "tool", "uninstall", NAME]}


def uninstall(ctx: Ctx) -> None:
    if not ctx.manifest.exists():
        ctx.say(f"nothing to uninstall: no manifest at {ctx.manifest.path}")
        return
    entries = ctx.manifest.entries()[::-1]
    unschedule_own_job(ctx, entries)
    before_claude = claude_paths(ctx) if _touches_claude(entries) else set()
    failed = _undo_all(ctx, entries)
    if failed:
        ctx.manifest.rewrite(failed[::-1])
        raise SetupFailed("some steps failed (above)", hint="fix them and run --uninstall again")
    if ctx.dry:
        ctx.say(f"would remove: {ctx.manifest.path}")
        return
    if _touches_claude(entries):
        recorded = {Path(e.value) for e in entries if e.kind == "claude-path"}
        remove_leftovers(ctx, recorded, claude_paths(ctx) - before_claude)
    _remove_tool_dirs(ctx, [e for e in entries if e.kind == "tool-path"])
    ctx.manifest.remove()
    remove_deepest_first({Path(e.value) for e in entries if e.kind == "dir"})  # rmdir: if empty
    data = engine_dirs(ctx.layout, ctx.env, sys.platform)["data"]
    kept = (
        f"your task log and nights stay in {data} (delete that directory to forget them)"
        if data.is_dir()
        else "no task log was written"
    )
    ctx.say(f"uninstalled; {kept}.")


def _undo_all(ctx: Ctx, entries: list[Entry]) -> list[Entry]:
    """Undo every entry in order; returns those that failed. The distributions `pip --user` added
    for one Python go in one `pip uninstall` (one by one only when that fails, to know which stay)."""
    failed: list[Entry] = []
    i = 0
    while i < len(entries):
        batch = _pip_batch(entries, i)
        if len(batch) > 1 and _pip_uninstall(ctx, batch[0].extra, [e.value for e in batch]):
            i += len(batch)
            continue
        for e in batch or [entries[i]]:
            if not _undo(ctx, e):
                failed.append(e)
        i += max(len(batch), 1)
    return failed


def _pip_batch(entries: list[Entry], start: int) -> list[Entry]:
    """The run of pip-dist entries of one Python from ``start`` on (empty when it is another kind)."""
    batch: list[Entry] = []
    for e in entries[start:]:
        if e.kind != "pip-dist" or (batch and e.extra != batch[0].extra):
            break
        batch.append(e)
    return batch


def _pip_uninstall(ctx: Ctx, python: str, dists: list[str]) -> bool:
    return ctx.run([python or sys.executable, "-m", "pip", "uninstall", "-q", "-y", *dists]).ok


def _touches_claude(entries: list[Entry]) -> bool:
    return any(e.kind.startswith("claude-") for e in entries)


def _undo(ctx: Ctx, e: Entry) -> bool:
    """Undo one change; False when it failed (it then stays in the manifest)."""
    kind, value, extra = e.kind, e.value, e.extra
    if kind == "schedule":
        return _unschedule(ctx, extra)
    if kind == "skill":
        remove_codex(ctx, Path(value), extra)
    elif kind in ("claude-plugin", "claude-marketplace"):
        args = ["uninstall", value] if kind == "claude-plugin" else ["marketplace", "remove", value]
        done = ctx.run(["claude", "plugin", *args], env={**ctx.env, **CLAUDE_ENV}, timeout=300)
        if kind == "claude-marketplace":  # our copy, orphaned by the removal
            _rm_tree(ctx, ctx.layout.claude_dir / "plugins" / "cache" / value)
        return done.ok
    elif kind.startswith("agent-"):
        return undo_agent(ctx, e)
    elif kind in ("claude-copy", "plugin-copy"):
        _rm_tree(ctx, Path(value))
    elif kind == "package":
        return _uninstall_engine(ctx, value, extra)
    elif kind == "pip-dist":
        return _pip_uninstall(ctx, extra, [value])
    elif kind == "file" and not ctx.dry:
        Path(value).unlink(missing_ok=True)
    elif kind == "link":
        link = Path(value)
        if link.is_symlink() and os.readlink(link) == extra and not ctx.dry:
            link.unlink()
    elif kind == "profile":
        remove_block(ctx, Path(value), extra)
    return True  # dir, tool-path, claude-path: handled once every step is undone


def _unschedule(ctx: Ctx, engine: str) -> bool:
    if not Path(engine).exists():
        ctx.say(
            f"schedule: the engine {engine} is gone; run '{NAME} unschedule' with another "
            "installation to remove the nightly job"
        )
        return True
    return ctx.run([engine, "unschedule"], timeout=120).ok


def _uninstall_engine(ctx: Ctx, tool: str, python: str) -> bool:
    if tool in ENGINE_UNINSTALL:
        return ctx.run(ENGINE_UNINSTALL[tool]).ok
    if tool == "venv":
        _rm_tree(ctx, ctx.layout.engine_venv)
    return True  # pip: its distributions are removed one by one (pip-dist lines)


def _rm_tree(ctx: Ctx, path: Path) -> None:
    if not path.exists():
        return
    if ctx.dry:
        ctx.say(f"would remove: {path}")
        return
    ctx.say(f"+ rm -r {path}")
    shutil.rmtree(path)


def _remove_tool_dirs(ctx: Ctx, entries: list[Entry]) -> None:
    """The directories pipx or uv made for our install (newest, deepest first), once that tool
    holds no other package."""
    others = {t: tool_holds_others(ctx, t) for t in {e.extra.split("/")[0] for e in entries}}
    for e in entries:
        tool, _, how = e.extra.partition("/")
        path = Path(e.value)
        if how == "rmdir":
            remove_deepest_first({path} if path.is_dir() else set())
        elif how == "rm" and not others.get(tool) and path.exists():
            shutil.rmtree(path, ignore_errors=True)
