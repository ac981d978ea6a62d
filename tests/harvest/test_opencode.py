"""OpenCode sessions become tasks: the rows the real CLI wrote (tests/fixtures/transcripts/opencode),
read from a WAL SQLite store as OpenCode keeps it, mined the way every transcript is."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.harvest.expanded import typed
from skillopt_sleep.harvest.mine import mine_chunk
from skillopt_sleep.harvest.opencode import default_root, opencode_files
from skillopt_sleep.harvest.opencode_store import (
    SessionCursor,
    changed_sessions,
    new_chunks,
    read_session,
)
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.testing import ModelServer
from skillopt_sleep.testing.opencode_agent import (
    FIRST,
    FIX,
    PRAISE,
    SECOND,
    load_rows,
    opencode_db,
    which_opencode,
    write_fixture,
)
from skillopt_sleep.testing.replies import Responder

from .conftest import FALLBACK_TIME, TRANSCRIPTS, records_json

FIXTURE = TRANSCRIPTS / "opencode"
ROWS = (FIXTURE / "rows.jsonl").read_text(encoding="utf-8").splitlines()
SCHEMA = (FIXTURE / "schema.sql").read_text(encoding="utf-8")


def _store(tmp_path: Path, rows: list[str] = ROWS) -> Path:
    db = tmp_path / "opencode" / "opencode.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    load_rows(db, SCHEMA, rows)
    return db


def _tasks(db: Path) -> list[TaskRecord]:
    problems: list[tuple[str, str]] = []
    records = []
    for mark in changed_sessions(db, {}, problems):
        chunk, _ = read_session(db, mark.session_id)
        records.extend(mine_chunk(chunk, FALLBACK_TIME))
    assert problems == []
    return records


def _session_ids() -> list[str]:
    rows = [json.loads(r) for r in ROWS]
    return [r["row"]["id"] for r in rows if r["table"] == "session"]


def test_the_correction_lands_on_its_request_with_the_pytest_checks(tmp_path):
    task, _ = _tasks(_store(tmp_path))
    assert (task.source, task.project, task.intent) == ("opencode", "/home/dev/calc", FIRST)
    assert task.feedback == FIX and task.outcome == "failure"
    assert [t.kind for t in task.turns] == ["correction"]
    assert [plain(c) for c in task.checks] == [
        "contains 'pytest -q'",
        "runs pytest",
        "never runs unittest",
    ]


def test_the_commands_their_exit_codes_and_the_written_file_are_kept(tmp_path):
    task, _ = _tasks(_store(tmp_path))
    done = [(a.kind, a.command or a.path, a.exit_code, a.failed) for a in task.actions]
    assert done == [
        ("command", "python3 -m unittest 2>&1 | tail -1", 0, False),
        ("write", "NOTES.md", None, False),
        ("command", "ls does-not-exist", 2, True),
    ]
    assert task.actions[1].content == "# Notes\nadd() works.\n"
    assert "exit 2: ls: cannot access 'does-not-exist'" in task.attempt
    assert task.tools_used == ["bash", "write"] and task.model == "stub-model"


def test_praise_is_not_a_correction_nor_a_task_of_its_own(tmp_path):
    tasks = _tasks(_store(tmp_path))
    assert [t.intent for t in tasks] == [FIRST, SECOND]
    praised = tasks[1]
    assert praised.feedback == PRAISE and praised.outcome == "success"
    assert [t.kind for t in praised.turns] == ["praise"] and praised.checks == []
    assert [(a.kind, a.path) for a in praised.actions] == [("edit", "calc.py")]


def test_a_damaged_row_is_skipped_and_counted_and_nothing_else_is_lost(tmp_path):
    whole = _tasks(_store(tmp_path / "whole"))
    rows = list(ROWS)
    part = next(i for i, r in enumerate(rows) if '"table": "part"' in r and "step-start" in r)
    broken = json.loads(rows[part])
    broken["row"]["data"] = '{"type": "text", "text": "cut off'
    rows[part] = json.dumps(broken)
    db = _store(tmp_path / "damaged", rows)
    skipped = {}
    for sid in _session_ids():
        chunk, _ = read_session(db, sid)
        skipped.update({k: v + skipped.get(k, 0) for k, v in chunk.skipped.items()})
    assert skipped == {"invalid-json": 1}
    assert [t.model_dump() for t in _tasks(db)] == [t.model_dump() for t in whole]


def test_a_resumed_session_read_as_it_grows_gives_the_tasks_of_one_read(tmp_path):
    items = [json.loads(r) for r in ROWS]
    fix_at = next(_created(i) for i in items if i["table"] == "part" and FIX in i["row"]["data"])
    early = [i for i in items if i["table"] in ("project", "session") or _created(i) < fix_at]
    db = _store(tmp_path / "growing", [json.dumps(i) for i in early])
    kept: dict[str, str] = {}  # session id -> dumped cursor, as a store keeps them

    def harvest() -> list[TaskRecord]:
        cursors = {sid: SessionCursor.load(raw) for sid, raw in kept.items()}
        records = []
        for chunk, cursor in new_chunks(db, {k: c for k, c in cursors.items() if c}, []):
            records.extend(mine_chunk(chunk, FALLBACK_TIME))
            kept[cursor.mark.session_id] = cursor.dump()
        return records

    [task] = harvest()
    assert (task.intent, task.feedback, task.outcome) == (FIRST, "", "unknown")
    assert harvest() == []  # nothing new: nothing read

    _append(db, [i for i in items if i not in early])  # OpenCode writes the resumed run
    again = harvest()
    whole = _tasks(_store(tmp_path / "whole"))
    assert _dumped(again) == _dumped(whole)
    assert (again[0].feedback, again[0].outcome) == (FIX, "failure")


def test_a_harvest_keeps_to_the_projects_asked_for(tmp_path):
    db = _store(tmp_path)
    assert list(new_chunks(db, {}, [], projects=frozenset({"/elsewhere"}))) == []
    chunks = list(new_chunks(db, {}, [], projects=frozenset({"/home/dev/calc"})))
    assert len(chunks) == 2


def test_a_store_being_written_is_read_without_waiting_and_without_writing_it(tmp_path):
    db = _store(tmp_path)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    writer = sqlite3.connect(db)
    writer.execute("BEGIN IMMEDIATE")  # OpenCode mid-write: holds the write lock
    writer.execute("UPDATE session SET title = 'renamed'")
    try:
        assert [t.intent for t in _tasks(db)] == [FIRST, SECOND]
    finally:
        writer.rollback()
        writer.close()
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_a_store_that_is_not_opencodes_is_a_problem_not_a_crash(tmp_path):
    junk = tmp_path / "opencode.db"
    junk.write_bytes(b"not a database at all" * 100)
    problems: list[tuple[str, str]] = []
    assert changed_sessions(junk, {}, problems) == []
    [(path, why)] = problems
    assert path == str(junk) and why.startswith("cannot read the OpenCode store")


def test_the_lister_finds_every_channel_store_and_never_raises(tmp_path):
    data = tmp_path / "opencode"
    data.mkdir()
    for name in ("opencode.db", "opencode-dev.db", "opencode.db-wal", "notes.txt"):
        (data / name).write_bytes(b"")
    problems: list[tuple[str, str]] = []
    found = list(opencode_files(data, problems))
    assert found == [str(data / "opencode-dev.db"), str(data / "opencode.db")]
    assert list(opencode_files(data / "opencode.db", problems)) == [str(data / "opencode.db")]
    assert list(opencode_files(tmp_path / "missing", problems)) == [] and problems == []
    assert list(opencode_files(data / "notes.txt" / "sub", problems)) == []
    assert [p for p, _ in problems] == [str(data / "notes.txt" / "sub")]


def test_the_default_store_follows_opencode_db_then_xdg_then_home():
    home = {"HOME": "/home/dev"}
    assert default_root(home) == Path("/home/dev/.local/share/opencode")
    assert default_root({**home, "XDG_DATA_HOME": "/data"}) == Path("/data/opencode")
    assert default_root({**home, "OPENCODE_DB": "/srv/oc.db"}) == Path("/srv/oc.db")
    assert default_root({**home, "OPENCODE_DB": "mine.db"}) == Path(
        "/home/dev/.local/share/opencode/mine.db"
    )


def _created(item: dict[str, dict[str, int]]) -> int:
    return int(item["row"]["time_created"])


def _dumped(records: list[TaskRecord]) -> list[dict[str, object]]:
    return [r.model_dump() for r in records]


def _append(db: Path, items: list[dict[str, dict[str, object]]]) -> None:
    con = sqlite3.connect(db)
    try:
        for item in items:
            row = item["row"]
            names, marks = ", ".join(row), ", ".join("?" for _ in row)
            con.execute(
                f"INSERT INTO {item['table']} ({names}) VALUES ({marks})", list(row.values())
            )
        con.commit()
    finally:
        con.close()


PLUGIN = Path(__file__).resolve().parents[2] / "plugins" / "opencode" / "plugins"


@pytest.mark.realbin
@pytest.mark.slow
def test_a_fresh_opencode_recording_is_harvested_and_its_plugin_hands_each_idle_session_to_log(
    tmp_path, monkeypatch
):
    """One recording (four ``opencode run`` calls) proves four things, each asserted on its own:
    the sessions OpenCode stores are harvested into the corrected task and the praised one, the
    plugin in the home's config hands every idle session to ``skillopt-sleep log``, in a project
    with a CLAUDE.md and no AGENTS.md OpenCode reads the CLAUDE.md, and once the project has an
    AGENTS.md beside it (added before the fourth run, with a global AGENTS.md and a skill in each
    of three folders) OpenCode reads that, the global one and the three skills, not the CLAUDE.md:
    where a rule for OpenCode must land."""
    if which_opencode() is None:
        pytest.skip("opencode is not installed (npm i -g opencode-ai)")
    root, out = tmp_path / "rec", tmp_path / "fixture"
    home, spy = root / "home", tmp_path / "skillopt-sleep"
    (home / ".config" / "opencode").mkdir(parents=True)
    shutil.copytree(PLUGIN, home / ".config" / "opencode" / "plugins")
    spy.write_text(
        f'#!/bin/sh\necho "$@" >> {tmp_path}/argv\n{{ cat; echo; }} >> {tmp_path}/stdin\n'
    )
    spy.chmod(0o755)
    monkeypatch.setenv("SKILLOPT_SLEEP_BIN", str(spy))
    (root / "calc").mkdir()
    (root / "calc" / "CLAUDE.md").write_text("claude-md-rule\n")  # untracked: not in the rows
    servers: list[ModelServer] = []

    def server(responder: Responder) -> ModelServer:
        if len(servers) == 3:  # before the fourth run (the praise)
            _agents_md_and_skills(home, root / "calc")
        servers.append(ModelServer(responder=responder))
        return servers[-1]

    runs = write_fixture(root, out, server)
    assert [r.code for r in runs] == [0, 0, 0, 0], [r.err[-500:] for r in runs]
    db = opencode_db(home)
    problems: list[tuple[str, str]] = []
    assert list(opencode_files(default_root({"HOME": str(home)}), problems)) == [str(db)]
    task, praised = _tasks(db)
    assert (task.intent, task.feedback, task.project) == (FIRST, FIX, str(root / "calc"))
    assert [plain(c) for c in task.checks] == [
        "contains 'pytest -q'",
        "runs pytest",
        "never runs unittest",
    ]
    assert [a.exit_code for a in task.actions if a.kind == "command"] == [0, 2]
    assert (praised.intent, praised.outcome) == (SECOND, "success")
    assert not (home / ".config" / "opencode" / "node_modules").exists()  # no registry
    assert (out / "schema.sql").read_text() == SCHEMA  # the recorded fixture is still current
    _each_idle_session_handed_to_log(tmp_path, db, root / "calc")
    sent = json.dumps([r.body for r in servers[0].requests if isinstance(r.body, dict)])
    assert "claude-md-rule" in sent, "OpenCode did not read CLAUDE.md where there is no AGENTS.md"
    seen = _prompted(servers[3])
    assert "agents-md-rule" in seen and "global-agents-md-rule" in seen
    assert "claude-md-rule" not in seen, "OpenCode read CLAUDE.md beside an AGENTS.md"
    assert all(f"skill-{n}" in seen for n in range(len(SKILLS))), "a skill folder was not read"


SKILLS = (".opencode/skills", ".claude/skills", ".agents/skills")


def _agents_md_and_skills(home: Path, project: Path) -> None:
    """An AGENTS.md beside the CLAUDE.md, a global AGENTS.md, a skill in each of three folders."""
    (project / "AGENTS.md").write_text("agents-md-rule\n")
    (home / ".config" / "opencode" / "AGENTS.md").write_text("global-agents-md-rule\n")
    for n, folder in enumerate(SKILLS):
        skill = project / folder / f"skill-{n}"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(f"---\nname: skill-{n}\ndescription: d\n---\nbody\n")


def _prompted(server: ModelServer) -> str:
    """Everything the model was sent with the agent's tools (not the title request), as text."""
    return json.dumps(
        [r.body for r in server.requests if isinstance(r.body, dict) and r.body.get("tools")]
    )


