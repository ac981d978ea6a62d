"""Harvest benchmark: a synthetic history in the real Claude Code and Codex layouts, then

- the cold harvest's throughput (MB/s),
- a second harvest with nothing new, and how many times faster it is than the cold one
  (target: at least 50x),
- the time to pick up one appended (resumed) session,
- the peak memory of the harvest process (target: under 150 MB; its own ru_maxrss),
- the latency of ``log`` (the SessionEnd hook) on a 10 MB transcript (target: under 0.5 s),
  against the start-up time of the bare CLI measured in the same run.

Each harvest runs in its own process; "harvest time" is measured inside it (the command, not
the interpreter's start-up), "wall" is the whole process, and CPU time is given too: on a
shared machine it varies less than elapsed time. Unix only (ru_maxrss).

    python -m bench.harvest                 # ~2,000 Claude + 1,000 Codex files, ~300 MB
    python -m bench.harvest --scale 0.1     # a tenth of that
    python -m bench.harvest --json          # one JSON object

Then every registered agent alone on its recorded sessions (:mod:`bench.harvest_agents`).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TypedDict

from bench.worlds import synthetic as syn

REPO = Path(__file__).resolve().parent.parent
DRIVER = r"""
import io, json, resource, sys, time
t0 = time.perf_counter()
from skillopt_sleep.cli import build_parser, main
build_parser()  # imports every command module: start-up, not harvest time
t1, c1 = time.perf_counter(), time.process_time()
out, err = io.StringIO(), io.StringIO()
code = main(sys.argv[1:], stdout=out, stderr=err)
t2, c2 = time.perf_counter(), time.process_time()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"code": code, "import_s": t1 - t0, "run_s": t2 - t1, "cpu_s": c2 - c1,
                  "out": out.getvalue(),
                  "err": err.getvalue(), "maxrss_kb": peak}))
"""
WORDS = [
    "test",
    "pass",
    "fail",
    "error",
    "warning",
    "module",
    "import",
    "build",
    "compile",
    "link",
    "cache",
    "request",
    "response",
    "value",
    "index",
    "config",
    "parse",
    "render",
    "update",
    "delete",
    "create",
    "fetch",
    "commit",
    "branch",
    "merge",
]


class Driven(TypedDict):
    """What the driver reports of one CLI run: exit code, timings, output and peak memory."""

    code: int
    import_s: float
    run_s: float
    cpu_s: float
    out: str
    err: str
    maxrss_kb: int


class CliRun(Driven):
    """The driver's report, and the wall time of the whole process."""

    wall_s: float


def _blocks(rng: random.Random) -> list[str]:
    """A pool of tool outputs (log-like lines), reused so building the history is fast."""
    pool = []
    for _ in range(64):
        lines = [
            f"{rng.choice(WORDS)}[{i}] " + " ".join(rng.choice(WORDS) for _ in range(12))
            for i in range(rng.randint(20, 200))
        ]
        pool.append("\n".join(lines))
    return pool


def _turns(rng: random.Random, pool: list[str], target_bytes: int, n: int) -> list[syn.SynthTurn]:
    turns: list[syn.SynthTurn] = []
    size = 0
    while size < target_bytes or not turns:
        output = rng.choice(pool)
        if rng.random() < 0.15:
            prompt = "No, that's wrong: always use pytest -q"
        else:
            prompt = f"Task {n}-{len(turns)}: {rng.choice(WORDS)} the {rng.choice(WORDS)} module"
        turns.append(
            syn.SynthTurn(
                prompt,
                f"Done: {rng.choice(WORDS)} {rng.choice(WORDS)}.",
                command=f"make {rng.choice(WORDS)}",
                output=output,
                exit_code=0 if rng.random() < 0.9 else 1,
            )
        )
        size += len(output) * 2 + 1500  # the output is stored twice in a Claude record
    return turns


def _file_bytes(rng: random.Random, mean: int) -> int:
    """File sizes with a long tail, as real histories have (a few sessions are huge)."""
    return int(min(rng.lognormvariate(0, 1.0) * mean / 1.65, 40 * mean))


def build_history(
    home: Path, claude_files: int, codex_files: int, mean_bytes: int, seed: int = 1
) -> int:
    rng = random.Random(seed)
    pool = _blocks(rng)
    now = datetime.now(timezone.utc)
    projects = [f"/home/bench/work/project-{k}" for k in range(25)]
    total = 0
    for n in range(claude_files + codex_files):
        start = now - timedelta(hours=rng.uniform(2, 24 * 5))
        turns = _turns(rng, pool, _file_bytes(rng, mean_bytes), n)
        project = rng.choice(projects)
        sid = f"{rng.getrandbits(32):08x}-0000-4000-8000-{n:012x}"
        if n < claude_files:
            path = syn.write(
                syn.claude_path(home / ".claude", project, sid),
                syn.claude_session(sid, project, turns, start),
            )
        else:
            path = syn.write(
                syn.codex_path(home / ".codex", sid, start.astimezone()),
                syn.codex_rollout(sid, project, turns, start),
            )
        ended = (start + timedelta(minutes=len(turns))).timestamp()
        os.utime(path, (ended, ended))
        total += path.stat().st_size
    return total


