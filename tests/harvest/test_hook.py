"""`log`, the SessionEnd hook entry: stores the session, never fails the agent."""

from __future__ import annotations

import json
import time
from pathlib import Path

from skillopt_sleep.markers import REPLAY_ENV
from skillopt_sleep.store import Store

from .conftest import HOOK_RECORDS

SESSION = "20c8f1d0-421d-422c-8534-ebdd30d8e6c6"


def _payload(home: Path) -> str:
    """The real SessionEnd payload, pointing at the transcript copied into the test's HOME."""
    [path] = HOOK_RECORDS.glob("SessionEnd-*.json")
    data = json.loads(path.read_text())
    data["transcript_path"] = str(
        home / ".claude/projects/-home-dev-work-alpha" / f"{SESSION}.jsonl"
    )
    return json.dumps(data)


def _store(home: Path) -> Store:
    return Store.open(home / "sleep-home" / "data" / "skillopt-sleep.db")


def _spool(home: Path) -> list[Path]:
    return sorted((home / "sleep-home" / "state" / "spool").glob("*.json"))


def test_log_wait_stores_the_sessions_task(cli, agent_homes, sandbox_home):
    r = cli("log", "--wait", stdin=_payload(sandbox_home))
    assert (r.code, r.out, r.err) == (0, "", "")
    [task] = _store(sandbox_home).list_tasks()
    assert task.session_id == SESSION and task.intent == "/demo-plugin:hello world"
    assert _spool(sandbox_home) == []
    log = (sandbox_home / "sleep-home" / "logs" / "hook.log").read_text()
    assert "log: 1 session(s), 1 new and 0 updated task(s), lines skipped: none" in log


def test_log_returns_at_once_and_a_detached_reader_stores_the_task(
    cli, agent_homes, sandbox_home, subprocess_env, monkeypatch
):
    monkeypatch.setenv("PYTHONPATH", subprocess_env["PYTHONPATH"])
    r = cli("log", stdin=_payload(sandbox_home))
    assert (r.code, r.out, r.err) == (0, "", "")
    deadline = time.monotonic() + 60
    tasks = []
    while time.monotonic() < deadline and not tasks:
        time.sleep(0.2)
        tasks = _store(sandbox_home).list_tasks()
    assert [t.session_id for t in tasks] == [SESSION]
    while time.monotonic() < deadline and _spool(sandbox_home):
        time.sleep(0.1)
    assert _spool(sandbox_home) == []


def test_bad_hook_input_exits_0_and_leaves_a_notice_status_shows(cli):
    r = cli("log", stdin="{not json")
    assert r.code == 0 and r.out == ""
    assert r.err.startswith("skillopt-sleep: error: log: the hook JSON is invalid")
    status = cli("status", "--json").json()
    [notice] = status["notices"]
    assert notice["kind"] == "hook" and notice["message"].startswith(
        "log: the hook JSON is invalid"
    )
    r = cli("log", stdin='{"session_id": "x"}')
    assert r.code == 0 and "transcript_path: Field required" in r.err


def test_log_exits_0_even_when_the_store_cannot_be_opened(cli, sandbox_home, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    r = cli("log", stdin="{}", env={"SKILLOPT_SLEEP_HOME": str(blocker / "home")})
    assert r.code == 0
    assert r.err.startswith("skillopt-sleep: error: log: ")


def test_sessions_run_by_our_replays_are_not_logged(cli, agent_homes, sandbox_home):
    r = cli("log", "--wait", stdin=_payload(sandbox_home), env={REPLAY_ENV: "1"})
    assert (r.code, r.err) == (0, "")
    assert _store(sandbox_home).list_tasks() == [] and _spool(sandbox_home) == []


def test_a_missing_transcript_leaves_a_notice_status_shows(cli, sandbox_home):
    gone = sandbox_home / "gone.jsonl"
    payload = json.dumps(
        {"session_id": "s", "transcript_path": str(gone), "hook_event_name": "SessionEnd"}
    )
    r = cli("log", "--wait", stdin=payload)
    assert (r.code, r.out) == (0, "")  # the hook never fails the agent
    assert _spool(sandbox_home) == []  # not retried forever
    r = cli("status")  # what the user sees next (a notice is shown once)
    assert (
        f"log: the transcript of session s is missing ({gone}): nothing was logged from it" in r.out
    )
