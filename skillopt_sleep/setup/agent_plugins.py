"""The table of the newer agents' plugin installers, and `--agents`.

One row per agent of :mod:`skillopt_sleep.plugin_places`: how its plugin is installed, and the
agent's own command that removes it when uninstall cannot simply revert the recorded files.
The agent registry (``harvest/agents``) can take these rows over once it carries an installer.
"""

from __future__ import annotations

from collections.abc import Callable
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

INSTALLERS: dict[str, Installer] = {
    "copilot": copilot.install_copilot,
    "opencode": install_opencode,
    "gemini": gemini.install_gemini,
    "qwen": install_qwen,
    "pi": pi.install_pi,
}


def _fallback(ctx: Ctx, agent: str) -> tuple[str, ...] | None:
    """The agent's own uninstall command (None where removing our files is the whole job)."""
    return {
        "copilot": copilot.UNINSTALL,
        "gemini": gemini.UNINSTALL,
        "pi": pi.uninstall_argv(ctx),
    }.get(agent)


def _fallback_names() -> tuple[str, ...]:
    return ("copilot", "gemini", "pi")  # installed through their own CLI


def install_agent_plugins(ctx: Ctx, source: Path | None, wanted: tuple[str, ...] | None) -> None:
    """Install the plugin of each agent ``wanted`` (None: each one present on this machine)."""
    for place in PLACES:
        chosen = place.name in wanted if wanted is not None else place.present(ctx.env, ctx.which)
        if not chosen:
            if wanted is None:
                ctx.say(f"{place.label.lower()}: not found; skipped")
            continue
        if ctx.manifest.has("agent-plugin", place.name):
            if source is None or _current(ctx, source, place.name):
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
        if place.name in _fallback_names() and not ctx.dry and ctx.which(place.binary) is None:
            raise SetupFailed(
                f"--agents {place.name}: the {place.binary} CLI is not on PATH, and its plugin "
                "is installed through it",
                hint=f"install {place.label} first, or leave {place.name} out of --agents",
            )
        INSTALLERS[place.name](ctx, source)


def _current(ctx: Ctx, source: Path, agent: str) -> bool:
    """Our installed copy of ``agent``'s plugin is the one in ``source``."""
    if agent == "opencode":
        js = Path("plugins", "opencode", "plugins", f"{NAME}.js")
        installed = opencode_home(ctx.env) / "plugins" / f"{NAME}.js"
        return installed.is_file() and installed.read_bytes() == (source / js).read_bytes()
    copy = ctx.layout.own_dir / "plugins" / agent
    return copy.is_dir() and tree_sum(copy) == tree_sum(source / "plugins" / agent)


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
        argv = _fallback(ctx, e.value)
        if untouched(ctx, e.value) or argv is None:
            return True
        ctx.say(f"{e.value}: its files changed since the install; asking {e.value} to remove it")
        return ctx.run(list(argv), timeout=300).ok
    if e.kind in ("agent-path", "agent-backup"):
        revert(ctx, e)
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
