"""Harvest benchmark, agent by agent: every registered agent's recorded sessions (the test
fixtures), copied many times into a fresh home laid out as that agent writes it, then

- the cold harvest of that agent alone (``--source NAME``): MB read, tasks, throughput,
- a second harvest with nothing new: files unchanged, bytes read (target: 0) and how many
  times faster it is than the cold one.

An agent whose fixtures are not in ``tests/fixtures/transcripts/<name>/`` is reported as
such, never skipped silently. OpenCode's fixture is the rows of its SQLite store, loaded into
one database (its sessions are not copied: one store per user).

    python -m bench.harvest_agents                # 200 copies of each agent's sessions
    python -m bench.harvest_agents --copies 20 --json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.harvest import REPO, CliRun, run_cli

FIXTURES = REPO / "tests" / "fixtures" / "transcripts"
FIXTURE_DIRS = {"claude-code": "claude"}  # the others' fixture folders are named after them
_ROOT_VARS = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "GEMINI_CLI_HOME", "QWEN_HOME")


def _sessions_home(name: str, home: Path, copies: int) -> int:
    """Lay out ``copies`` copies of ``name``'s recorded sessions under ``home``; their bytes."""
    from skillopt_sleep.harvest import agents

    fixture = FIXTURES / FIXTURE_DIRS.get(name, name)
    if (fixture / "schema.sql").is_file():  # a session database (OpenCode)
        from skillopt_sleep.testing.opencode_agent import load_rows

        db = home / ".local" / "share" / "opencode" / "opencode.db"
        db.parent.mkdir(parents=True)
        rows = (fixture / "rows.jsonl").read_text(encoding="utf-8").splitlines()
        load_rows(db, (fixture / "schema.sql").read_text(encoding="utf-8"), rows)
        return db.stat().st_size
    shutil.copytree(fixture, home, dirs_exist_ok=True)
    agent = agents.get(name)
    root = agent.root({"HOME": str(home)})
    originals = [Path(p) for p in agent.files(root, None, [])]
    for k in range(1, copies):
        for path in originals:
            if path.name == "events.jsonl":  # one folder per session (Copilot)
                shutil.copytree(path.parent, path.parent.with_name(f"{path.parent.name}-{k}"))
            else:
                shutil.copy2(path, path.with_name(f"{path.stem}-copy{k}{path.suffix}"))
    return sum(os.path.getsize(p) for p in agent.files(root, None, []))


def bench_agent(name: str, copies: int, run: Callable[..., CliRun] = run_cli) -> dict[str, Any]:
    """Cold and no-change harvests of one agent's sessions in a home of their own. ``run(env,
    *argv)`` runs the CLI: in a fresh process of its own by default, as the timings need; a test
    that only reads what the harvests report may run it in its own process."""
    fixture = FIXTURES / FIXTURE_DIRS.get(name, name)
    if not fixture.is_dir():
        return {"agent": name, "fixtures": f"none in {fixture.relative_to(REPO)}"}
    with tempfile.TemporaryDirectory(prefix=f"harvest-{name}-") as tmp:
        home = Path(tmp)
        size = _sessions_home(name, home, copies)
        env = dict(
            os.environ,
            HOME=str(home),
            SKILLOPT_SLEEP_HOME=str(home / "sleep"),
            PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        )
        for var in _ROOT_VARS:
            env.pop(var, None)
        argv = ("harvest", "--all-projects", "--since", "3650d", "--source", name, "--json")
        cold, warm = run(env, *argv), run(env, *argv)
    c, w = json.loads(cold["out"])["sources"][name], json.loads(warm["out"])["sources"][name]
    return {
        "agent": name,
        "history_mb": size / 1e6,
        "files": c["files_scanned"],
        "cold_harvest_s": cold["run_s"],
        "cold_mb_read": c["bytes_read"] / 1e6,
        "cold_throughput_mb_s": c["bytes_read"] / 1e6 / cold["run_s"],
        "cold_sessions": c["sessions"],
        "cold_tasks": c["tasks_new"] + c["tasks_updated"],
        "second_harvest_s": warm["run_s"],
        "second_files_unchanged": w["files_unchanged"],
        "second_bytes_read": w["bytes_read"],
        "second_speedup_x": cold["run_s"] / warm["run_s"],
    }


def line(r: dict[str, Any]) -> str:
    """One agent's result as one line of text."""
    if "fixtures" in r:
        return f"{r['agent']:12} no fixtures ({r['fixtures']})"
    return (
        f"{r['agent']:12} {r['files']:5} file(s) {r['history_mb']:7.2f} MB: cold "
        f"{r['cold_harvest_s']:6.2f} s ({r['cold_throughput_mb_s']:5.1f} MB/s, "
        f"{r['cold_tasks']} task(s)); nothing new {r['second_harvest_s']:5.2f} s "
        f"({r['second_speedup_x']:.0f}x, {r['second_bytes_read']} bytes read)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=200, help="copies of each session")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    from skillopt_sleep.harvest import agents

    rows = [bench_agent(name, args.copies) for name in agents.names()]
    if args.json:
        print(json.dumps({"copies": args.copies, "agents": rows}, indent=2, sort_keys=True))
        return 0
    for r in rows:
        print(line(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
