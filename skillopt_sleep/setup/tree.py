"""File-tree helpers: the directories a step is about to create, a checksum over a tree, and
the set of paths under a directory (to see what a foreign tool created)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def missing_dirs(path: Path) -> list[Path]:
    """``path`` and each of its missing ancestors, outermost first; empty when it exists."""
    out: list[Path] = []
    while not path.exists() and not path.is_symlink() and path.parent != path:
        out.append(path)
        path = path.parent
    return out[::-1]


def tree_sum(root: Path) -> str:
    """One checksum over every file's relative path and content (symlinks followed)."""
    digest = hashlib.sha256()
    files = sorted(p for p in root.rglob("*") if p.is_file())
    for f in files:
        digest.update(f.relative_to(root).as_posix().encode("utf-8") + b"\0")
        digest.update(f.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def paths_under(root: Path) -> set[Path]:
    """``root`` and every path below it (symlinks not followed); empty when it does not exist."""
    if not root.exists() and not root.is_symlink():
        return set()
    found = {root}
    if root.is_dir() and not root.is_symlink():
        for top, dirs, files in os.walk(root):
            found.update(Path(top) / n for n in dirs + files)
    return found


def remove_deepest_first(paths: set[Path]) -> None:
    """Remove these files and (then empty) directories, deepest first; others are kept."""
    for p in sorted(paths, key=lambda q: len(q.parts), reverse=True):
        try:
            if p.is_dir() and not p.is_symlink():
                p.rmdir()
            elif p.exists() or p.is_symlink():
                p.unlink()
        except OSError:
            pass  # a directory that still holds something not ours stays


def shell_tree_sum(root: Path) -> str:
    """The checksum the shell installer recorded for a skill it copied (POSIX ``cksum`` over
    ``./path\\n`` and the content of each file, paths in byte order), so installations made
    by it still uninstall exactly."""
    files = sorted(
        ("./" + p.relative_to(root).as_posix()).encode("utf-8")
        for p in root.rglob("*")
        if p.is_file()
    )
    data = b"".join(f + b"\n" + (root / f[2:].decode("utf-8")).read_bytes() for f in files)
    return str(_posix_cksum(data))


def _posix_cksum(data: bytes) -> int:
    crc = 0
    length = len(data)
    tail = b""
    while length:
        tail += bytes([length & 0xFF])
        length >>= 8
    for byte in data + tail:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else crc << 1
            crc &= 0xFFFFFFFF
    return ~crc & 0xFFFFFFFF
