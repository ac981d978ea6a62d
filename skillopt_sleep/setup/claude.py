"""The Claude Code plugin, installed through `claude plugin` from a marketplace copy the
installation owns (so it keeps working when the checkout moves or is deleted).

`claude` writes its own bookkeeping on first use (``~/.claude.json``, a backup of it, the
plugin registry): every path our calls created is recorded, and removed again on uninstall when
Claude Code holds nothing else; when the user has used Claude Code since, only what is empty goes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from .context import Ctx, SetupFailed
from .layout import MARKET, PLUGIN_ID
from .tree import paths_under, remove_deepest_first, tree_sum

LAUNCHER = Path("plugins", "codex", "skills", "skillopt-sleep", "scripts", "skillopt-sleep")
CLAUDE_ENV = {"DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}


def claude_paths(ctx: Ctx) -> set[Path]:
    """Every path Claude Code keeps for this user: its config dir and ``~/.claude.json*``."""
    found = paths_under(ctx.layout.claude_dir)
    home = ctx.layout.home
    if home.is_dir():
        for entry in home.iterdir():
            if entry.name.startswith(".claude") and entry != ctx.layout.claude_dir:
                found |= paths_under(entry)
    return found


def claude(ctx: Ctx, *args: str) -> None:
    env = {**ctx.env, **CLAUDE_ENV}
    ctx.must(
        ctx.run(["claude", "plugin", *args], env=env, timeout=300),
        f"claude plugin {' '.join(args[:2])}",
    )


def has_plugin(ctx: Ctx) -> bool:
    """Read from Claude Code's own file: running `claude` would create files."""
    registry = ctx.layout.claude_dir / "plugins" / "installed_plugins.json"
    try:
        return f'"{PLUGIN_ID}"' in registry.read_text(encoding="utf-8")
    except OSError:
        return False


def install_claude(ctx: Ctx, source: Path) -> None:
    if not ctx.dry and not ctx.which("claude"):
        raise SetupFailed(
            "--claude: the claude CLI is not on PATH",
            hint="install Claude Code first, or pass --no-claude",
        )
    plugin = source / "plugins" / "claude-code"
    copy = ctx.layout.claude_market / "plugins" / "claude-code"
    fresh = not copy.is_dir() or tree_sum(copy) != tree_sum(plugin)
    ours = ctx.manifest.has("claude-plugin", PLUGIN_ID)
    if ours and not fresh and has_plugin(ctx):
        ctx.say(f"claude code: plugin {PLUGIN_ID} already installed")
        return
    if not ours and has_plugin(ctx):
        ctx.say(f"claude code: plugin {PLUGIN_ID} is installed (not by this script); leaving it")
        return
    if ctx.dry:
        ctx.say(f"would copy: {plugin} -> {copy}")
        ctx.say(f"would run: claude plugin marketplace add {ctx.layout.claude_market}")
        ctx.say(f"would run: claude plugin install {PLUGIN_ID}")
        return
    before = claude_paths(ctx)
    ctx.make_dirs(ctx.layout.own_dir)
    _stage_market(ctx, source)
    if ours:  # an upgrade: Claude Code re-reads the copy
        claude(ctx, "marketplace", "update", MARKET)
        claude(ctx, "update", PLUGIN_ID)
    else:
        if not ctx.manifest.has("claude-marketplace", MARKET):
            claude(ctx, "marketplace", "add", str(ctx.layout.claude_market))
            ctx.manifest.add("claude-marketplace", MARKET)
        claude(ctx, "install", PLUGIN_ID)
    _record_new(ctx, before)
    if not ours:
        ctx.manifest.add("claude-plugin", PLUGIN_ID)


def _stage_market(ctx: Ctx, source: Path) -> None:
    market = ctx.layout.claude_market
    ctx.say(f"+ copy {source / 'plugins' / 'claude-code'} -> {market / 'plugins'}")
    shutil.rmtree(market, ignore_errors=True)
    (market / ".claude-plugin").mkdir(parents=True)
    shutil.copy2(source / ".claude-plugin" / "marketplace.json", market / ".claude-plugin")
    plugin = market / "plugins" / "claude-code"
    shutil.copytree(source / "plugins" / "claude-code", plugin)
    # The launcher is one file, kept in the Codex skill; the Claude Code plugin links to it, and a
    # checkout without symlinks (Git on Windows) holds only the link's text: ship the file itself.
    shutil.copy2(source / LAUNCHER, plugin / "bin" / "skillopt-sleep")
    if not ctx.manifest.has("claude-copy", str(market)):
        ctx.manifest.add("claude-copy", market)


def _record_new(ctx: Ctx, before: set[Path]) -> None:
    known = {e.value for e in ctx.manifest.find("claude-path")}
    for p in sorted(claude_paths(ctx) - before):
        if str(p) not in known:
            ctx.manifest.add("claude-path", p)


def remove_leftovers(ctx: Ctx, recorded: set[Path], during: set[Path]) -> None:
    """After the plugin and marketplace are gone: what our `claude` calls created (``recorded``
    at install, ``during`` this uninstall). All of it when Claude Code holds nothing else;
    otherwise only what our calls left empty."""
    ours = recorded | during
    left = claude_paths(ctx)
    if left <= ours:
        remove_deepest_first(left)
        return
    remove_deepest_first({p for p in during if p.is_file()})
    for p in sorted(recorded, key=lambda q: len(q.parts), reverse=True):
        if p.is_dir() and not any(p.iterdir()):
            p.rmdir()
        elif p.is_file() and _json_is_empty(p):
            p.unlink()


def _json_is_empty(path: Path) -> bool:
    """Only empty objects/lists (and a format version): nothing of the user's."""

    def empty(v: object) -> bool:
        if isinstance(v, dict):
            return all(k == "version" or empty(x) for k, x in v.items())
        return isinstance(v, list) and not v

    try:
        return empty(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return False
