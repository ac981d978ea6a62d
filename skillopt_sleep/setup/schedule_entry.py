"""The nightly job that runs the engine uninstall removes, though the installation did not
schedule it (the user ran `skillopt-sleep schedule`): found in the store's record of what
`schedule` installed (read with sqlite3, the standard library alone) and removed through the
engine's own `unschedule` while the engine is still there, so no job is left pointing at a
deleted engine."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path

from .context import Ctx, SetupFailed
from .layout import NAME, engine_dirs
from .manifest import Entry

INSTALLED_KEY = "schedule.installed"  # schedule/state.py's, read here without importing it


def unschedule_own_job(ctx: Ctx, entries: list[Entry]) -> None:
    """Remove the job `schedule` installed when its Python is the engine's about to be removed
    (nothing when the installation scheduled it: its own manifest line unschedules it)."""
    if any(e.kind == "schedule" for e in entries):
        return
    engine = _engine(ctx)
    found = _job(ctx)
    if engine is None or found is None:
        return
    method, python = found
    if not _runs(
        python, engine, [e.extra for e in entries if (e.kind, e.value) == ("package", "pip")]
    ):
        return
    done = ctx.run([engine, "unschedule"], timeout=120)
    if not done.ok:
        raise SetupFailed(
            f"the nightly job ({method}) runs the engine this removes, and `{engine} unschedule` "
            f"failed: {done.last_line()}",
            hint=f"run '{NAME} unschedule', then --uninstall again",
        )
    if not ctx.dry:
        ctx.say(f"schedule: removed the nightly job ({method}) that ran the engine removed here")


def _engine(ctx: Ctx) -> Path | None:
    try:
        text = ctx.layout.engine_record.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return Path(text) if text and Path(text).exists() else None


def _job(ctx: Ctx) -> tuple[str, str] | None:
    """The scheduler and the Python of the job `schedule` recorded in the store, if any."""
    db = engine_dirs(ctx.layout, ctx.env, sys.platform)["data"] / "skillopt-sleep.db"
    if not db.is_file():
        return None
    try:
        conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (INSTALLED_KEY,)).fetchone()
        finally:
            conn.close()
        record = json.loads(row[0]) if row and row[0] else None
        return (str(record["method"]), str(record["argv"][0])) if record else None
    except (sqlite3.Error, ValueError, KeyError, IndexError, TypeError):
        return None  # no record this can read: `skillopt-sleep unschedule` is the user's


def _runs(python: str, engine: Path, package_pythons: list[str]) -> bool:
    """Whether the job's Python is the engine's: beside its command in the engine's environment
    (venv, pipx, uv), or the Python the installation ran `pip --user` with."""
    job_dir = os.path.realpath(os.path.dirname(python))
    return job_dir == os.path.realpath(engine.parent) or python in package_pythons
