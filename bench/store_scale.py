"""`status` and `tasks list` on a large task log: time and memory, against the full load.

A store of N tasks (default 50,000) for one project, then each command in its own process:

- ``status`` as it is (a count and the rows it shows) against the full load it replaced
  (every record read to count them, the last 1,000 nights scanned for a pending proposal);
- ``tasks list`` (one page) against ``tasks list --limit 0`` (every record read and printed,
  what the command did before it paged).

For each: the command's time, the process's peak RSS (ru_maxrss) and the Python heap's peak
(tracemalloc, in a second run), and the ratio full / bounded measured in the same run.
Unix only (ru_maxrss).

    python -m bench.store_scale                # 50,000 tasks
    python -m bench.store_scale --tasks 5000   # smaller
    python -m bench.store_scale --json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Literal, TypedDict, get_args

from skillopt_sleep.models import Check, TaskRecord
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.store import Store

REPO = Path(__file__).resolve().parent.parent
DRIVER = r"""
import io, json, resource, sys, time, tracemalloc
trace = sys.argv[1] == "trace"
mode, project = sys.argv[2], sys.argv[3]
from skillopt_sleep.cli import build_parser, main
build_parser()
if trace:
    tracemalloc.start()
t0 = time.perf_counter()
out, err = io.StringIO(), io.StringIO()
if mode == "full-status":  # what status did before: every record read to count them
    import os
    from skillopt_sleep.paths import resolve_paths
    from skillopt_sleep.store import Store
    store = Store.open_readonly(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).db)
    tasks = len(store.list_tasks(project=project))
    pending = next((n for n in store.nights(project=project, limit=1000) if n.state == "staged"), None)
    nights = store.nights(project=project, limit=10)
    out.write(f"project: {project}  ({tasks} tasks logged)\n")
    code = 0
else:
    argv = {"status": ["status", "--project", project],
            "list": ["tasks", "list", "--project", project],
            "full-list": ["tasks", "list", "--limit", "0", "--project", project]}[mode]
    code = main(argv, stdout=out, stderr=err)
run_s = time.perf_counter() - t0
peak_heap = tracemalloc.get_traced_memory()[1] if trace else None
print(json.dumps({"code": code, "run_s": run_s, "heap_peak": peak_heap, "err": err.getvalue()[-300:],
                  "first": out.getvalue().splitlines()[:1],
                  "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


Metric = Literal["run_s", "maxrss_mb", "heap_peak_mb"]
METRICS: tuple[Metric, ...] = get_args(Metric)


class Usage(TypedDict):
    """What one command cost: its time, the peak RSS, the heap's peak, and its first line out."""

    run_s: float
    maxrss_mb: float
    heap_peak_mb: float
    first_line: list[str]


def build_store(home: Path, project: str, n: int) -> None:
    """``n`` tasks of realistic size (intent, context, attempt, feedback, three checks)."""
    store = Store.open(resolve_paths(str(home)).ensure().db)
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    body = "The tests in tests/unit fail after the refactor of the session loader; " * 4
    batch = []
    for i in range(n):
        batch.append(
            TaskRecord(
                id=f"t_{i:012x}",
                source="claude-code",
                project=project,
                session_id=f"s{i // 5}",
                turn=i % 5,
                created_at=start + timedelta(seconds=30 * i),
                intent=f"Task {i}: fix the failing tests. {body}",
                context=body,
                attempt=body * 2,
                outcome="failure",
                feedback="No: always run them with `pytest -q`.",
                checks=[
                    Check(kind="contains", value="pytest -q"),
                    Check(kind="max_chars", value=800),
                    Check(kind="not_contains", value="unittest"),
                ],
                tags=["tests"],
                tools_used=["Bash"],
            )
        )
        if len(batch) == 2000:
            store.upsert_tasks(batch, start)
            batch = []
    if batch:
        store.upsert_tasks(batch, start)
    store.close()


def measure(mode: str, home: Path, project: str) -> Usage:
    env = dict(
        os.environ,
        SKILLOPT_SLEEP_HOME=str(home),
        PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    )
    runs: dict[str, dict[str, Any]] = {}  # the driver's JSON line, by run
    for how in ("plain", "trace"):
        done = subprocess.run(
            [sys.executable, "-c", DRIVER, how, mode, project],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        runs[how] = json.loads(done.stdout.strip().splitlines()[-1])
        if runs[how]["code"] != 0:
            raise SystemExit(f"{mode} failed: {runs[how]['err']}")
    return {
        "run_s": runs["plain"]["run_s"],
        "maxrss_mb": runs["plain"]["maxrss_kb"] / 1024,
        "heap_peak_mb": runs["trace"]["heap_peak"] / 2**20,
        "first_line": runs["plain"]["first"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=50_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="store-scale-") as tmp:
        home, project = Path(tmp) / "home", str(Path(tmp) / "project")
        t0 = time.perf_counter()
        build_store(home, project, args.tasks)
        built = time.perf_counter() - t0
        db_mb = resolve_paths(str(home)).db.stat().st_size / 2**20
        results = {
            mode: measure(mode, home, project)
            for mode in ("status", "full-status", "list", "full-list")
        }
    ratios: dict[str, dict[Metric, float]] = {}
    for new, old in (("status", "full-status"), ("list", "full-list")):
        ratios[new] = {k: results[old][k] / max(results[new][k], 1e-9) for k in METRICS}
    if args.json:
        print(
            json.dumps(
                {"tasks": args.tasks, "db_mb": db_mb, "results": results, "ratios": ratios},
                indent=2,
            )
        )
        return 0
    print(f"{args.tasks} tasks, store {db_mb:.1f} MB (built in {built:.1f} s)")
    print(f"{'command':<24}{'time s':>9}{'peak RSS MB':>13}{'heap peak MB':>14}")
    names = {
        "status": "status",
        "full-status": "status, full load",
        "list": "tasks list (one page)",
        "full-list": "tasks list --limit 0",
    }
    for mode, r in results.items():
        print(
            f"{names[mode]:<24}{r['run_s']:>9.3f}{r['maxrss_mb']:>13.1f}{r['heap_peak_mb']:>14.2f}"
        )
    for new, x in ratios.items():
        print(
            f"{names[new]}: the full load takes {x['run_s']:.1f}x the time, {x['maxrss_mb']:.1f}x the peak RSS, "
            f"{x['heap_peak_mb']:.0f}x the heap peak"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
