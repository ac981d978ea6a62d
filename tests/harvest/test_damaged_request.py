"""A session whose request record is damaged: the record is skipped and named, and the correction
after it lands on no task (the request it answers is lost), never becomes a task's intent nor
lands on the task before; a later request of the session is a task as usual. Through the real
harvest, on each agent's recorded sessions, damaged as a bad disk or a writer's bug leaves them.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.store import Store
from skillopt_sleep.testing.opencode_agent import load_rows

from .conftest import TRANSCRIPTS

REQUEST = {
    "claude-code": "Run the test suite",
    "codex": "Run the test suite",
    "copilot": "run the tests please",
    "gemini": "run the tests please",
    "qwen": "QW run the tests please",
    "pi": "run the tests please",
    "opencode": "run the tests please",
}
CORRECTION = "No, that's wrong: always use pytest -q"
HOMES = {
    "claude-code": "claude",
    "codex": "codex",
    "copilot": "copilot",
    "gemini": "gemini",
    "qwen": "qwen",
    "pi": "pi",
}


def _numbered(value: Any, text: str) -> tuple[Any, int]:
    """``value`` with every string equal to ``text`` replaced by a number (a field of the wrong
    type where the prompt was), and how many were replaced."""
    if value == text:
        return 12345, 1
    if isinstance(value, dict):
        out, n = {}, 0
        for key, item in value.items():
            out[key], k = _numbered(item, text)
            n += k
        return out, n
    if isinstance(value, list):
        pairs = [_numbered(item, text) for item in value]
        return [p[0] for p in pairs], sum(p[1] for p in pairs)
    return value, 0


def _damage_jsonl(home: Path, request: str) -> Path:
    """The session file where ``request`` is corrected, its prompt's text made a number in
    every record that holds it; the file's path."""
    for path in sorted(home.rglob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        if not any(json.dumps(request) in line for line in lines) or not any(
            json.dumps(CORRECTION) in line for line in lines
        ):
            continue
        out = []
        for line in lines:
            value, n = _numbered(json.loads(line), request) if line.strip() else (None, 0)
            out.append(json.dumps(value) if n else line)
        path.write_text("\n".join(out) + "\n", encoding="utf-8")
        return path
    raise AssertionError(f"no session asks {request!r}")


def _opencode_rows(damage: Callable[[dict[str, Any]], None] | None) -> list[str]:
    """The recorded OpenCode rows; ``damage`` changes the first user message's ``data``."""
    rows = (TRANSCRIPTS / "opencode" / "rows.jsonl").read_text().splitlines()
    if damage is None:
        return rows
    for i, raw in enumerate(rows):
        row = json.loads(raw)
        data = json.loads(row["row"]["data"]) if row["table"] == "message" else {}
        if data.get("role") == "user":
            damage(data)
            row["row"]["data"] = json.dumps(data)
            rows[i] = json.dumps(row)
            return rows
    raise AssertionError("no user message")


def _home(agent: str, root: Path, damaged: bool) -> None:
    if agent == "opencode":
        schema = (TRANSCRIPTS / "opencode" / "schema.sql").read_text()

        def wrong_shape(data: dict[str, Any]) -> None:
            data.update(role=12345, time="notadict")

        rows = _opencode_rows(wrong_shape if damaged else None)
        db = root / ".local" / "share" / "opencode" / "opencode.db"
        shutil.rmtree(db.parent, ignore_errors=True)
        db.parent.mkdir(parents=True)
        load_rows(db, schema, rows)
        return
    shutil.copytree(TRANSCRIPTS / HOMES[agent], root, dirs_exist_ok=True)
    if damaged:
        _damage_jsonl(root, REQUEST[agent])


def _harvest(cli, agent: str) -> dict[str, Any]:
    r = cli("harvest", "--all-projects", "--since", "2026-01-01", "--source", agent, "--json")
    assert r.code == 0, r.err
    return r.json()


def _tasks(sandbox_home: Path) -> dict[str, Any]:
    store = Store.open(sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db")
    return {t.intent: t for t in store.list_tasks()}


@pytest.mark.parametrize("agent", list(REQUEST))
def test_a_damaged_request_is_named_and_its_correction_lands_on_no_task(agent, cli, sandbox_home):
    _home(agent, sandbox_home, damaged=False)
    clean = _harvest(cli, agent)
    whole = _tasks(sandbox_home)
    assert whole[REQUEST[agent]].feedback.endswith(CORRECTION), "the recording changed"
    assert clean["totals"]["lines_skipped"] == {}

    shutil.rmtree(sandbox_home / "sleep-home")
    _home(agent, sandbox_home, damaged=True)
    harvest = cli("harvest", "--all-projects", "--since", "2026-01-01", "--source", agent)
    assert harvest.code == 0, harvest.err
    status = cli("status", "--all-projects")
    for said in (harvest.out, status.out):  # the damaged record, and the turn it leaves lost
        assert re.search(r"bad-fields \d+, unattributed 1\b", said), said
    tasks = _tasks(sandbox_home)
    assert all(CORRECTION not in t.intent for t in tasks.values()), sorted(tasks)
    assert all(CORRECTION not in t.feedback for t in tasks.values()), sorted(tasks)
    # every other request of the agent's sessions is the task it was, with its feedback (qwen
    # asked the same in a second session, whose praise stays on it)
    others = {i: t.feedback for i, t in whole.items() if i != REQUEST[agent]}
    assert {i: t.feedback for i, t in tasks.items() if i != REQUEST[agent]} == others
    assert set(tasks) - set(others) == ({REQUEST[agent]} if agent == "qwen" else set())


def test_a_later_request_of_the_same_session_is_still_a_task(cli, sandbox_home):
    """The damaged request, its answer and correction, then the user asks for something else
    in the same session: that request is a task, the correction lands on neither."""
    _home("claude-code", sandbox_home, damaged=True)
    damaged = next(
        p for p in sandbox_home.rglob("*.jsonl") if "12345" in p.read_text(encoding="utf-8")
    )
    later = next(
        p
        for p in sandbox_home.rglob("*.jsonl")
        if "Create a notes file summarising this project" in p.read_text(encoding="utf-8")
    )
    session = json.loads(damaged.read_text(encoding="utf-8").splitlines()[0])["sessionId"]
    appended = [
        json.dumps({**json.loads(line), "sessionId": session})
        for line in later.read_text(encoding="utf-8").splitlines()
    ]
    damaged.write_text(damaged.read_text(encoding="utf-8") + "\n".join(appended) + "\n")
    later.unlink()

    out = _harvest(cli, "claude-code")
    assert out["totals"]["lines_skipped"].get("unattributed") == 1
    tasks = _tasks(sandbox_home)
    notes = tasks["Create a notes file summarising this project"]
    assert notes.session_id == session and notes.feedback == ""
    assert all(CORRECTION not in t.intent + t.feedback for t in tasks.values()), sorted(tasks)


def test_a_damaged_assistant_record_loses_no_correction(cli, sandbox_home):
    """Only a damaged record before the session's first request puts the next turn in doubt: one
    after it (here an answer of the agent with a field of the wrong type, far more often the
    case than a lost prompt) is skipped and named, and the correction still lands on its
    request."""
    _home("claude-code", sandbox_home, damaged=False)
    path = next(
        p for p in sandbox_home.rglob("*.jsonl") if CORRECTION in p.read_text(encoding="utf-8")
    )
    lines = path.read_text(encoding="utf-8").splitlines()
    answers = [i for i, line in enumerate(lines) if json.loads(line).get("type") == "assistant"]
    broken = json.loads(lines[answers[0]])
    broken["message"] = 12345
    lines[answers[0]] = json.dumps(broken)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    out = _harvest(cli, "claude-code")
    assert out["totals"]["lines_skipped"] == {"bad-fields": 1}
    assert _tasks(sandbox_home)[REQUEST["claude-code"]].feedback == CORRECTION


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_a_correction_written_after_the_harvest_that_read_the_damage_lands_on_no_task(
    agent, cli, sandbox_home
):
    """The session is read while the agent still answers the damaged request; the correction
    comes in the next harvest, which never reads the damaged record again."""
    _home(agent, sandbox_home, damaged=True)
    path = next(
        p for p in sandbox_home.rglob("*.jsonl") if CORRECTION in p.read_text(encoding="utf-8")
    )
    text = path.read_text(encoding="utf-8")
    cut = text.rindex("\n", 0, text.index(json.dumps(CORRECTION))) + 1
    path.write_text(text[:cut], encoding="utf-8")
    first = _harvest(cli, agent)
    assert first["totals"]["lines_skipped"].get("bad-fields", 0) >= 1

    with path.open("a", encoding="utf-8") as fh:
        fh.write(text[cut:])
    second = _harvest(cli, agent)
    assert second["totals"]["lines_skipped"] == {"unattributed": 1}
    tasks = _tasks(sandbox_home)
    assert all(CORRECTION not in t.intent + t.feedback for t in tasks.values()), sorted(tasks)
