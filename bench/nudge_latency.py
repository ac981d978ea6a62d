"""What the session-start nudge adds to the start of a real Claude Code session.

    PATH=.tools/node_modules/.bin:$PATH python -m bench.nudge_latency            # 20 starts a side
    PATH=.tools/node_modules/.bin:$PATH python -m bench.nudge_latency --runs 5 --json

Starts the real `claude -p` against a loopback model server, alternately with a copy of the
plugin that has only the SessionStart hook and with one that has no hook (the same run, the same
machine load), in a project where a proposal waits, so every hooked start takes the nudge's
slowest path: it reads the store, writes its day, and prints the line (its memory of the day is
cleared before each start). The SessionEnd hook is left out of both: Claude waits for it at exit,
which is not the start. Prints the median wall time of a session each way, their difference and
ratio, and the median of the hook alone (the launcher run directly, as Claude runs it).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import TypedDict

from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.proposal_models import Edit, NightSummary
from skillopt_sleep.store import Store
from skillopt_sleep.testing import ModelServer, Text
from skillopt_sleep.testing.agents import claude_env

REPO = Path(__file__).resolve().parents[1]
PLUGIN = REPO / "plugins" / "claude-code"


class Report(TypedDict):
    """The medians, in milliseconds."""

    runs: int
    with_hook_ms: float
    without_hook_ms: float
    added_ms: float
    ratio: float
    hook_alone_ms: float


def _plugin_copy(checkout: Path, name: str, events: tuple[str, ...]) -> Path:
    """A copy of the plugin inside ``checkout`` (so its launcher finds the engine there, as in a
    clone) with only the hooks of ``events``."""
    dest = checkout / "plugins" / name
    shutil.copytree(PLUGIN, dest, symlinks=False)
    hooks_file = dest / "hooks" / "hooks.json"
    hooks = json.loads(hooks_file.read_text("utf-8"))
    hooks["hooks"] = {k: v for k, v in hooks["hooks"].items() if k in events}
    hooks_file.write_text(json.dumps(hooks, indent=2), "utf-8")
    return dest


def _stage(sleep_home: Path, project: Path) -> None:
    store = Store.open(resolve_paths(str(sleep_home)).ensure().db)
    store.save_night(
        NightSummary(
            night_id="20261126-031700",
            project=str(project),
            started_at=datetime.now(timezone.utc),
            decision="accept",
            proposal_dir=str(sleep_home / "nights" / "20261126-031700"),
            edits=[Edit(target="memory", op="add", content="Use uv.", status="applied")],
        ),
        "staged",
    )
    store.close()


def _session_s(plugin: Path, env: dict[str, str], project: Path, claude: str) -> float:
    with ModelServer([Text("ok")]) as srv:
        run_env = claude_env(Path(env["HOME"]), srv.url, base=env)
        started = time.perf_counter()
        proc = subprocess.run(
            [claude, "-p", "hi", "--plugin-dir", str(plugin), "--output-format", "json"],
            env=run_env,
            cwd=project,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        elapsed = time.perf_counter() - started
    if proc.returncode != 0 or json.loads(proc.stdout).get("result") != "ok":
        raise SystemExit(f"claude failed: {proc.stdout[-300:]} {proc.stderr[-300:]}")
    return elapsed


def _hook_alone_s(plugin: Path, env: dict[str, str], project: Path) -> float:
    payload = json.dumps({"cwd": str(project), "hook_event_name": "SessionStart"})
    started = time.perf_counter()
    proc = subprocess.run(
        [str(plugin / "bin" / "skillopt-sleep"), "nudge", "--for", "claude-code"],
        input=payload,
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if "systemMessage" not in proc.stdout:
        raise SystemExit(f"the hook printed no nudge: {proc.stdout!r} {proc.stderr!r}")
    return elapsed


def measure(runs: int, root: Path) -> Report:
    claude = shutil.which("claude")
    if claude is None:
        raise SystemExit("claude is not on PATH (PATH=.tools/node_modules/.bin:$PATH)")
    checkout, project, sleep_home = root / "checkout", root / "project", root / "sleep"
    for d in (checkout, project, root / "home", root / "bin"):
        d.mkdir(parents=True)
    (checkout / "skillopt_sleep").symlink_to(REPO / "skillopt_sleep")
    (checkout / "pyproject.toml").symlink_to(REPO / "pyproject.toml")
    python3 = root / "bin" / "python3"  # the launcher's Python: this one, which has the engine
    python3.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python3.chmod(0o755)
    hooked = _plugin_copy(checkout, "with-hook", ("SessionStart",))
    bare = _plugin_copy(checkout, "without-hook", ())
    project = project.resolve()
    _stage(sleep_home, project)
    env = {
        "HOME": str(root / "home"),
        "PATH": f"{root / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "LANG": "C.UTF-8",
        "SKILLOPT_SLEEP_HOME": str(sleep_home),
    }
    day = resolve_paths(str(sleep_home)).state_dir / "nudges.json"
    with_hook, without, alone = [], [], []
    for _ in range(runs):  # alternated, so both sides see the same machine load
        day.unlink(missing_ok=True)
        with_hook.append(_session_s(hooked, env, project, claude))
        without.append(_session_s(bare, env, project, claude))
        day.unlink(missing_ok=True)
        alone.append(_hook_alone_s(hooked, env, project))
    w, b = statistics.median(with_hook), statistics.median(without)
    return Report(
        runs=runs,
        with_hook_ms=round(w * 1000, 1),
        without_hook_ms=round(b * 1000, 1),
        added_ms=round((w - b) * 1000, 1),
        ratio=round(w / b, 3),
        hook_alone_ms=round(statistics.median(alone) * 1000, 1),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="starts a side (default 20)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="nudge-latency-") as tmp:
        report = measure(args.runs, Path(tmp))
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"claude -p starts, median of {report['runs']} each (alternated, same run):")
    print(f"  with the SessionStart nudge: {report['with_hook_ms']:8.1f} ms")
    print(f"  without any hook:            {report['without_hook_ms']:8.1f} ms")
    print(f"  added: {report['added_ms']:+.1f} ms  (ratio {report['ratio']:.3f})")
    print(
        f"  the hook alone (launcher + engine, printing the line): {report['hook_alone_ms']:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
