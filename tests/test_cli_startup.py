"""A command imports what it uses: `log` runs at every session end, and many a command in a new
process. What each start costs is measured by ``python -m bench.startup``; here, what it loads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from skillopt_sleep.cli import COMMAND_MODULES
from tests.drained import drained

REPO = Path(__file__).resolve().parent.parent
# what a command may use but `log` and `--version` need not load
HEAVY = [["store"], ["settings"], ["backends"], ["review"], ["night"], ["optimize"]]
# nor these: the task records' pydantic models (the drainer makes records, the hook spools a
# payload), the turn rules, an event loop, the SDKs
HOOK_NEVER = [
    "skillopt_sleep.models",
    "skillopt_sleep.harvest.turns",
    "asyncio",
    "ssl",
    "anthropic",
    "openai",
    "httpx",
]

SHOW_MODULES = """
import json, sys
from skillopt_sleep.cli import main
try:
    code = main(sys.argv[1:])
finally:  # --version exits from inside argparse
    print("MODULES", json.dumps(sorted(sys.modules)))
sys.exit(code)
"""


def loaded(argv: list[str], stdin: str, home: Path, codes: tuple[int, ...] = (0,)) -> list[str]:
    env = dict(os.environ, SKILLOPT_SLEEP_HOME=str(home / "sleep"), HOME=str(home))
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run(
        [sys.executable, "-c", SHOW_MODULES, *argv],
        input=stdin,
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode in codes, r.stderr
    line = next(x for x in r.stdout.splitlines() if x.startswith("MODULES "))
    return list(json.loads(line.removeprefix("MODULES ")))


def test_log_spools_its_payload_without_the_store_the_settings_or_the_backends(tmp_path):
    payload = json.dumps({"session_id": "s1", "transcript_path": str(tmp_path / "none.jsonl")})
    modules = loaded(["log"], payload, tmp_path)
    assert [m for m in modules if m.split(".")[1:2] in HEAVY] == []
    assert "skillopt_sleep.harvest.mine" not in modules  # the task miner: the drainer's work
    assert [m for m in HOOK_NEVER if m in modules] == []
    assert list((tmp_path / "sleep").rglob("spool")) and drained(tmp_path / "sleep")


def test_version_loads_no_command_nor_what_commands_use(tmp_path):
    modules = loaded(["--version"], "", tmp_path)
    commands = [f"skillopt_sleep.cli.{name}" for name in COMMAND_MODULES]
    assert [m for m in modules if m in commands or m.split(".")[1:2] in [*HEAVY, ["harvest"]]] == []


# what reading the log needs none of: the night and its gate (the replays, an event loop), the
# guards and their homoglyph tables, the task miner's text rules, the SDKs
READER_NEVER = [
    "skillopt_sleep.night",
    "skillopt_sleep.evidence.trials",
    "skillopt_sleep.optimize.seams",
    "skillopt_sleep.rules.guards",
    "skillopt_sleep.review.adopt",
    "skillopt_sleep.harvest.check_miner",
    "skillopt_sleep.harvest.run",
    "confusable_homoglyphs",
    "asyncio",
    "anthropic",
    "openai",
]


def test_status_and_review_read_the_log_without_the_night_the_gate_or_the_guards(tmp_path):
    for argv in (["status"], ["review"]):
        modules = loaded(argv, "", tmp_path, codes=(0, 8))
        assert [m for m in READER_NEVER if m in modules] == [], argv


def test_help_lists_every_command_without_importing_what_the_commands_run(tmp_path):
    modules = loaded(["--help"], "", tmp_path)
    assert [
        m
        for m in [*READER_NEVER, "skillopt_sleep.backends", "skillopt_sleep.train"]
        if m in modules
    ] == []
