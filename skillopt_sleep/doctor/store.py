"""Doctor checks for the store and the data directory. They only read: doctor works inside a
read-only sandbox and says what such a sandbox stops."""

from __future__ import annotations

import os
import shutil
import sys

from .. import __version__
from ..errors import StoreError
from ..paths import nearest
from ..store import Store
from . import DoctorInput, Finding

MIN_FREE_BYTES = 200 * 1024 * 1024


def checks(inp: DoctorInput) -> list[Finding]:
    # Which interpreter runs the engine: the one the plugins' launcher found.
    out = [
        Finding(
            "engine",
            "ok",
            f"skillopt-sleep {__version__} on {sys.executable}",
            data={"python": sys.executable, "version": __version__},
        )
    ]
    db = inp.paths.db
    try:
        store = Store.open_readonly(db)
        n = len(store.list_tasks())
        store.close()
        where = db if db.exists() else f"{db} (not created yet)"
        out.append(Finding("store", "ok", f"{where} ({n} tasks)"))
    except StoreError as exc:
        out.append(Finding("store", "fail", exc.message, exc.hint or "check the data directory"))
    target = db if db.exists() else nearest(db.parent)
    if not os.access(target, os.W_OK):
        out.append(
            Finding(
                "store writes",
                "warn",
                f"{target} is not writable here",
                "reading commands work; `run`, `harvest`, `adopt` need a shell outside the "
                "agent's sandbox or write access to it",
            )
        )
    data = nearest(inp.paths.data_dir)
    free = shutil.disk_usage(data).free
    if free < MIN_FREE_BYTES:
        out.append(
            Finding(
                "disk",
                "warn",
                f"only {free // 2**20} MiB free under {data}",
                "free some disk space before the next night",
            )
        )
    else:
        out.append(Finding("disk", "ok", f"{free // 2**30} GiB free"))
    return out