def _each_idle_session_handed_to_log(spied: Path, db: Path, project: Path) -> None:
    """The plugin: each run's idle session handed to `log`, with the store that holds it."""
    first, second = (mark.session_id for mark in changed_sessions(db, {}, []))
    argv = spied / "argv"
    calls = argv.read_text().splitlines() if argv.exists() else []
    assert calls == ["log --agent opencode"] * 4, "the plugin did not hand each run to log"
    sent = [json.loads(line) for line in (spied / "stdin").read_text().splitlines()]
    assert sent == [
        {
            "agent": "opencode",
            "session_id": session,
            "transcript_path": str(db),
            "cwd": str(project),
            "hook_event_name": "session.idle",
        }
        for session in (first, first, second, second)
    ], "the plugin handed log the wrong session payload"


def test_a_long_session_is_read_in_bounded_pieces_that_lose_nothing(tmp_path):
    db, first = _store(tmp_path), _session_ids()[0]
    chunk, end = read_session(db, first, max_messages=3)
    assert (chunk.partial, end, [t.prompt for t in chunk.turns]) == (True, 3, [FIRST])
    rest, end = read_session(db, first, end, chunk.state, max_messages=3)
    assert rest.partial and end == 6 and [t.prompt for t in rest.turns] == [FIX]
    last, end = read_session(db, first, end, rest.state, max_messages=3)
    assert (last.partial, end, last.turns) == (False, 8, [])


