"""What the sandbox shows again inside the places it hides (the user's home, the private ``/tmp``):
the installs the agent and the engine run from, each as narrow as a directory that holds only
that install, and the symlinks that lead to them, made again by the names they are run as.

Never a whole top-level folder of the home: an agent at ``~/.local/bin/claude`` must not show
``~/.local/share`` (other tools' logins), an engine in ``~/code/venv`` must not show ``~/code``
(other projects' ``.env``).

- a file (the agent's binary, the engine's Python, the inner proxy): the file itself; when it
  lies in a node package, that package's directory and the packages it depends on, found as
  node finds them; when it is a script, its interpreter (``#!/usr/bin/env node``) the same way;
- a Python prefix (the engine's ``sys.prefix`` and ``sys.base_prefix``): the whole directory
  when it holds only that install (a virtual environment, a conda environment, or any directory
  two or more levels below the hidden one, like ``~/.pyenv/versions/3.12.4``), else only its
  ``lib/python3*`` and ``lib/libpython3*`` (a Python installed with the prefix ``~/.local``).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

_MAX_LINKS = 40  # the kernel's own bound on the symlinks one path may follow


@dataclass(frozen=True)
class Shown:
    """Read-only binds (each at its own path) and symlinks (``(target, where)``) to make again."""

    binds: tuple[str, ...] = ()
    links: tuple[tuple[str, str], ...] = ()


def walk(path: str | Path) -> tuple[list[tuple[str, Path]], Path]:
    """The symlinks met while resolving ``path`` (each as its target text and where it lies,
    under its real parent), and the real path it ends at."""
    links: list[tuple[str, Path]] = []
    todo = list(Path(os.path.abspath(path)).parts[1:])
    here = Path("/")
    while todo:
        name = todo.pop(0)
        if name == "..":
            here = here.parent
            continue
        step = here / name
        if step.is_symlink() and len(links) < _MAX_LINKS:
            target = os.readlink(step)
            links.append((target, step))
            if os.path.isabs(target):
                here = Path("/")
            todo = [p for p in Path(target).parts if p != "/"] + todo
        else:
            here = step
    return links, here


def _under(path: Path, roots: Sequence[Path]) -> Path | None:
    return next((root for root in roots if root in path.parents), None)


def interpreter(script: Path, search_path: str | None) -> str | None:
    """The program a ``#!`` script runs under (``env NAME`` looked up on ``search_path``)."""
    try:
        with script.open("rb") as handle:
            head = handle.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return None
    if Path(words[0]).name != "env":
        return words[0]
    name = next((w for w in words[1:] if not w.startswith("-") and "=" not in w), None)
    return shutil.which(name, path=search_path) if name else None


def node_package(real: Path) -> Path | None:
    """The package directory below the outermost ``node_modules`` that holds ``real``."""
    parts = real.parts
    if "node_modules" not in parts:
        return None
    at = parts.index("node_modules")
    width = 3 if len(parts) > at + 2 and parts[at + 1].startswith("@") else 2
    if len(parts) <= at + width - 1:
        return None
    return Path(*parts[: at + width])


def node_dependencies(package: Path) -> list[Path]:
    """The installed packages ``package`` depends on (optional ones too), found as node does:
    in the nearest ``node_modules`` at or above it."""
    try:
        manifest = json.loads((package / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(manifest, dict):
        return []
    names: list[str] = []
    for key in ("dependencies", "optionalDependencies"):
        table = manifest.get(key)
        if isinstance(table, dict):
            names += [n for n in table if isinstance(n, str) and n not in names]
    found: list[Path] = []
    for name in names:
        for base in (package, *package.parents):
            candidate = base / "node_modules" / name
            if candidate.is_dir():
                found.append(candidate.resolve())
                break
    return found


def python_install(prefix: Path, root: Path) -> list[Path]:
    """What of a Python prefix under the hidden ``root`` to show again (see the module)."""
    own = (prefix / "pyvenv.cfg").is_file() or (prefix / "conda-meta").is_dir()
    if prefix != root and (own or prefix.parent != root):
        return [prefix]
    lib = prefix / "lib"
    return sorted([*lib.glob("python3*"), *lib.glob("libpython3*")]) if lib.is_dir() else []


def shown_again(
    roots: Sequence[Path],
    files: Iterable[str],
    prefixes: Iterable[str] = (),
    search_path: str | None = None,
) -> Shown:
    """What to show again under the hidden ``roots`` for ``files`` to run and ``prefixes`` (Python
    installs) to be there. Paths outside the roots are visible anyway and add nothing."""
    binds: list[Path] = []
    links: list[tuple[str, Path]] = []

    def bind(path: Path) -> bool:
        if _under(path, roots) is None or not path.exists() or path in binds:
            return False
        binds.append(path)
        return True

    def follow(path: str | Path) -> Path:
        met, real = walk(path)
        links.extend(link for link in met if _under(link[1], roots) is not None)
        return real

    todo = [str(f) for f in files]
    seen: set[str] = set()
    while todo:
        item = todo.pop(0)
        if item in seen:
            continue
        seen.add(item)
        real = follow(item)
        if not real.is_file():
            continue
        package = node_package(real)
        packages = [package] if package is not None else []
        while packages:
            one = packages.pop(0)
            if bind(one):
                packages += node_dependencies(one)
        if package is None:
            bind(real)
        program = interpreter(real, search_path)
        if program:
            todo.append(program)
    for prefix in prefixes:
        real = follow(prefix)
        root = _under(real, roots) if real.is_dir() else None
        if root is not None:
            for path in python_install(real, root):
                bind(path)
    inside = [b for b in binds if b.is_dir()]
    made: list[tuple[str, str]] = []
    for target, where in links:
        covered = any(where == b or b in where.parents for b in inside)
        if not covered and (target, str(where)) not in made:
            made.append((target, str(where)))
    return Shown(tuple(str(b) for b in binds), tuple(made))
