"""The check before `done`: the command the user is told to type runs and says its version, run
as the user will run it; and how to type it in this terminal, whose PATH may not have its
directory yet (a new login adds it, this terminal does not)."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from .command_path import shim_body
from .context import Ctx, SetupFailed
from .engine import expected_command
from .layout import NAME


@dataclass(frozen=True)
class Verified:
    """The engine as it answered: its version, the command line that runs it in this terminal,
    and the note to show when that is not the bare name."""

    version: str
    typed: str
    note: str = ""


def verify(ctx: Ctx, engine: Path | None) -> Verified:
    """Run the installed command with ``--version``; raise, naming the fix, when it does not
    answer as the engine does."""
    if engine is None:
        raise _no_command(ctx)
    command = user_command(ctx, engine)
    # On Windows the .cmd shim only hands over to the engine, which a process can start directly.
    done = ctx.ask([engine if ctx.layout.windows else command, "--version"], timeout=120)
    words = done.stdout.split()
    if not (done.ok and len(words) == 2 and words[0] == NAME):
        raise SetupFailed(
            f"the installed command does not run: {command} --version: {done.last_line()}",
            hint=_fix(ctx),
        )
    ctx.say(f"checked: {command} --version says {NAME} {words[1]}")
    typed, note = in_this_terminal(ctx, command, engine)
    return Verified(words[1], typed, note)


def user_command(ctx: Ctx, engine: Path) -> Path:
    """The file the user runs: a link (ours, pipx's or uv's) to ``engine`` when there is one."""
    lay = ctx.layout
    if lay.windows:
        link = lay.command_link
        ours = link.is_file() and link.read_bytes() == shim_body(engine).encode("utf-8")
        return link if ours else engine
    links = [lay.command_link]
    links += [
        Path(ctx.env[v]) / NAME for v in ("PIPX_BIN_DIR", "UV_TOOL_BIN_DIR") if ctx.env.get(v)
    ]
    real = os.path.realpath(engine)
    return next((p for p in links if p.is_symlink() and os.path.realpath(p) == real), engine)


def in_this_terminal(ctx: Ctx, command: Path, engine: Path) -> tuple[str, str]:
    """The command line that runs ``command`` here, and a note when it is not the bare name."""
    dirs = ctx.env.get("PATH", "").split(os.pathsep)
    if ctx.layout.windows:
        if str(command.parent).lower() in (d.lower() for d in dirs):
            return NAME, ""
        shown = f'"{command}"' if " " in str(command) else str(command)
        return shown, f"this terminal's PATH does not have {command.parent}: run {shown}"
    found = ctx.which(NAME)
    if found and os.path.realpath(found) == os.path.realpath(engine):
        return NAME, ""
    shown = _shown(command, ctx.layout.home)
    if found:
        return shown, f"this terminal's PATH finds another {NAME} first ({found}): run {shown}"
    home_rel = _under(command.parent, ctx.layout.home)
    bin_dir = f"$HOME/{home_rel}" if home_rel else str(command.parent)
    return shown, (
        f"this terminal's PATH does not have {command.parent} yet: run {shown}, "
        f'or first: export PATH="{bin_dir}:$PATH"'
    )


def _shown(command: Path, home: Path) -> str:
    """``~/.local/bin/skillopt-sleep`` when that is how a shell types it, else the quoted path."""
    rel = _under(command, home)
    if rel and shlex.quote(rel) == rel:
        return f"~/{rel}"
    return shlex.quote(str(command))


def _under(path: Path, home: Path) -> str:
    return path.relative_to(home).as_posix() if path.is_relative_to(home) else ""


def _no_command(ctx: Ctx) -> SetupFailed:
    ours = ctx.manifest.find("package")
    if not ours:
        return SetupFailed(
            f"{NAME} is installed (not by this script, above), but it has no command to run",
            hint=_fix(ctx),
        )
    tool, python = ours[-1].value, ours[-1].extra
    return SetupFailed(
        f"the engine was installed with {tool}, but its command "
        f"{expected_command(ctx, tool, python)} is not there",
        hint=_fix(ctx),
    )


def _fix(ctx: Ctx) -> str:
    """One line naming the fix: reinstall what is ours; repair or remove what is not."""
    script = ctx.env.get("SKILLOPT_SLEEP_INSTALLER") or f"{NAME} setup"
    again, uninstall = {
        "install.sh": ("sh install/install.sh", "--uninstall"),
        "install.ps1": (r"install\install.ps1", "-Uninstall"),
    }.get(script, (f"{NAME} setup", "--uninstall"))
    if not ctx.manifest.find("package"):
        return f"it was installed before, not by this script: repair or remove it, then run {again}"
    return f"reinstall it: {again} {uninstall}, then {again}"
