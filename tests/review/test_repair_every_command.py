"""An adoption a kill cut short is repaired by whichever command runs next, not only by status.

The journal and the half-adopted files are left the way a kill leaves them (tests/review/
test_adopt_crash.py); then one command of the user's day runs through ``main`` and the project's
files are as before the adoption, the journal is gone, and the command said so on stderr.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from skillopt_sleep.cli import main
from skillopt_sleep.review.adopt import adopt
from skillopt_sleep.review.journal import journal_path

from .test_adopt_crash import NIGHT, Crash, CrashAt, clock, fresh, snapshot, states

COMMANDS = {
    "tasks list": ("tasks", "list"),
    "tasks add": ("tasks", "add", "--intent", "Run the tests", "--check", "contains=passed"),
    "report": ("report", "--out", "{tmp}/history.html"),
    "rules": ("rules",),
    "harvest": ("harvest",),
    "config show": ("config", "show"),
    "doctor": ("doctor", "--backend", "simulated"),
}


def half_adopted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tag: str):
    """(home, project, the files before the adoption): adopt killed after CLAUDE.md was written."""
    before, after, _, _ = states(tmp_path, monkeypatch, "plain")
    home, project = fresh(tmp_path, monkeypatch, tag, "plain")
    with pytest.raises(Crash):
        adopt(home.store, home.paths, home.store.night(NIGHT), clock(), ops=CrashAt(11, "after"))
    assert snapshot(project) not in (before, after)
    assert journal_path(home.paths, str(project)).exists()
    return home, project, before


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_next_command_puts_the_files_back_and_says_so(cli, tmp_path, monkeypatch, command):
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    home, project, before = half_adopted(tmp_path, monkeypatch, command.replace(" ", "-"))
    argv = [a.replace("{tmp}", str(tmp_path)) for a in COMMANDS[command]]
    r = cli(*argv, cwd=project)
    assert snapshot(project) == before, r.err
    assert not journal_path(home.paths, str(project)).exists()
    assert home.store.night(NIGHT).state == "staged"
    said = [line for line in r.err.splitlines() if "interrupted adoption" in line]
    note = (
        f"note: an interrupted adoption of night {NIGHT} was undone: the files are as before "
        f"it; adopt it again with `skillopt-sleep adopt {NIGHT}`"
    )
    assert said == [note], r.err


def test_rules_say_none_is_adopted_and_no_file_holds_one(cli, tmp_path, monkeypatch):
    _, project, before = half_adopted(tmp_path, monkeypatch, "rules-words")
    assert "Use uv." in (project / "CLAUDE.md").read_text()  # the half adoption's rule
    r = cli("rules", cwd=project)
    assert r.code == 0, r.err
    assert "no adopted rules yet" in r.out and "CLAUDE.md: 0 of 30 learned rules" in r.out
    assert "Use uv." not in (project / "CLAUDE.md").read_text() and snapshot(project) == before


def test_status_shows_the_repair_once(cli, tmp_path, monkeypatch):
    _, project, before = half_adopted(tmp_path, monkeypatch, "status-once")
    r = cli("tasks", "list", cwd=project)
    assert r.code == 0 and snapshot(project) == before
    r = cli("status", cwd=project)  # the notice the repair left, shown where notices are
    assert r.out.count(f"an interrupted adoption of night {NIGHT} was undone") == 1
    assert "interrupted adoption" not in r.err
    r = cli("status", cwd=project)
    assert "interrupted adoption" not in r.out + r.err


def test_the_session_start_nudge_does_not_offer_a_half_adopted_proposal(tmp_path, monkeypatch):
    home, project, before = half_adopted(tmp_path, monkeypatch, "nudge")
    out = io.StringIO()
    payload = json.dumps({"cwd": str(project)})
    code = main(["nudge"], stdin=io.StringIO(payload), stdout=out, cwd=project)
    assert code == 0
    assert "wait" not in out.getvalue()
    assert out.getvalue() == (
        "skillopt-sleep: an adoption was cut short and left the files half changed; "
        "skillopt-sleep status puts them back\n"
    )
    assert journal_path(home.paths, str(project)).exists()  # the hook reads, never repairs
    code = main(["status"], stdout=io.StringIO(), stderr=io.StringIO(), cwd=project)
    assert code == 0 and snapshot(project) == before
