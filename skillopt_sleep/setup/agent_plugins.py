"""The newer agents' plugins: one row per agent, and `--agents`.

One :class:`Plugin` per agent of :mod:`skillopt_sleep.plugin_places` (where its home and our
installed hook are): how its plugin is installed, how to tell the installed copy is this
checkout's, and the agent's own command that removes it when uninstall cannot simply revert the
recorded files. Another agent is one row here and one in ``plugin_places``.

Why not rows of the agent registry (``harvest/agents``), as agent replay reads it: setup runs
from a checkout with a bare Python before the engine's dependencies exist (``install.sh`` runs
``python -m skillopt_sleep.setup``), and the registry's parsers import them. So the rows stay
here, standard library only, and a test holds them to the registry: every row names a
registered agent under the registry's label, and every registered agent with a plugin of its
own has a row.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..plugin_places import BY_NAME, NAME, PLACES, opencode_home
from . import copilot, gemini, pi
from .agent_diff import revert, untouched
from .context import Ctx, SetupFailed
from .manifest import Entry
from .opencode import install_opencode
from .qwen import install_qwen
from .tree import tree_sum

Installer = Callable[[Ctx, Path], None]


def _same_tree(ctx: Ctx, source: Path, agent: str) -> bool:
    """Our copy of the plugin (under the own dir) is the checkout's."""
    copy = ctx.layout.own_dir / "plugins" / agent
    return copy.is_dir() and tree_sum(copy) == tree_sum(source / "plugins" / agent)


def _same_opencode_file(ctx: Ctx, source: Path, agent: str) -> bool:
    """OpenCode loads one JavaScript file from its config directory, which runs the launcher of
    our copy: both are the checkout's."""
    js = Path("plugins", "opencode", "plugins", f"{NAME}.js")
    installed = opencode_home(ctx.env) / "plugins" / f"{NAME}.js"
    same = installed.is_file() and installed.read_bytes() == (source / js).read_bytes()
    return same and _same_tree(ctx, source, agent)


@dataclass(frozen=True)
class Plugin:
    """One agent's plugin. ``uninstall(ctx)``: the agent's own command that removes it, for a
    plugin installed through the agent's CLI (None: reverting our recorded files is the whole
    job); such a plugin needs that CLI on PATH to be installed. ``current(ctx, source, name)``:
    the installed copy is the one in the checkout ``source``."""

    install: Installer
    uninstall: Callable[[Ctx], tuple[str, ...]] | None = None
    current: Callable[[Ctx, Path, str], bool] = _same_tree


PLUGINS: dict[str, Plugin] = {
    "copilot": Plugin(copilot.install_copilot, lambda ctx: copilot.UNINSTALL),
    "opencode": Plugin(install_opencode, current=_same_opencode_file),
    "gemini": Plugin(gemini.install_gemini, lambda ctx: gemini.UNINSTALL),
    "qwen": Plugin(install_qwen),
    "pi": Plugin(pi.install_pi, pi.uninstall_argv),
}


def install_agent_plugins(ctx: Ctx, source: Path | None, wanted: tuple[str, ...] | None) -> None:
    """Install the plugin of each agent ``wanted`` (None: each one present on this machine)."""
    for place in PLACES:
        chosen = place.name in wanted if wanted is not None else place.present(ctx.env, ctx.which)
        if not chosen:
            if wanted is None:
                ctx.say(f"{place.label.lower()}: not found; skipped")
            continue
        if ctx.manifest.has("agent-plugin", place.name):
            if source is None or PLUGINS[place.name].current(ctx, source, place.name):
                ctx.say(f"{place.label.lower()}: plugin already installed")
                continue
            ctx.say(f"{place.label.lower()}: the plugin changed in this checkout; reinstalling it")
            if not ctx.dry:
                _remove(ctx, place.name)
        if place.installed(ctx.env) is not None:
            ctx.say(f"{place.label.lower()}: skillopt-sleep is installed (not by this script); ok")
            continue
        if source is None:
            raise SetupFailed(
                f"the {place.label} plugin files come with a checkout",
                hint="run sh install/install.sh from a skillopt-sleep checkout",
            )
        plugin = PLUGINS[place.name]
        if plugin.uninstall is not None and not ctx.dry and ctx.which(place.binary) is None:
            raise SetupFailed(
                f"--agents {place.name}: the {place.binary} CLI is not on PATH, and its plugin "
                "is installed through it",
                hint=f"install {place.label} first, or leave {place.name} out of --agents",
            )
        plugin.install(ctx, source)


def _remove(ctx: Ctx, agent: str) -> None:
    """Undo what the last install of ``agent``'s plugin recorded, and forget it."""
    mine = [
        e
        for e in ctx.manifest.entries()
        if (e.kind == "agent-plugin" and e.value == agent)
        or (e.kind in ("agent-path", "agent-backup") and e.extra.startswith(f"{agent}/"))
    ]
    for e in mine[::-1]:
        if not undo_agent(ctx, e):
            raise SetupFailed(
                f"{agent}: its plugin could not be removed for the update",
                hint="run the installer with --uninstall, then install again",
            )
    ctx.manifest.rewrite([e for e in ctx.manifest.entries() if e not in mine])


def undo_agent(ctx: Ctx, e: Entry) -> bool:
    """Undo one line this table's installers wrote; False when it failed."""
    if e.kind == "agent-plugin":
        uninstall = PLUGINS[e.value].uninstall if e.value in PLUGINS else None
        if untouched(ctx, e.value) or uninstall is None:
            return True
        argv = uninstall(ctx)
        ctx.say(f"{e.value}: its files changed since the install; asking {e.value} to remove it")
        return ctx.run(list(argv), timeout=300).ok
    if e.kind in ("agent-path", "agent-backup"):
        revert(ctx, e)
    if e.kind == "agent-cache" and Path(e.value).is_dir():
        if ctx.dry:
            ctx.say(f"would remove: {e.value}")
        else:
            ctx.say(f"+ rm -r {e.value}")
            shutil.rmtree(e.value)
    return True


def parse_agents(text: str) -> tuple[str, ...]:
    """``--agents copilot,pi`` (``none``: no newer agent); an unknown name lists the choices."""
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if names == ("none",):
        return ()
    unknown = [n for n in names if n not in BY_NAME]
    if unknown or not names:
        raise UsageError(
            f"--agents: unknown agent {', '.join(unknown) or repr(text)}",
            hint=f"name some of {', '.join(BY_NAME)}, comma-separated, or none",
        )
    return names