def run_cli(env: dict[str, str], *args: str) -> CliRun:
    """Run the CLI in a fresh process; its own timing and peak memory."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"benchmark run failed: {proc.stderr.strip()[-2000:]}")
    result: Driven = json.loads(proc.stdout.strip().splitlines()[-1])
    if result["code"] != 0:
        raise SystemExit(f"`{' '.join(args)}` exited {result['code']}: {result['err'].strip()}")
    return {**result, "wall_s": wall}


def _timed(cmd: list[str], env: dict[str, str], stdin: str = "") -> float:
    started = time.perf_counter()
    subprocess.run(
        cmd, env=env, input=stdin, capture_output=True, text=True, timeout=600, check=True
    )
    return time.perf_counter() - started


def _wait_idle(home: Path) -> None:
    """Wait until the detached hook readers are done (spool empty, lock free)."""
    from skillopt_sleep.harvest.lock import file_lock

    state = home / "sleep" / "state"
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        with file_lock(state / "harvest.lock") as free:
            if free and not list((state / "spool").glob("*.json")):
                return
        time.sleep(0.1)


def _big_session(home: Path, sid: str) -> tuple[Path, str]:
    rng = random.Random(sid)
    project = "/home/bench/work/hooked"
    turns = _turns(rng, _blocks(rng), 10 * 1024 * 1024, 10_000)
    path = syn.write(
        syn.claude_path(home / ".claude", project, sid),
        syn.claude_session(sid, project, turns, datetime.now(timezone.utc)),
    )
    payload = json.dumps(
        {
            "session_id": sid,
            "transcript_path": str(path),
            "cwd": project,
            "hook_event_name": "SessionEnd",
            "reason": "other",
        }
    )
    return path, payload


def log_latency(home: Path, env: dict[str, str], runs: int = 5) -> dict[str, float]:
    """``log`` on a 10 MB transcript: what the agent waits for (each run alone on the machine,
    its background reader finished before the next), and how long until the task is stored."""
    cli = [sys.executable, "-m", "skillopt_sleep"]
    baseline, latency = [], []
    for i in range(runs):
        path, payload = _big_session(home, f"deadbeef-0000-4000-8000-{i:012d}")
        baseline.append(_timed([*cli, "--version"], env))
        latency.append(_timed([*cli, "log"], env, stdin=payload))
        _wait_idle(home)
    _, payload = _big_session(home, "deadbeef-0000-4000-8000-00000000ffff")
    stored = _timed([*cli, "log", "--wait"], env, stdin=payload)
    return {
        "log_transcript_mb": path.stat().st_size / 1e6,
        "log_latency_s": statistics.median(latency),
        "cli_startup_s": statistics.median(baseline),
        "log_to_stored_s": stored,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--scale", type=float, default=1.0, help="1.0: 2,000 + 1,000 files, ~300 MB"
    )
    parser.add_argument("--claude-files", type=int, help="Claude Code files (default 2000 x scale)")
    parser.add_argument("--codex-files", type=int, help="Codex files (default 1000 x scale)")
    parser.add_argument("--mean-kb", type=int, default=100, help="mean file size in KB")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--agent-copies", type=int, default=50, help="copies of each agent's recorded sessions"
    )
    args = parser.parse_args()
    claude_n = args.claude_files if args.claude_files is not None else round(2000 * args.scale)
    codex_n = args.codex_files if args.codex_files is not None else round(1000 * args.scale)

    def say(text: str) -> None:
        """Progress on stderr, unless the output is one JSON object."""
        if not args.json:
            print(text, file=sys.stderr)

    with tempfile.TemporaryDirectory(prefix="harvest-bench-") as tmp:
        home = Path(tmp)
        env = dict(
            os.environ,
            HOME=str(home),
            SKILLOPT_SLEEP_HOME=str(home / "sleep"),
            PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        )
        env.pop("CLAUDE_CONFIG_DIR", None)
        env.pop("CODEX_HOME", None)
        say(f"building {claude_n} Claude Code + {codex_n} Codex files ...")
        t = time.perf_counter()
        total = build_history(home, claude_n, codex_n, args.mean_kb * 1024)
        say(f"  {total / 1e6:.0f} MB in {time.perf_counter() - t:.0f} s")

        harvest = ("harvest", "--all-projects", "--lookback", "30", "--json")
        cold = run_cli(env, *harvest)
        cold_out = json.loads(cold["out"])
        warm = run_cli(env, *harvest)
        warm_out = json.loads(warm["out"])

        resumed = next((home / ".claude" / "projects").rglob("*.jsonl"))
        sid = resumed.stem
        project = next(json.loads(line).get("cwd") for line in resumed.open() if '"cwd"' in line)
        syn.write(
            resumed,
            syn.claude_session(
                sid,
                project,
                [syn.SynthTurn("No, that's wrong: always use pytest -q", "Understood.")],
                datetime.now(timezone.utc),
            ),
            append=True,
        )
        append = run_cli(env, *harvest)
        append_out = json.loads(append["out"])
        hook = log_latency(home, env)
    from bench.harvest_agents import bench_agent, line
    from skillopt_sleep.harvest import agents

    per_agent = [bench_agent(name, args.agent_copies) for name in agents.names()]

    result = {
        "claude_files": claude_n,
        "codex_files": codex_n,
        "history_mb": total / 1e6,
        "cold_harvest_s": cold["run_s"],
        "cold_wall_s": cold["wall_s"],
        "cold_mb_read": cold_out["totals"]["bytes_read"] / 1e6,
        "cold_throughput_mb_s": cold_out["totals"]["bytes_read"] / 1e6 / cold["run_s"],
        "cold_tasks": cold_out["totals"]["tasks_new"],
        "cold_lines_skipped": sum(cold_out["totals"]["lines_skipped"].values()),
        "peak_memory_mb": cold["maxrss_kb"] / 1024,
        "second_harvest_s": warm["run_s"],
        "second_wall_s": warm["wall_s"],
        "second_bytes_read": warm_out["totals"]["bytes_read"],
        "second_speedup_x": cold["run_s"] / warm["run_s"],
        "cold_cpu_s": cold["cpu_s"],
        "cold_throughput_cpu_mb_s": cold_out["totals"]["bytes_read"] / 1e6 / cold["cpu_s"],
        "second_cpu_s": warm["cpu_s"],
        "second_speedup_cpu_x": cold["cpu_s"] / warm["cpu_s"],
        "append_pickup_s": append["run_s"],
        "append_wall_s": append["wall_s"],
        "append_bytes_read": append_out["totals"]["bytes_read"],
        "append_tasks_updated": append_out["totals"]["tasks_updated"],
        **hook,
        "log_latency_vs_startup_x": hook["log_latency_s"] / hook["cli_startup_s"],
        "agents": per_agent,
        "targets": {
            "second_speedup_x >= 50": cold["run_s"] / warm["run_s"] >= 50,
            "peak_memory_mb < 150": cold["maxrss_kb"] / 1024 < 150,
            "log_latency_s < 0.5": hook["log_latency_s"] < 0.5,
        },
    }
    if args.json:
        print(json.dumps(result, indent=2, sort_keys=True))
        return 0
    print(f"history: {claude_n} Claude Code + {codex_n} Codex files, {total / 1e6:.0f} MB")
    print(
        f"cold harvest: {result['cold_mb_read']:.0f} MB in {cold['run_s']:.2f} s = "
        f"{result['cold_throughput_mb_s']:.1f} MB/s ({cold['wall_s']:.2f} s wall; "
        f"{cold['cpu_s']:.2f} s CPU = {result['cold_throughput_cpu_mb_s']:.0f} MB/s of CPU), "
        f"{result['cold_tasks']} tasks, peak memory {result['peak_memory_mb']:.0f} MB "
        "(target < 150)"
    )
    print(
        f"second harvest, nothing new: {warm['run_s']:.3f} s ({warm['wall_s']:.2f} s wall), "
        f"{result['second_bytes_read']} bytes read: {result['second_speedup_x']:.0f}x faster "
        f"than cold (target >= 50x); in CPU time {warm['cpu_s']:.3f} s vs {cold['cpu_s']:.2f} s: "
        f"{result['second_speedup_cpu_x']:.0f}x"
    )
    print(
        f"one appended session: {append['run_s']:.3f} s ({append['wall_s']:.2f} s wall), "
        f"{result['append_bytes_read'] / 1e3:.0f} KB read, "
        f"{result['append_tasks_updated']} task updated"
    )
    print(
        f"log on a {hook['log_transcript_mb']:.0f} MB transcript: {hook['log_latency_s']:.3f} s "
        f"(target < 0.5; bare CLI start-up {hook['cli_startup_s']:.3f} s = "
        f"{result['log_latency_vs_startup_x']:.2f}x), stored after {hook['log_to_stored_s']:.2f} s"
    )
    print(f"each agent alone, {args.agent_copies} copies of its recorded sessions:")
    for row in per_agent:
        print("  " + line(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
