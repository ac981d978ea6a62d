"""Which files the installed engine came from: a checksum over what an install would put in place,
recorded in the manifest when the engine is installed and compared by the next install.

The version string alone cannot tell: a checkout says the same version for many changes, so a
newer checkout's install.sh left the older engine in place. An unchanged checkout installed again
still finds its checksum and changes nothing."""

from __future__ import annotations

import hashlib
from pathlib import Path

from .context import Ctx

KIND = "engine-files"  # manifest: engine-files <checksum> <tool>; nothing to undo on uninstall
# What the wheel is made of: the package's files and the two it reads its metadata from.
_METADATA = ("pyproject.toml", "README.md")
_SKIPPED_DIRS = {"__pycache__"}
_SKIPPED_SUFFIXES = (".pyc", ".pyo")


def files_sum(source: Path | None, package: str | None) -> str | None:
    """The checksum of what this install would install: the checkout's package files, or the
    wheel or archive given as ``package``; None for a package named by a spec (only its version
    tells then)."""
    if package is not None:
        path = Path(package)
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.is_file() else None
    if source is None:
        return None
    digest = hashlib.sha256()
    for rel in _package_files(source):
        digest.update(rel.encode("utf-8") + b"\0")
        digest.update((source / rel).read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _package_files(source: Path) -> list[str]:
    files = [name for name in _METADATA if (source / name).is_file()]
    for path in (source / "skillopt_sleep").rglob("*"):
        rel = path.relative_to(source)
        if (
            path.is_file()
            and not _SKIPPED_DIRS & set(rel.parts)
            and not path.name.endswith(_SKIPPED_SUFFIXES)
        ):
            files.append(rel.as_posix())
    return sorted(files)


def recorded_sum(ctx: Ctx, tool: str) -> str | None:
    """The checksum recorded when ``tool`` last installed the engine (None before this was
    recorded: an installation by an older installer, whose files are unknown)."""
    found = [e.value for e in ctx.manifest.find(KIND) if e.extra == tool]
    return found[-1] if found else None


def record_sum(ctx: Ctx, tool: str, checksum: str) -> None:
    ctx.manifest.rewrite([e for e in ctx.manifest.entries() if e.kind != KIND])
    ctx.manifest.add(KIND, checksum, tool)
