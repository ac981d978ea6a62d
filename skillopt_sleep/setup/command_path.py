"""The command on the user's PATH: ``~/.local/bin/skillopt-sleep`` (a symlink to the engine, a
``.cmd`` shim on Windows) and, when a new login shell would not find that directory, a marked
block in the shell's profile that adds it (uninstall removes exactly that block)."""

from __future__ import annotations

import os
from pathlib import Path

from .context import Ctx
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
