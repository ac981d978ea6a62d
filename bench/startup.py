"""What one CLI start costs, per command, against a bare Python (and a baseline revision).

    python -m bench.startup                      # best of 7 starts a command, against a bare Python
    python -m bench.startup --baseline HEAD~3    # and against that revision, extracted with git archive
    python -m bench.startup --runs 3 --json

Many tests run the CLI as a user types it, in a new process, and the Claude Code SessionEnd hook
runs `log` at every session end: start-up is paid each time. Each command runs in a fresh temp
home with no bytecode cache of the package (as a fresh checkout runs it, with
PYTHONDONTWRITEBYTECODE), alternately for every side, so all sides see the same machine load;
the best of ``--runs`` is kept (load only ever adds). Prints seconds and the ratio to a bare
Python's start, and to the baseline's when one is given. ``--cached`` keeps bytecode in a cache
outside the package (PYTHONPYCACHEPREFIX), so every start after the first reads it.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import TypedDict

REPO = Path(__file__).resolve().parents[1]
HOOK_PAYLOAD = json.dumps({"session_id": "s1", "transcript_path": "/nonexistent.jsonl"})
COMMANDS: dict[str, tuple[list[str], str]] = {
    "--version": (["--version"], ""),
    "log": (["log", "--wait"], HOOK_PAYLOAD),
    "status": (["status"], ""),
    "review": (["review"], ""),
    "tasks list": (["tasks", "list"], ""),
    "run --dry-run": (["run", "--dry-run", "--backend", "simulated"], ""),
}


class Row(TypedDict):
    """Best start of one command, in seconds, on each side."""

    command: str
    seconds: float
    ratio_to_python: float
    baseline_seconds: float | None
    ratio_to_baseline: float | None


def _extract(rev: str, dest: Path) -> Path:
    """The package at ``rev``, from ``git archive`` (no bytecode, nothing of the work tree)."""
    tar = subprocess.run(
        ["git", "-C", str(REPO), "archive", rev, "skillopt_sleep"], capture_output=True, check=False
    )
    if tar.returncode != 0:
        raise SystemExit(f"git archive {rev} failed: {tar.stderr.decode().strip()}")
    with tarfile.open(fileobj=io.BytesIO(tar.stdout)) as archive:
        archive.extractall(dest, filter="data")
    return dest


def _start_s(
    pythonpath: Path | None, argv: list[str], stdin: str, home: Path, pycache: Path | None
) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLOPT_SLEEP_")}
    env.update(SKILLOPT_SLEEP_HOME=str(home), HOME=str(home))
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
    started = time.perf_counter()
    proc = subprocess.run(
        cmd, input=stdin, text=True, env=env, cwd=home, capture_output=True, timeout=300
    )
    elapsed = time.perf_counter() - started
    if "Traceback" in proc.stderr or "internal error" in proc.stderr:
        raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr[-500:]}")
    return elapsed


def measure(runs: int, baseline: str | None, root: Path, cached: bool) -> list[Row]:
    current = root / "current"  # the work tree as it is, without its bytecode
    shutil.copytree(
        REPO / "skillopt_sleep",
        current / "skillopt_sleep",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    base = _extract(baseline, root / "baseline") if baseline else None
    pycache = root / "pycache" if cached else None
    bare = min(_start_s(None, [], "", root, pycache) for _ in range(runs))
    rows: list[Row] = []
    for name, (argv, stdin) in COMMANDS.items():
        now: list[float] = []
        then: list[float] = []
        for i in range(runs):
            home = root / f"home-{len(rows)}-{i}"
            now.append(_start_s(current, argv, stdin, home / "a", pycache))
            if base is not None:
                then.append(_start_s(base, argv, stdin, home / "b", pycache))
        best, was = min(now), (min(then) if then else None)
        rows.append(
            Row(
                command=name,
                seconds=round(best, 3),
                ratio_to_python=round(best / bare, 1),
                baseline_seconds=None if was is None else round(was, 3),
                ratio_to_baseline=None if was is None else round(best / was, 3),
            )
        )
    rows.insert(
        0,
        Row(
            command="python -c pass",
            seconds=round(bare, 3),
            ratio_to_python=1.0,
            baseline_seconds=None,
            ratio_to_baseline=None,
        ),
    )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="starts a command and side (default 7)")
    parser.add_argument("--baseline", metavar="REV", help="also time this git revision")
    parser.add_argument(
        "--cached",
        action="store_true",
        help="keep bytecode in a cache (PYTHONPYCACHEPREFIX in the temp dir), as the tests do",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="startup-") as tmp:
        rows = measure(args.runs, args.baseline, Path(tmp), args.cached)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"best of {args.runs} starts, seconds (x a bare Python; x the baseline {args.baseline}):")
    for row in rows:
        line = f"  {row['command']:<16} {row['seconds']:6.3f}  x{row['ratio_to_python']:<5}"
        if row["ratio_to_baseline"] is not None:
            line += f"  baseline {row['baseline_seconds']:6.3f}  x{row['ratio_to_baseline']:.3f}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
