"""A session-end hook that can write neither its spool nor the store (README: "If it ever fails,
it still exits 0 (...) and leaves a notice that status shows") on a disk with no room left.

The hook runs as its own process under a file size limit (RLIMIT_FSIZE: a write past it fails,
as on a full disk, and permissions do not lift it the way they do for root): the store is larger
than the limit, the payload it would spool too; one short line still fits in hook.log, as it
often fits in the last block of a log on a full disk. The next `status` shows that line, once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.store import Store

resource = pytest.importorskip("resource")  # POSIX

REPO = Path(__file__).resolve().parents[2]
LIMIT = 700  # bytes: a line of hook.log fits, the payload below and the store do not


def no_room() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def run_hook(home: Path, payload: dict) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, SKILLOPT_SLEEP_HOME=str(home / "sleep"), HOME=str(home))
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # a cache file cut at the limit would break the next run
    return subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", "log"],
        input=json.dumps(payload),
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=no_room,
    )


def test_a_hook_that_could_only_write_its_log_is_shown_by_status(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(tmp_path / "sleep"))
    monkeypatch.setenv("HOME", str(tmp_path))
    paths = resolve_paths(str(tmp_path / "sleep")).ensure()
    Store.open(paths.db).close()
    assert paths.db.stat().st_size > LIMIT
    assert cli("status", "--all-projects").code == 0  # nothing to show yet
    transcript = tmp_path / ("x" * 200) / ("y" * 200) / ("z" * 200) / "s1.jsonl"  # > LIMIT

    r = run_hook(tmp_path, {"session_id": "s1", "transcript_path": str(transcript)})
    assert r.returncode == 0, r.stderr
    assert "skillopt-sleep: error: log: cannot spool the hook payload" in r.stderr
    assert not list(paths.state_dir.glob("spool/*.json"))
    assert "hook: log:" not in "".join(n.message for n in Store.open(paths.db).notices())

    shown = cli("status", "--all-projects")
    assert shown.code == 0, shown.err
    lines = [line for line in shown.out.splitlines() if "hook: log:" in line]
    assert len(lines) == 1, shown.out
    assert "cannot spool the hook payload" in lines[0] and "File too large" in lines[0]
    again = cli("status", "--all-projects", "--json")  # shown once, like any notice
    assert again.code == 0 and json.loads(again.out)["notices"] == []


def test_a_failure_the_store_took_is_not_shown_twice(cli, tmp_path, monkeypatch):
    """Where the store takes the notice, hook.log gets no failure line: status shows it once."""
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(tmp_path / "sleep"))
    monkeypatch.setenv("HOME", str(tmp_path))
    r = cli("log", stdin="{not json")
    assert r.code == 0
    shown = cli("status", "--all-projects")
    assert len([line for line in shown.out.splitlines() if "hook: log:" in line]) == 1
    log = resolve_paths(str(tmp_path / "sleep")).log_dir / "hook.log"
    assert not log.exists() or "hook failed" not in log.read_text(encoding="utf-8")