def test_an_attached_file_is_context_never_the_prompt(tmp_path):
    """``opencode run "look at this" -f calc.py``: OpenCode stores the file's read as two
    synthetic text parts before the typed one."""
    rows = (FIXTURE / "attached.jsonl").read_text(encoding="utf-8").splitlines()
    db = _store(tmp_path, rows)
    [mark] = changed_sessions(db, {}, [])
    chunk, _ = read_session(db, mark.session_id)
    [turn] = chunk.turns
    assert turn.prompt == "look at this"
    assert "def add(a, b):" in turn.context and typed(turn.context) == ""  # context, marked


@pytest.mark.parametrize("fixture", ["rows", "attached"])
def test_the_recorded_sessions_give_the_reviewed_task_records(fixture, tmp_path, golden):
    rows = (FIXTURE / f"{fixture}.jsonl").read_text(encoding="utf-8").splitlines()
    golden(f"harvest/opencode/{fixture}.json", records_json(_tasks(_store(tmp_path, rows))))


def test_a_task_longer_than_one_read_is_read_on_to_its_end(tmp_path):
    db, first = _store(tmp_path), _session_ids()[0]
    cursors: dict[str, SessionCursor] = {}
    prompts, reads = [], 0
    while reads < 10:
        got = [
            (c, k)
            for c, k in new_chunks(db, cursors, [], max_messages=2)
            if k.mark.session_id == first
        ]
        if not got:
            break
        [(chunk, cursor)] = got
        prompts += [(t.index, t.prompt) for t in chunk.turns]
        cursors[first], reads = cursor, reads + 1
    assert reads < 10 and (0, FIRST) in prompts and (1, FIX) in prompts
