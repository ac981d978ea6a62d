"""Doctor checks for the store and the data directory."""

from __future__ import annotations

import shutil

from ..errors import StoreError
from ..store import Store
from . import DoctorInput, Finding

MIN_FREE_BYTES = 200 * 1024 * 1024


def checks(inp: DoctorInput) -> list[Finding]:
    out: list[Finding] = []
    try:
        store = Store.open(inp.paths.db)
        n = len(store.list_tasks())
        store.close()
        out.append(Finding("store", "ok", f"{inp.paths.db} ({n} tasks)"))
    except StoreError as exc:
        out.append(Finding("store", "fail", exc.message, exc.hint or "check the data directory"))
    free = shutil.disk_usage(inp.paths.data_dir).free
    if free < MIN_FREE_BYTES:
        out.append(Finding("disk", "warn", f"only {free // 2**20} MiB free under {inp.paths.data_dir}",
                           "free some disk space before the next night"))
    else:
        out.append(Finding("disk", "ok", f"{free // 2**30} GiB free"))
    return out
