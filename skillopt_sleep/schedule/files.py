"""Writing the files a plan lists, and removing only files that carry our mark."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..errors import ScheduleError
from ..store.files import atomic_write_bytes
from .plan import MANAGED_BY, PlannedFile


def write_planned(files: Iterable[PlannedFile]) -> None:
    for f in files:
        atomic_write_bytes(Path(f.path), f.content.encode(f.encoding), mode=0o644)


def remove_managed(path: Path, mark: str = MANAGED_BY) -> bool:
    """Delete ``path`` if it carries ``mark``; a same-named file of the user's is left alone."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise ScheduleError(f"cannot read {path}: {exc.strerror}") from exc
    texts = [data.decode(enc, errors="ignore") for enc in ("utf-8", "utf-16")]
    if not any(mark in t for t in texts):
        return False
    try:
        path.unlink()
    except OSError as exc:
        raise ScheduleError(
            f"cannot remove {path}: {exc.strerror}", hint="remove it by hand"
        ) from exc
    return True
