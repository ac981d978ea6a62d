"""An agent plugin installed as a recorded difference of the agent's home.

Whatever installs the plugin (the agent's own CLI, or a file we write), the agent's home is
read before and after: every path that appeared is a ``agent-path`` line (with the file's
checksum), every small file that changed is backed up and is an ``agent-backup`` line, and one
``agent-plugin`` line closes the step. Uninstall puts back exactly what was there, offline,
when nothing we recorded changed since; otherwise the agent's own uninstall command removes our
plugin first, and only what is still as we left it is reverted.

What the agent is pointed at is the installation's own copy of its plugin folder
(``<data>/plugins/<agent>``, :func:`stage_plugin`), not the checkout, so a plugin keeps working
when the checkout moves or is deleted; the launcher link inside it is replaced by the launcher
itself (a checkout without symlinks, Git on Windows, holds only the link's text).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from .claude import LAUNCHER
from .context import Ctx
from .manifest import Entry
from .tree import missing_dirs, paths_under

_SMALL = 1 << 20  # files up to this size are backed up; an agent's settings are far smaller
_DEPTH = 2  # ... when they lie this close to the agent's home (its settings, never its sessions)

Snapshot = dict[Path, "bytes | tuple[int, int] | None"]


def stage_plugin(ctx: Ctx, source: Path, agent: str) -> Path:
    """Copy ``plugins/<agent>`` of the checkout into the installation; returns the copy."""
    src = source / "plugins" / agent
    dest = ctx.layout.own_dir / "plugins" / agent
    if ctx.dry:
        ctx.say(f"would copy: {src} -> {dest}")
        return dest
    ctx.make_dirs(dest.parent)
    ctx.say(f"+ copy {src} -> {dest}")
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest, symlinks=True)
    launcher = dest / "bin" / "skillopt-sleep"
    if launcher.is_symlink() or launcher.exists():
        launcher.unlink()
        shutil.copy2(source / LAUNCHER, launcher)
    if not ctx.manifest.has("plugin-copy", str(dest)):
        ctx.manifest.add("plugin-copy", dest)
    return dest


def snapshot(top: Path) -> Snapshot:
    """Every path under ``top``: None for a directory, the bytes of a small shallow file, else
    its size and modification time."""
    out: Snapshot = {}
    for p in paths_under(top):
        if p.is_dir() and not p.is_symlink():
            out[p] = None
            continue
        st = p.lstat()
        shallow = len(p.relative_to(top).parts) <= _DEPTH
        small = st.st_size <= _SMALL and not p.is_symlink()
        out[p] = p.read_bytes() if shallow and small else (st.st_size, st.st_mtime_ns)
    return out


def file_sum(path: Path) -> str:
    """The checksum recorded for a path we created ("" for a directory or a link)."""
    if path.is_symlink():
        return "link-" + hashlib.sha256(os.readlink(path).encode()).hexdigest()[:16]
    if path.is_dir():
        return ""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def recorded(
    ctx: Ctx,
    agent: str,
    home: Path,
    install: Callable[[], None],
    caches: Sequence[Path] = (),
) -> None:
    """Run ``install`` and record what it did under ``home`` (and its missing ancestors), also
    when it fails. ``caches``: directories the agent's command fills outside its home (Copilot
    CLI unpacks itself into ``~/.cache/copilot``); one it creates is an ``agent-cache`` line,
    removed whole by uninstall, one that was there is left alone."""
    gone = missing_dirs(home)
    top = gone[0] if gone else home
    before = snapshot(top)
    new_caches = [(c, missing_dirs(c)) for c in caches]
    try:
        install()
    finally:  # a command that failed half-way may have written something: record it too
        for cache, missing in new_caches:
            if missing and cache.is_dir():
                for d in missing[:-1]:
                    ctx.record_dir(d)
                ctx.manifest.add("agent-cache", cache, f"{agent}/")
        _record(ctx, agent, top, before)


def _record(ctx: Ctx, agent: str, top: Path, before: Snapshot) -> None:
    after = paths_under(top)
    for p in sorted(after - before.keys()):
        ctx.manifest.add("agent-path", p, f"{agent}/{file_sum(p)}")
    for p, old in sorted(before.items()):
        if p in after and old is not None and _changed(p, old):
            _back_up(ctx, agent, p, old)
    ctx.manifest.add("agent-plugin", agent)


def _changed(path: Path, old: bytes | tuple[int, int]) -> bool:
    if isinstance(old, bytes):
        return path.is_file() and path.read_bytes() != old
    st = path.lstat()
    return (st.st_size, st.st_mtime_ns) != old


def _back_up(ctx: Ctx, agent: str, path: Path, old: bytes | tuple[int, int]) -> None:
    if not isinstance(old, bytes):
        ctx.say(f"{agent}: {path} changed and was not backed up; uninstall asks {agent}")
        ctx.manifest.add("agent-backup", path, f"{agent}/{file_sum(path)}/")
        return
    store = ctx.layout.own_dir / "backups" / agent
    ctx.make_dirs(store)
    n = len(ctx.manifest.find("agent-backup"))
    copy = store / f"{n}-{path.name}"
    copy.write_bytes(old)
    ctx.manifest.add("file", copy)
    ctx.manifest.add("agent-backup", path, f"{agent}/{file_sum(path)}/{copy}")


def untouched(ctx: Ctx, agent: str) -> bool:
    """Every path and file our install of ``agent`` recorded is still as it left it."""
    for e in ctx.manifest.entries():
        if e.kind not in ("agent-path", "agent-backup") or not e.extra.startswith(f"{agent}/"):
            continue
        _, total, backup = _split(e.extra)
        path = Path(e.value)
        if e.kind == "agent-backup" and not backup:
            return False
        if path.exists() or path.is_symlink():
            if total and file_sum(path) != total:
                return False
        elif total or e.kind == "agent-backup":
            return False
    return True


def revert(ctx: Ctx, e: Entry) -> None:
    """Undo one ``agent-path`` or ``agent-backup`` line where the path is still as we left it."""
    _, total, backup = _split(e.extra)
    path = Path(e.value)
    if ctx.dry:
        ctx.say(f"would restore: {path}")
        return
    if not (path.exists() or path.is_symlink()):
        return
    if e.kind == "agent-backup":
        if backup and file_sum(path) == total and Path(backup).is_file():
            shutil.copyfile(backup, path)
        return
    if path.is_dir() and not path.is_symlink():
        if not any(path.iterdir()):
            path.rmdir()
    elif file_sum(path) == total:
        path.unlink()


def _split(extra: str) -> tuple[str, str, str]:
    agent, _, rest = extra.partition("/")
    total, _, backup = rest.partition("/")
    return agent, total, backup


def recorded_run(
    ctx: Ctx,
    agent: str,
    home: Path,
    argv: list[str],
    what: str,
    env: dict[str, str] | None = None,
    *,
    timeout: float = 300,
    stuck: str | None = None,
    caches: Sequence[Path] = (),
) -> None:
    """Run the agent's own install command, recorded like :func:`recorded`; ``stuck``: the fix
    the error names when the command is still running after ``timeout`` seconds."""

    def run() -> None:
        ctx.must(ctx.run(argv, env=env, timeout=timeout), what, stuck)

    recorded(ctx, agent, home, run, caches)
