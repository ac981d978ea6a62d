"""What one CLI start costs, per command, against a bare Python (and a baseline revision).

    python -m bench.startup                      # best of 7 starts a command, against a bare Python
    python -m bench.startup --baseline HEAD~3    # and against that revision, extracted with git archive
    python -m bench.startup --runs 3 --json

Many tests run the CLI as a user types it, in a new process, and the Claude Code SessionEnd hook
runs `log` at every session end: start-up is paid each time. Each command runs in a fresh temp
home with no bytecode cache of the package (as a fresh checkout runs it, with
PYTHONDONTWRITEBYTECODE), alternately for every side, so all sides see the same machine load;
the best of ``--runs`` is kept (load only ever adds). Prints wall and CPU seconds (the CPU the
process used, user + system: what a start costs on a shared machine, where wall seconds mostly
measure the neighbours) and their ratios to a bare Python's start, and to the baseline's when
one is given. ``--cached`` keeps bytecode in a cache outside the package (PYTHONPYCACHEPREFIX),
so every start after the first reads it, as the tests and an installed package do.

`log` is timed as the hook runs it: it spools the payload and returns, its drainer replaced by
``true`` (SKILLOPT_SLEEP_PYTHON), so the row is the hook's own cost; `log --wait` also stores
the session's tasks in the same process, as the drainer does.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TypedDict

from bench.revision import REPO, extract

HOOK_PAYLOAD = json.dumps({"session_id": "s1", "transcript_path": "/nonexistent.jsonl"})
COMMANDS: dict[str, tuple[list[str], str]] = {
    "--version": (["--version"], ""),
    "--help": (["--help"], ""),
    "log": (["log"], HOOK_PAYLOAD),
    "log --wait": (["log", "--wait"], HOOK_PAYLOAD),
    "status": (["status"], ""),
    "review": (["review"], ""),
    "tasks list": (["tasks", "list"], ""),
    "run --dry-run": (["run", "--dry-run", "--backend", "simulated"], ""),
}


class Row(TypedDict):
    """Best start of one command, in wall and CPU seconds, on each side."""

    command: str
    seconds: float
    cpu_seconds: float
    ratio_to_python: float
    baseline_seconds: float | None
    baseline_cpu_seconds: float | None
    ratio_to_baseline: float | None
    cpu_ratio_to_baseline: float | None


def _children_cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _start_s(
    pythonpath: Path | None, argv: list[str], stdin: str, home: Path, pycache: Path | None
) -> tuple[float, float]:
    """Wall and CPU seconds of one start (the CPU of the child, which ``run`` reaps)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLOPT_SLEEP_")}
    env.update(SKILLOPT_SLEEP_HOME=str(home), HOME=str(home), SKILLOPT_SLEEP_PYTHON="true")
    env.pop("PYTHONPYCACHEPREFIX", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE")
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    cmd = [sys.executable, "-c", "pass"]
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
        cmd = [sys.executable, "-m", "skillopt_sleep", *argv]
    home.mkdir(parents=True, exist_ok=True)
    cpu, started = _children_cpu_s(), time.perf_counter()
    proc = subprocess.run(
        cmd, input=stdin, text=True, env=env, cwd=home, capture_output=True, timeout=300
    )
    elapsed, cpu = time.perf_counter() - started, _children_cpu_s() - cpu
    if "Traceback" in proc.stderr or "internal error" in proc.stderr:
        raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr[-500:]}")
    return elapsed, cpu


def measure(
    runs: int, baseline: str | None, root: Path, cached: bool, only: list[str] | None = None
) -> list[Row]:
    current = root / "current"  # the work tree as it is, without its bytecode
    shutil.copytree(
        REPO / "skillopt_sleep",
        current / "skillopt_sleep",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    base = extract(baseline, root / "baseline") if baseline else None
    pycache = root / "pycache" if cached else None
    starts = [_start_s(None, [], "", root, pycache) for _ in range(runs)]
    bare = min(w for w, _ in starts)
    rows = [_row("python -c pass", starts, [], bare)]
    for name, (argv, stdin) in COMMANDS.items():
        if only and name not in only:
            continue
        now: list[tuple[float, float]] = []
        then: list[tuple[float, float]] = []
        for i in range(runs):
            home = root / f"home-{len(rows)}-{i}"
            now.append(_start_s(current, argv, stdin, home / "a", pycache))
            if base is not None:
                then.append(_start_s(base, argv, stdin, home / "b", pycache))
        rows.append(_row(name, now, then, bare))
    return rows


def _row(
    name: str, now: list[tuple[float, float]], then: list[tuple[float, float]], bare: float
) -> Row:
    """The best wall and the best CPU of each side (load only ever adds to either)."""
    wall, cpu = min(w for w, _ in now), min(c for _, c in now)
    was = min(w for w, _ in then) if then else None
    was_cpu = min(c for _, c in then) if then else None
    return Row(
        command=name,
        seconds=round(wall, 3),
        cpu_seconds=round(cpu, 3),
        ratio_to_python=round(wall / bare, 1),
        baseline_seconds=None if was is None else round(was, 3),
        baseline_cpu_seconds=None if was_cpu is None else round(was_cpu, 3),
        ratio_to_baseline=None if was is None else round(wall / was, 3),
        cpu_ratio_to_baseline=None if not was_cpu else round(cpu / was_cpu, 3),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="starts a command and side (default 7)")
    parser.add_argument("--baseline", metavar="REV", help="also time this git revision")
    parser.add_argument(
        "--cached",
        action="store_true",
        help="keep bytecode in a cache (PYTHONPYCACHEPREFIX in the temp dir), as the tests do",
    )
    parser.add_argument(
        "--only", action="append", choices=list(COMMANDS), help="this command only (repeatable)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="startup-") as tmp:
        rows = measure(args.runs, args.baseline, Path(tmp), args.cached, args.only)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(
        f"best of {args.runs} starts{' (bytecode cached)' if args.cached else ''}: wall s "
        f"(x a bare Python), CPU s; the baseline {args.baseline or '-'}'s, and the ratios to it:"
    )
    for row in rows:
        print(line(row))
    return 0


def line(row: Row) -> str:
    """One command's row: ``log  0.210 wall x5.2  0.150 cpu  baseline 0.400 wall 0.350 cpu  x0.53 wall x0.43 cpu``."""
    text = (
        f"  {row['command']:<14} {row['seconds']:6.3f} wall x{row['ratio_to_python']:<5}"
        f" {row['cpu_seconds']:6.3f} cpu"
    )
    if row["ratio_to_baseline"] is not None:
        text += (
            f"  baseline {row['baseline_seconds']:6.3f} wall {row['baseline_cpu_seconds']:6.3f} cpu"
            f"  x{row['ratio_to_baseline']:.2f} wall x{row['cpu_ratio_to_baseline'] or 0:.2f} cpu"
        )
    return text


if __name__ == "__main__":
    sys.exit(main())
