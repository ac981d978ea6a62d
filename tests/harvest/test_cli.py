"""`harvest` as a user runs it: what it prints, what lands in the store, what it refuses."""

from __future__ import annotations

import os
import shutil
import time
from datetime import datetime, timezone
from pathlib import Path

from bench.worlds import synthetic as syn
from skillopt_sleep.harvest.scan import SOURCES
from skillopt_sleep.markers import REPLAY_MARKER
from skillopt_sleep.store import Store

ALPHA, BETA = "/home/dev/work/alpha", "/home/dev/work/beta_app.v2"


def _store(sandbox_home: Path) -> Store:
    return Store.open(sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db")


def test_harvest_json_reports_per_source_and_folds_repeated_requests(
    cli, agent_homes, sandbox_home
):
    r = cli("harvest", "--all-projects", "--since", "2026-11-01", "--json")
    assert r.code == 0, r.err
    out = r.json()
    assert out["all_projects"] is True and out["first_run"] is True
    claude, codex = out["sources"]["claude-code"], out["sources"]["codex"]
    assert (claude["files_scanned"], claude["files_read"], claude["sessions"]) == (5, 5, 5)
    assert (codex["files_scanned"], codex["files_read"], codex["sessions"]) == (5, 5, 5)
    assert claude["bytes_read"] + codex["bytes_read"] == sum(
        p.stat().st_size for p in sandbox_home.rglob("*.jsonl")
    )
    assert out["totals"]["lines_skipped"] == {}
    # Claude and Codex were asked the same three things in alpha: one task each, seen twice.
    assert (out["totals"]["tasks_new"], out["totals"]["tasks_updated"]) == (7, 3)
    tasks = {t.intent: t for t in _store(sandbox_home).list_tasks()}
    assert len(tasks) == 7
    assert tasks["Run the test suite"].occurrences == 2
    assert tasks["Run the test suite"].outcome == "failure"
    assert tasks["Run the test suite"].feedback == "No, that's wrong: always use pytest -q"
    assert tasks["Write a README for this app"].occurrences == 1

    again = cli("harvest", "--all-projects", "--since", "2026-11-01", "--json").json()
    assert again["first_run"] is False
    assert again["totals"]["bytes_read"] == 0 and again["totals"]["files_unchanged"] == 10
    assert (again["totals"]["tasks_new"], again["totals"]["tasks_updated"]) == (0, 0)
    assert _store(sandbox_home).get_task(tasks["Run the test suite"].id).occurrences == 2


def test_harvest_reads_only_the_invoked_project_by_default(cli, agent_homes, sandbox_home):
    r = cli("harvest", "--since", "2026-11-01", "--json", cwd=Path(BETA))
    assert r.code == 0, r.err
    out = r.json()
    assert out["project"] == BETA and out["all_projects"] is False
    assert out["sources"]["claude-code"]["files_scanned"] == 1
    assert out["sources"]["codex"]["files_other_projects"] == 3
    assert {t.project for t in _store(sandbox_home).list_tasks()} == {BETA}


def test_the_first_harvest_looks_back_only_the_configured_days(cli, agent_homes, sandbox_home):
    old = time.time() - 40 * 86400
    for path in sandbox_home.rglob("*.jsonl"):
        os.utime(path, (old, old))
    r = cli("harvest", "--all-projects")
    assert r.code == 0, r.err
    assert "first harvest: looking back 7 days (--since or --lookback to go further)" in r.err
    assert "0 new task(s)" in r.out and "5 older than the window" in r.out
    r = cli("harvest", "--all-projects", "--lookback", "60", "--json")
    assert r.json()["totals"]["tasks_new"] == 7


def test_claude_config_dir_and_codex_home_are_honoured(cli, agent_homes, sandbox_home, tmp_path):
    claude, codex = agent_homes
    shutil.move(claude, tmp_path / "claude-cfg")
    shutil.move(codex, tmp_path / "codex-home")
    r = cli(
        "harvest",
        "--all-projects",
        "--since",
        "2026-11-01",
        "--json",
        env={
            "CLAUDE_CONFIG_DIR": str(tmp_path / "claude-cfg"),
            "CODEX_HOME": str(tmp_path / "codex-home"),
        },
    )
    out = r.json()
    assert {k: out["roots"][k] for k in ("claude-code", "codex")} == {
        "claude-code": str(tmp_path / "claude-cfg"),
        "codex": str(tmp_path / "codex-home"),
    }
    assert out["totals"]["files_read"] == 10


def test_one_source_only(cli, agent_homes):
    out = cli("harvest", "--all-projects", "--since", "30d", "--source", "codex", "--json").json()
    assert list(out["sources"]) == ["codex"] and out["totals"]["tasks_new"] == 5
    assert SOURCES == ("claude-code", "codex")


def test_replay_sessions_are_never_mined(cli, sandbox_home):
    now = datetime.now(timezone.utc)
    sid = "5b0c9e7e-1b4c-4f0e-9d65-0d7c7c9a1f10"
    syn.write(
        syn.claude_path(sandbox_home / ".claude", ALPHA, sid),
        syn.claude_session(
            sid, ALPHA, [syn.SynthTurn(f"{REPLAY_MARKER} Run the test suite", "OK")], now
        ),
    )
    out = cli("harvest", "--all-projects", "--json").json()
    assert out["totals"]["replay_sessions"] == 1 and out["totals"]["tasks_new"] == 0
    assert _store(sandbox_home).list_tasks() == []


def test_contradictory_or_malformed_flags_are_one_line_errors(cli):
    r = cli("harvest", "--project", "/tmp", "--all-projects")
    assert r.code == 2
    assert r.err == (
        "skillopt-sleep: error: --project and --all-projects exclude each other "
        "(give one of them)\n"
    )
    r = cli("harvest", "--since", "last tuesday")
    assert r.code == 2
    assert r.err == (
        "skillopt-sleep: error: --since 'last tuesday' is not a date, a date-time or a "
        "duration (use e.g. 2026-11-01, 2026-11-01T09:00, 36h or 3d)\n"
    )
    r = cli("harvest", "--lookback", "0")
    assert r.code == 2 and "--lookback 0 must be a positive number of days" in r.err
