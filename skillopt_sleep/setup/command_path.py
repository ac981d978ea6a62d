"""The command on the user's PATH: ``~/.local/bin/skillopt-sleep`` (a symlink to the engine, a
``.cmd`` shim on Windows) and, when a new login shell would not find that directory, a marked
block in the shell's profile that adds it (uninstall removes exactly that block).

The check before `done`: the command the user is told to type runs and says its version, run
as the user will run it; and how to type it in this terminal, whose PATH may not have its
directory yet (a new login adds it, this terminal does not).
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from .context import Ctx, SetupFailed
from .engine import expected_command
from .layout import NAME

BEGIN = f"# >>> {NAME} >>> added by its installer; `install.sh --uninstall` removes this block"
END = f"# <<< {NAME} <<<"


def link_command(ctx: Ctx, engine: Path) -> None:
    """Put the command in ``~/.local/bin`` unless something else is there already."""
    link = ctx.layout.command_link
    body = shim_body(engine)
    if ctx.layout.windows:
        if link.exists() and link.read_bytes() == body.encode("utf-8"):
            return
    elif link.is_symlink() and os.readlink(link) == str(engine):
        return
    if link.exists() or link.is_symlink():
        ctx.say(
            f"engine: {link} exists and is not ours; leaving it (the plugins find the "
            "engine anyway)"
        )
        return
    ctx.make_dirs(link.parent)
    if ctx.dry:
        ctx.say(f"would link: {link} -> {engine}")
        return
    if ctx.layout.windows:
        link.write_text(body, encoding="utf-8", newline="")
        ctx.manifest.add("file", link)
    else:
        link.symlink_to(engine)
        ctx.manifest.add("link", link, engine)
    ctx.say(f"+ ln -s {engine} {link}")


def shim_body(engine: Path) -> str:
    """The Windows ``.cmd`` shim that runs ``engine`` with the arguments it was given."""
    return f'@"{engine}" %*\r\n'


def profile_for(ctx: Ctx) -> Path | None:
    """The file a new login shell of the user's shell reads, or None for a shell we do not edit."""
    home, shell = ctx.layout.home, Path(ctx.env.get("SHELL") or "/bin/sh").name
    if shell == "zsh":
        return home / ".zprofile"
    if shell == "bash":
        # bash -l reads the first of these that exists, and only that one.
        return next(
            (home / f for f in (".bash_profile", ".bash_login", ".profile") if (home / f).exists()),
            home / ".profile",
        )
    if shell in ("sh", "dash", "ksh", "ash"):
        return home / ".profile"
    return None


def login_path_has(ctx: Ctx, directory: Path) -> bool:
    """Would a new login shell find ``directory`` on its PATH?"""
    shell = ctx.env.get("SHELL") or "/bin/sh"
    env = {k: v for k, v in ctx.env.items() if k in ("HOME", "USER", "LOGNAME", "SHELL", "LANG")}
    seen = ctx.ask([shell, "-lc", 'printf "%s" "$PATH"'], env=env, timeout=20)
    return seen.ok and str(directory) in seen.stdout.split(":")


def ensure_on_path(ctx: Ctx) -> str:
    """Make ``~/.local/bin`` reachable from a new login shell; returns the line to tell the user."""
    bin_dir = ctx.layout.user_bin
    if ctx.layout.windows:
        if str(bin_dir).lower() in ctx.env.get("PATH", "").lower().split(os.pathsep):
            return ""
        return f"note: add {bin_dir} to your PATH (Settings > Environment Variables) to run {NAME}"
    if str(bin_dir) in ctx.env.get("PATH", "").split(os.pathsep):
        return ""
    if ctx.manifest.find("profile") or login_path_has(ctx, bin_dir):
        # Debian's and Ubuntu's ~/.profile add it once it exists: at the next login, not here.
        return f"{NAME} is in {bin_dir}, which a new login shell puts on PATH"
    profile = profile_for(ctx)
    if profile is None:
        return f"note: add {bin_dir} to your shell's PATH to run {NAME}"
    if ctx.dry:
        return f"would add {bin_dir} to PATH in {profile}"
    created = not profile.exists()
    block = _block(bin_dir, ctx.layout.home)
    old = "" if created else profile.read_text(encoding="utf-8")
    sep = "" if not old or old.endswith("\n") else "\n"
    profile.write_text(old + sep + block, encoding="utf-8")
    how = "created" if created else "appended" + ("-newline" if sep else "")
    ctx.manifest.add("profile", profile, how)
    return (
        f"{NAME} is in {bin_dir}, added to PATH in {profile}: open a new terminal, or run: "
        f". {profile}"
    )


def _block(bin_dir: Path, home: Path) -> str:
    shown = str(bin_dir)
    if bin_dir.is_relative_to(home):
        shown = "$HOME/" + bin_dir.relative_to(home).as_posix()
    line = f'case ":$PATH:" in *":{shown}:"*) ;; *) PATH="{shown}:$PATH"; export PATH ;; esac'
    return f"{BEGIN}\n{line}\n{END}\n"


def remove_block(ctx: Ctx, profile: Path, how: str) -> None:
    """Take our block out of ``profile``; delete the file if we created it and it is now empty."""
    try:
        text = profile.read_text(encoding="utf-8")
    except FileNotFoundError:
        return
    start = text.find(BEGIN + "\n")
    end = text.find(END + "\n", start)
    if start < 0 or end < 0:
        ctx.say(f"path: no {NAME} block in {profile} any more; nothing to remove")
        return
    if how == "appended-newline" and text[:start].endswith("\n"):
        start -= 1  # the line break added before the block
    rest = text[:start] + text[end + len(END) + 1 :]
    if ctx.dry:
        ctx.say(f"would remove the {NAME} block from {profile}")
    elif how == "created" and not rest.strip():
        profile.unlink()
    else:
        profile.write_text(rest, encoding="utf-8")


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
