"""The directories pipx and uv create on first use, recorded before the tool first runs, so
uninstall takes exactly those away (once the tool holds no other package of the user's)."""

from __future__ import annotations

from pathlib import Path

from .context import Ctx
from .layout import NAME
from .tree import missing_dirs

# "rm": the tool's own directory, removed whole once the tool holds no other package;
# "rmdir": a shared one, removed only when empty.
ToolPath = tuple[Path, str]


def tool_paths(ctx: Ctx, tool: str) -> list[ToolPath]:
    env, home = ctx.env, ctx.layout.home
    data = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
    state = Path(env.get("XDG_STATE_HOME") or home / ".local" / "state")
    cache = Path(env.get("XDG_CACHE_HOME") or home / ".cache")
    paths: list[ToolPath] = []
    if tool == "pipx":
        paths += [
            (Path(env.get("PIPX_HOME") or data / "pipx"), "rm"),
            (state / "pipx", "rm"),
            (cache / "pipx", "rm"),
            (data / "man" / "man1", "rmdir"),
            (data / "man", "rmdir"),
        ]
    elif tool == "uv":
        paths += [
            (Path(env.get("UV_TOOL_DIR") or data / "uv" / "tools"), "rm"),
            (data / "uv", "rm"),
            (cache / "uv", "rm"),
        ]
    return [*paths, (ctx.layout.user_bin, "rmdir")]


def absent_tool_paths(ctx: Ctx, tool: str) -> list[ToolPath]:
    """The tool's directories (and missing parents) that do not exist yet. Taken before any call
    of the tool: even `pipx list` creates directories."""
    out: list[ToolPath] = []
    for path, how in tool_paths(ctx, tool):
        out += [(d, how if d == path else "rmdir") for d in missing_dirs(path)]
    return out


def record_tool_paths(ctx: Ctx, tool: str, absent: list[ToolPath]) -> None:
    for d, how in absent:
        if not ctx.manifest.has("tool-path", str(d)):
            ctx.manifest.add("tool-path", d, f"{tool}/{how}")


def tool_holds_others(ctx: Ctx, tool: str) -> bool:
    """Does pipx or uv still hold a package other than ours (then its directories stay)?"""
    argv = ["pipx", "list", "--short"] if tool == "pipx" else ["uv", "tool", "list"]
    if not ctx.which(argv[0]):
        return False
    out = ctx.ask(argv).stdout
    names = [
        ln.split()[0] for ln in out.splitlines() if ln.strip() and not ln.startswith(("-", "No "))
    ]
    return any(n != NAME for n in names)
