"""The Codex skill: a copy of ``plugins/codex/skills/skillopt-sleep`` in ``~/.agents/skills``,
checksummed, so uninstall never deletes a copy the user has changed since."""

from __future__ import annotations

import shutil
from pathlib import Path

from .context import Ctx
from .tree import shell_tree_sum, tree_sum


def install_codex(ctx: Ctx, source: Path) -> None:
    src = source / "plugins" / "codex" / "skills" / "skillopt-sleep"
    dest = ctx.layout.codex_skill
    total = tree_sum(src)
    if dest.is_dir() and tree_sum(dest) == total:
        ctx.say(f"codex: skill already installed at {dest}")
        return
    ours = ctx.manifest.has("skill", str(dest))
    if dest.exists() and not ours:
        ctx.say(f"codex: {dest} exists and was not installed by this script; leaving it")
        return
    ctx.make_dirs(dest.parent)
    if ctx.dry:
        ctx.say(f"would copy: {src} -> {dest}")
        return
    if ours:
        shutil.rmtree(dest, ignore_errors=True)
        ctx.manifest.drop("skill", str(dest))
    ctx.say(f"+ copy {src} -> {dest}")
    shutil.copytree(src, dest)  # symlinks followed: the launcher is one file in the checkout
    ctx.manifest.add("skill", dest, total)


def remove_codex(ctx: Ctx, dest: Path, total: str) -> None:
    # A decimal checksum is the shell installer's: its installations uninstall exactly too.
    measure = shell_tree_sum if total.isdigit() else tree_sum
    if dest.is_dir() and measure(dest) != total:
        ctx.say(f"codex: {dest} changed since it was installed; leaving it")
    elif dest.is_dir():
        if ctx.dry:
            ctx.say(f"would remove: {dest}")
        else:
            ctx.say(f"+ rm -r {dest}")
            shutil.rmtree(dest)
