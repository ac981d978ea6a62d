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

INSTALL_HINT = "install bubblewrap (apt-get install bubblewrap / dnf install bubblewrap)"


@dataclass(frozen=True)
class Sandbox:
    """A working bubblewrap and the binds every replay needs."""

    bwrap: str
    hide: tuple[str, ...] = ()  # directories replaced by an empty tmpfs (the user's home)
    show: tuple[str, ...] = field(default_factory=tuple)  # read-only again inside a hidden one

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


def _home_binds(home: str, needed: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Hide ``home``; show again, read-only, the installs under it or under ``/tmp`` (private in
    the sandbox) that the replay must run: an engine's virtual environment, the agent's binary.

    A path counts by its own name as well as by what it resolves to: a virtual environment's
    ``python`` is a link out of it, but is run by the name inside it."""
    hidden = [Path(home).resolve()] if home and home != "/" and Path(home).is_dir() else []
    roots = [*hidden, Path("/tmp").resolve()]
    show: list[str] = []
    for item in needed:
        for path in {Path(os.path.abspath(item)), Path(item).resolve()}:
            for root in roots:
                if root in path.parents:
                    top = str(root / path.relative_to(root).parts[0])
                    if top not in show:
                        show.append(top)
    return tuple(str(h) for h in hidden), tuple(show)


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


def probe(env: Mapping[str, str], needed: Sequence[str] = ()) -> Sandbox | str:
    """A usable :class:`Sandbox`, or a one-line reason why agent replay cannot be confined."""
    if os.name != "posix" or not Path("/proc/self/ns/net").exists():
        return "agent replay needs Linux namespaces (bubblewrap); this system has none"
    bwrap = shutil.which("bwrap", path=env.get("PATH"))
    if bwrap is None:
        return f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}"
    why = _works(bwrap)
    if why:
        return why
    hide, show = _home_binds(env.get("HOME", ""), needed)
    return Sandbox(bwrap, hide, show)
