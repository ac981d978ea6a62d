"""`skillopt-sleep nudge`, the session-start hook: one line when a proposal waits or the last
night failed, once a day per project, and silence with exit 0 whatever goes wrong."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from skillopt_sleep.cli.nudge_cmd import Findings, nudge_text, run_hook
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.proposal_models import Edit, NightSummary
from skillopt_sleep.schedule.state import LastRun, ProjectResult, save_run
from skillopt_sleep.store import Store

NOW = datetime.now(timezone.utc)
LINE = "skillopt-sleep: 2 learned rules wait for review: /skillopt-sleep review"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "app"
    path.mkdir()
    return path.resolve()


def _store() -> Store:
    return Store.open(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).ensure().db)


def _night(project: Path, state: str, *, decision: str = "accept", edits: int = 2) -> None:
    summary = NightSummary(
        night_id=f"20261126-0317{edits:02d}",
        project=str(project),
        started_at=NOW - timedelta(hours=8),
        decision=decision,  # type: ignore[arg-type]
        reason="the model did not answer" if decision == "outage" else "",
        proposal_dir="/nonexistent" if state == "staged" else None,
        edits=[
            Edit(target="memory", op="add", content=f"Rule {i}.", status="applied")
            for i in range(edits)
        ],
    )
    store = _store()
    store.save_night(summary, state)
    store.close()


def _failed_run(project: Path, message: str, *, hours_ago: float = 8) -> None:
    store = _store()
    started = NOW - timedelta(hours=hours_ago)
    save_run(
        store,
        LastRun(
            started_at=started,
            finished_at=started + timedelta(minutes=1),
            trigger="scheduled",
            status="failed",
            message=message,
            projects=[ProjectResult(project=str(project), status="failed", message=message)],
        ),
    )
    store.close()


def _payload(project: Path) -> str:
    return json.dumps({"cwd": str(project), "hook_event_name": "SessionStart", "source": "startup"})


def _nudge(cli, project: Path, *flags: str):
    return cli("nudge", "--for", "claude-code", *flags, cwd=project, stdin=_payload(project))


def test_a_waiting_proposal_is_one_line_the_user_sees_naming_the_review_command(cli, project):
    _night(project, "staged")
    r = _nudge(cli, project)
    assert (r.code, r.err) == (0, "")
    assert r.out.count("\n") == 1
    assert json.loads(r.out) == {"systemMessage": LINE}


def test_the_line_names_the_command_where_the_user_types_it(cli, project):
    _night(project, "staged", edits=1)
    r = cli("nudge", cwd=project, stdin="")  # by hand in a terminal: the CLI itself
    assert r.out == "skillopt-sleep: 1 learned rule waits for review: skillopt-sleep review\n"


def test_once_a_day_per_project(cli, project, tmp_path):
    _night(project, "staged")
    other = tmp_path / "other"
    other.mkdir()
    _night(other.resolve(), "staged", edits=3)
    assert _nudge(cli, project).out
    again = _nudge(cli, project)
    assert (again.code, again.out, again.err) == (0, "", "")
    assert "3 learned rules" in _nudge(cli, other).out  # another project has its own day


def test_the_next_day_it_nudges_again(project, sandbox_home):
    _night(project, "staged")

    def at(when: datetime) -> str:
        out = io.StringIO()
        code = run_hook(
            env=os.environ,
            stdin=io.StringIO(_payload(project)),
            stdout=out,
            cwd=project,
            agent="claude-code",
            now=lambda: when,
        )
        assert code == 0
        return out.getvalue()

    assert at(NOW) and not at(NOW + timedelta(minutes=5))
    assert json.loads(at(NOW + timedelta(days=1)))["systemMessage"] == LINE


def test_a_failed_night_says_what_failed_and_the_command_to_see_it(cli, project):
    _failed_run(project, "the backend claude-code is not logged in")
    r = _nudge(cli, project)
    assert json.loads(r.out)["systemMessage"] == (
        "skillopt-sleep: last night failed (the backend claude-code is not logged in); "
        "see /skillopt-sleep status"
    )


def test_an_outage_night_counts_as_failed(cli, project):
    _night(project, "none", decision="outage", edits=0)
    message = json.loads(_nudge(cli, project).out)["systemMessage"]
    assert message.startswith("skillopt-sleep: last night failed (the model could not be reached")


def test_a_waiting_proposal_and_a_failure_share_the_one_line(cli, project):
    _night(project, "staged")
    _failed_run(project, "night timed out")
    message = json.loads(_nudge(cli, project).out)["systemMessage"]
    assert message == f"{LINE}; and last night failed (night timed out); see /skillopt-sleep status"


@pytest.mark.parametrize(
    "history",
    ["empty store", "adopted", "rejected", "old failure", "another project's proposal"],
)
def test_nothing_waiting_is_silent(cli, project, tmp_path, history):
    store = _store()
    store.close()
    if history in ("adopted", "rejected"):
        _night(project, history)
    elif history == "old failure":
        _failed_run(project, "night timed out", hours_ago=24 * 5)
    elif history == "another project's proposal":
        _night(tmp_path.resolve(), "staged")
    r = _nudge(cli, project)
    assert (r.code, r.out, r.err) == (0, "", "")


def test_no_store_is_silent_and_creates_nothing(cli, project, sandbox_home):
    r = _nudge(cli, project)
    assert (r.code, r.out, r.err) == (0, "", "")
    assert not (sandbox_home / "sleep-home").exists()


def test_a_corrupt_store_is_silent_exit_0(cli, project):
    db = resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).ensure().db
    db.write_bytes(b"this is not a database" * 100)
    r = _nudge(cli, project)
    assert (r.code, r.out, r.err) == (0, "", "")
    assert db.read_bytes() == b"this is not a database" * 100


@pytest.mark.parametrize("payload", ["{not json", "[1, 2]", '{"cwd": 3}'])
def test_an_odd_payload_is_silent_or_falls_back_to_the_directory(cli, project, payload):
    _night(project, "staged")
    r = cli("nudge", "--for", "claude-code", cwd=project, stdin=payload)
    assert r.code == 0 and r.err == ""
    assert r.out in ("", json.dumps({"systemMessage": LINE}) + "\n")


def test_past_its_budget_it_prints_nothing(project):
    _night(project, "staged")
    ticks = iter(range(100))  # each look at the clock: one more second
    out = io.StringIO()
    code = run_hook(
        env=os.environ,
        stdin=io.StringIO(_payload(project)),
        stdout=out,
        cwd=project,
        agent="claude-code",
        monotonic=lambda: float(next(ticks)),
    )
    assert (code, out.getvalue()) == (0, "")
    assert not (resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).state_dir / "nudges.json").exists()


def _process(project: Path, *flags: str, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", "nudge", "--for", "claude-code", *flags],
        input=_payload(project),
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        cwd=project,
        timeout=60,
        check=False,
    )


def test_a_process_out_of_budget_ends_silently_with_0(project):
    _night(project, "staged")
    r = _process(project, "--budget-ms", "0")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    assert json.loads(_process(project, "--budget-ms", "30000").stdout)["systemMessage"] == LINE


def test_a_closed_stdout_is_exit_0(project):
    _night(project, "staged")
    r = subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", "nudge", "--for", "claude-code"],
        input=_payload(project),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=project,
        timeout=60,
        check=False,
        pass_fds=(),
        preexec_fn=lambda: os.close(1),
    )
    assert (r.returncode, r.stderr) == (0, "")


def test_the_hook_imports_neither_pydantic_nor_the_store():
    script = (
        "import sys; from skillopt_sleep.cli import main; main(['nudge']); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'skillopt_sleep')))"
    )
    r = subprocess.run(
        [sys.executable, "-c", script],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    loaded = r.stdout.strip()
    assert "pydantic" not in loaded and "skillopt_sleep.store" not in loaded, loaded


def test_the_decision_alone():
    assert nudge_text(Findings(None, None), "claude-code") is None
    assert nudge_text(Findings(0, None), "codex") == (
        "skillopt-sleep: 0 learned rules wait for review: $skillopt-sleep review"
    )


def test_the_plugin_starts_the_nudge_through_the_launcher_at_startup_and_resume(kit):
    hooks = json.loads((kit.claude_plugin / "hooks" / "hooks.json").read_text("utf-8"))["hooks"]
    [group] = hooks["SessionStart"]
    assert group["matcher"] == "startup|resume"  # not after /clear or a compaction mid-work
    [hook] = group["hooks"]
    assert hook == {
        "type": "command",
        "command": '"${CLAUDE_PLUGIN_ROOT}/bin/skillopt-sleep" nudge --for claude-code',
    }


def test_the_launcher_without_an_engine_stays_silent_at_session_start(kit, tmp_path, clean_bin):
    home = tmp_path / "home"
    home.mkdir()
    (clean_bin / "python3").unlink()  # no Python that has the engine
    launcher = tmp_path / "launcher"  # outside any checkout
    launcher.write_bytes(kit.launcher.read_bytes())
    env = kit.base_env(home, clean_bin)
    r = kit.sh(launcher, "nudge", "--for", "claude-code", env=env)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    assert list(home.rglob("*")) == []  # and leaves no notice for `status` either
