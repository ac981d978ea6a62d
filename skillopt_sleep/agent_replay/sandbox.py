"""The outer sandbox of an agent replay: bubblewrap (Linux).

The agent sees the machine read-only, with the user's home hidden behind an empty tmpfs and
``/tmp`` private; only the throwaway copy and the replay's own temporary home are writable. It
has no network namespace of its own: its only way out is the model-API tunnel
(:mod:`.forward`). Where bubblewrap is missing or cannot make namespaces here, agent replay is
refused (:func:`probe` says why in one line), never run unconfined.

Why an outer sandbox at all: Claude Code's ``--allowedTools Bash`` lets a command write outside
its working directory (``> /tmp/x``, ``>> ~/.bashrc``), and an agent's own sandbox is only as
good as its settings. Codex's ``workspace-write`` sandbox keeps working inside this one.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .installs import shown_again

INSTALL_HINT = "install bubblewrap (apt-get install bubblewrap / dnf install bubblewrap)"


@dataclass(frozen=True)
class Sandbox:
    """A working bubblewrap and the binds every replay needs."""

    bwrap: str
    hide: tuple[str, ...] = ()  # directories replaced by an empty tmpfs (the user's home)
    show: tuple[str, ...] = field(default_factory=tuple)  # read-only again inside a hidden one
    links: tuple[tuple[str, str], ...] = ()  # (target, where): symlinks made again inside them

    def wrap(
        self,
        argv: Sequence[str],
        *,
        writable: Sequence[Path],
        chdir: Path,
        env: Mapping[str, str],
        hosts: Path | None = None,
        readable: Sequence[Path] = (),
        low_port: bool = False,
    ) -> list[str]:
        """``argv`` run inside the sandbox, with ``env`` as its whole environment.

        ``low_port``: the inner proxy must listen on a port below 1024 (an https API on 443).
        Outside the root account only a user namespace's root may, so the sandbox maps the user
        to uid 0 of its own namespace, with that one capability and no other."""
        out = [
            self.bwrap,
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/tmp",
        ]
        for path in self.hide:
            out += ["--tmpfs", path]
        for path in self.show:
            out += ["--ro-bind", path, path]
        for target, where in self.links:
            out += ["--symlink", target, where]
        for ro in readable:
            out += ["--ro-bind", str(ro), str(ro)]
        for rw in writable:
            out += ["--bind", str(rw), str(rw)]
        if hosts is not None:
            out += ["--ro-bind", str(hosts), "/etc/hosts"]
        out += [
            "--unshare-net",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--die-with-parent",
            "--new-session",
            "--clearenv",
            "--chdir",
            str(chdir),
        ]
        if low_port:
            out += ["--unshare-user", "--uid", "0", "--gid", "0"]
            out += ["--cap-add", "CAP_NET_BIND_SERVICE"]
        for key, value in sorted(env.items()):
            out += ["--setenv", key, value]
        return [*out, "--", *argv]


def _home_binds(
    home: str, needed: Sequence[str], prefixes: Sequence[str] = (), search_path: str | None = None
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, str], ...]]:
    """Hide ``home``; show again, read-only, what of it or of ``/tmp`` (private in the sandbox)
    the replay must run: the installs of the files in ``needed`` (the agent's binary, the
    engine's Python, the inner proxy) and the Python ``prefixes``, each no wider than the
    install (:mod:`.installs`), and the symlinks by whose names they are run.

    Returns the hidden directories, the ones shown again, and the symlinks made again."""
    hidden = [Path(home).resolve()] if home and home != "/" and Path(home).is_dir() else []
    shown = shown_again([*hidden, Path("/tmp").resolve()], needed, prefixes, search_path)
    return tuple(str(h) for h in hidden), shown.binds, shown.links


@functools.lru_cache(maxsize=8)
def _works(bwrap: str) -> str:
    """ "" when bubblewrap can make the namespaces a replay needs here, else why not."""
    try:
        done = subprocess.run(
            [
                bwrap,
                "--ro-bind",
                "/",
                "/",
                "--dev",
                "/dev",
                "--proc",
                "/proc",
                "--unshare-net",
                "--unshare-pid",
                "--die-with-parent",
                "true",
            ],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap does not run here: {exc}"
    if done.returncode != 0:
        return f"bubblewrap cannot make namespaces here: {(done.stderr or '').strip()[:160]}"
    return ""


def probe(
    env: Mapping[str, str], needed: Sequence[str] = (), prefixes: Sequence[str] = ()
) -> Sandbox | str:
    """A usable :class:`Sandbox`, or a one-line reason why agent replay cannot be confined.

    ``needed``: the files the replay runs; ``prefixes``: the Python installs it runs them with."""
    if os.name != "posix" or not Path("/proc/self/ns/net").exists():
        return "agent replay needs Linux namespaces (bubblewrap); this system has none"
    bwrap = shutil.which("bwrap", path=env.get("PATH"))
    if bwrap is None:
        return f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}"
    why = _works(bwrap)
    if why:
        return why
    hide, show, links = _home_binds(env.get("HOME", ""), needed, prefixes, env.get("PATH"))
    return Sandbox(bwrap, hide, show, links)
