"""What the last harvest skipped, kept in the store so that ``status`` can show it.

A harvest never stops for a damaged file; it skips it and says so. The printed report is gone
once the terminal is, and a harvest run by the scheduler or the hook prints to no one, so the
skips (paths and reasons, capped) are also written to the store's small key/value table.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..redact import redact
from ..store import Store

if TYPE_CHECKING:  # not at run time: `status` reads the skips, and the harvest is heavy to import
    from .run import SourceStats

META_KEY = "harvest.problems"
SHOWN = 20  # paths kept and shown; the counts cover all of them


def summarise(stats: Iterable[SourceStats], now: datetime) -> dict[str, Any]:
    """The skips of one harvest: files skipped whole, and files with bad lines."""
    files: list[str] = []
    lines: dict[str, dict[str, int]] = {}
    for s in stats:
        files.extend(redact(e) for e in s.errors)
        for path, reasons in s.bad_lines.items():
            lines[redact(path)] = reasons
    return {
        "at": now.isoformat(),
        "files_skipped": len(files),
        "files": files[:SHOWN],
        "lines_skipped": sum(n for reasons in lines.values() for n in reasons.values()),
        "files_with_bad_lines": len(lines),
        "lines": dict(list(lines.items())[:SHOWN]),
    }


def save(store: Store, summary: dict[str, Any], *, keep_clean: bool = False) -> None:
    """Remember ``summary`` for ``status``. ``keep_clean``: a summary with nothing skipped does
    not replace an earlier one (the hook's small drains must not hide a harvest's skips)."""
    if keep_clean and not summary["files_skipped"] and not summary["lines_skipped"]:
        return
    store.set_meta(META_KEY, json.dumps(summary, sort_keys=True))


def load(store: Store) -> dict[str, Any] | None:
    raw = store.get_meta(META_KEY)
    try:
        data = json.loads(raw) if raw else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def describe(summary: dict[str, Any] | None) -> list[str]:
    """Lines for ``status`` (none when the last harvest skipped nothing)."""
    if not summary or not (summary.get("files_skipped") or summary.get("lines_skipped")):
        return []
    when = str(summary.get("at", ""))[:16].replace("T", " ")
    head = (
        f"last harvest ({when}) skipped {summary.get('files_skipped', 0)} file(s) and "
        f"{summary.get('lines_skipped', 0)} line(s) in "
        f"{summary.get('files_with_bad_lines', 0)} file(s) (details: `harvest --json`):"
    )
    out = [head]
    out += [f"  skipped {entry}" for entry in summary.get("files", [])]
    for path, reasons in dict(summary.get("lines") or {}).items():
        counts = ", ".join(f"{reason} {n}" for reason, n in sorted(dict(reasons).items()))
        out.append(f"  {path}: lines skipped: {counts}")
    return out
