"""Pi sessions become tasks: the real recorded sessions (tests/fixtures/transcripts/pi, made by
``skillopt_sleep.testing.pi_agent.record_fixtures`` with the real pi 0.73.1), mined the way every
other agent's turns are mined, and a fresh recording when the ``pi`` binary is installed."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillopt_sleep.checks.action_judge import action_check, recorded
from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.harvest.control import drop_control_turns
from skillopt_sleep.harvest.jsonl import read_chunk
from skillopt_sleep.harvest.mine import group_turns, mine_chunk
from skillopt_sleep.harvest.pi import PiParser, pi_files, session_dir_name, sessions_root
from skillopt_sleep.harvest.session import ParseState, SessionChunk
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.store import Store
from skillopt_sleep.testing import ModelServer, Text, pi_agent
from skillopt_sleep.testing.agents import run_agent

from .conftest import records_json

REPO = Path(__file__).resolve().parents[2]
HOME = REPO / "tests" / "fixtures" / "transcripts" / "pi"
ROOT = HOME / ".pi" / "agent"
[CORRECTED, PRAISED, FORKED] = sorted((ROOT / "sessions").glob("*/*.jsonl"))
FALLBACK_TIME = datetime(2026, 11, 21, tzinfo=timezone.utc)


def parse(path: Path, start: int = 0, state: ParseState | None = None) -> tuple[SessionChunk, int]:
    return read_chunk(PiParser(state), path, start)


def tasks(path: Path) -> list[TaskRecord]:
    return mine_chunk(parse(path)[0], FALLBACK_TIME)


@pytest.mark.parametrize(
    "path", [CORRECTED, PRAISED, FORKED], ids=["corrected", "praised", "forked"]
)
def test_every_recorded_session_parses_into_the_reviewed_task_records(path, golden):
    golden(f"harvest/pi/{path.stem}.json", records_json(tasks(path)))


def test_a_correction_attaches_to_its_request_with_the_pytest_checks():
    [task] = tasks(CORRECTED)
    assert (task.source, task.intent) == ("pi", "run the tests please")
    assert task.project == "/home/dev/work/calc"
    assert task.session_id == CORRECTED.stem.split("_", 1)[1]
    assert task.feedback == "No, that's wrong: always use pytest -q"
    assert task.outcome == "failure" and "corrected" in task.tags
    assert [plain(c) for c in task.checks] == [
        "contains 'pytest -q'",
        "runs pytest",
        "never runs unittest",
    ]
    for check in task.checks[1:]:  # the action checks fail on the attempt the user corrected
        assert action_check(check, recorded(task.actions))[0] is False
    assert "python3 -m unittest" in task.attempt and "pytest" not in task.attempt


def test_the_attempt_keeps_its_commands_exit_codes_and_the_file_it_wrote():
    [task] = tasks(CORRECTED)
    assert [(a.kind, a.command or a.path, a.exit_code, a.failed) for a in task.actions] == [
        ("command", "python3 -m unittest", 0, False),
        ("write", "NOTES.md", None, False),
        ("command", "ls does-not-exist", 2, True),
    ]
    assert task.actions[1].content == "# Notes\n\nadd(2, 3) == 5\n"
    assert task.tools_used == ["bash", "write"]
    assert "tool-error" in task.tags
    assert "All tests pass (ran python3 -m unittest)." in task.attempt
    assert "Files changed: NOTES.md" in task.attempt


def test_praise_is_not_a_correction():
    [task] = tasks(PRAISED)
    assert task.intent == "add a docstring to calc.py"
    assert task.feedback == "thanks, perfect"
    assert task.outcome == "success" and "corrected" not in task.tags
    assert task.checks == []
    assert [(a.kind, a.path, a.content) for a in task.actions] == [
        ("edit", "calc.py", 'def add(a, b):\n    """Sum."""')
    ]


def test_the_recorded_sessions_read_whole_with_no_line_skipped():
    for path in (CORRECTED, PRAISED, FORKED):
        chunk, end = parse(path)
        assert not chunk.skipped and end == path.stat().st_size
        assert chunk.lines == len(path.read_bytes().splitlines())
        assert chunk.state.model == "loopback-model"


def test_a_broken_line_is_skipped_and_counted_and_nothing_else_is_lost(tmp_path):
    """The write's result is cut in half: the entry after it names a parent never read, which
    is no reason to drop the branch it is on."""
    lines = CORRECTED.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if b"Successfully wrote" in line)
    broken = tmp_path / CORRECTED.name
    broken.write_bytes(b"".join([*lines[:at], lines[at][:60] + b"\n", *lines[at + 1 :]]))
    chunk, _ = parse(broken)
    assert dict(chunk.skipped) == {"invalid-json": 1}
    [task], [whole] = mine_chunk(chunk, FALLBACK_TIME), tasks(CORRECTED)
    assert "Successfully wrote" not in task.attempt
    same = {"attempt"}
    assert task.model_dump(exclude=same) == whole.model_dump(exclude=same)


def test_a_parent_id_of_the_wrong_type_is_no_reason_to_drop_the_branch(tmp_path):
    rows = [json.loads(line) for line in CORRECTED.read_text("utf-8").splitlines()]
    fix = next(r for r in rows if _user_text(r).startswith("No, that's wrong"))
    fix["parentId"] = 5
    path = tmp_path / CORRECTED.name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert _view(mine_chunk(parse(path)[0], FALLBACK_TIME)) == _view(tasks(CORRECTED))


def test_a_resumed_session_read_in_two_harvests_gives_the_tasks_of_one_read(tmp_path):
    """The first harvest sees the session before ``--continue`` appended the correction; the
    next one starts where the harvester resumes (the last task's prompt) with the saved state."""
    data = CORRECTED.read_bytes()
    cut = data.index(b'"text":"No, that\'s wrong')
    cut = data.rindex(b"\n", 0, cut) + 1
    grown = tmp_path / CORRECTED.name
    grown.write_bytes(data[:cut])
    first, end = parse(grown)
    assert end == cut and [t.intent for t in mine_chunk(first, FALLBACK_TIME)] == [
        "run the tests please"
    ]
    last = group_turns(first.turns)[-1].task
    state = ParseState.from_json(first.state.to_json())
    state.turns_before = last.index
    grown.write_bytes(data)  # pi --continue appends to the same file
    second, _ = parse(grown, last.offset, state)
    assert _view(mine_chunk(second, FALLBACK_TIME)) == _view(tasks(CORRECTED))


def test_going_back_in_the_tree_keeps_only_the_branch_that_is_current(tmp_path):
    """``/tree`` back to before the correction, then a new request: the correction is on an
    abandoned branch, so it no longer lands on the request; the new request is a task."""
    entries = [json.loads(line) for line in CORRECTED.read_text("utf-8").splitlines()]
    fix = next(e for e in entries if _user_text(e).startswith("No, that's wrong"))
    new = {**fix, "id": "b0000001", "timestamp": "2026-11-26T16:00:00.000Z"}
    new["message"] = {**fix["message"], "content": [{"type": "text", "text": "add a changelog"}]}
    answer = {**entries[-1], "id": "b0000002", "parentId": "b0000001"}
    branched = tmp_path / CORRECTED.name
    rows = [*entries, new, answer]
    branched.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    found = mine_chunk(parse(branched)[0], FALLBACK_TIME)
    assert [(t.intent, t.feedback, t.outcome) for t in found] == [
        ("run the tests please", "", "unknown"),
        ("add a changelog", "", "unknown"),
    ]


def test_a_fork_gives_only_its_own_requests_not_the_ones_it_copied():
    [task] = tasks(FORKED)
    assert (task.intent, task.feedback, task.turn) == ("add a changelog", "", 2)
    assert task.session_id == FORKED.stem.split("_", 1)[1] != CORRECTED.stem.split("_", 1)[1]


def test_a_fork_that_corrects_a_copied_request_keeps_it_with_the_new_feedback(tmp_path):
    text = FORKED.read_text("utf-8").replace(
        '"text":"add a changelog"', '"text":"No, use pytest -x"'
    )
    path = tmp_path / FORKED.name
    path.write_text(text, encoding="utf-8")
    [task] = mine_chunk(parse(path)[0], FALLBACK_TIME)
    assert task.intent == "run the tests please" and task.session_id in FORKED.name
    assert task.feedback == "No, that's wrong: always use pytest -q\nNo, use pytest -x"


def test_injected_text_is_never_a_prompt(tmp_path):
    """A ``/skill:`` prompt is the typed arguments (the skill body is context), ``@file``
    contents are context, and an extension's ``custom_message`` is no prompt at all."""
    head, *rest = CORRECTED.read_text("utf-8").splitlines()
    entries = [json.loads(line) for line in rest]
    prompt = next(e for e in entries if _user_text(e) == "run the tests please")
    skill = '<skill name="tests" location="/home/dev/.pi/agent/skills/tests/SKILL.md">\n'
    skill += "Always run the tests with pytest -q.\n</skill>\n\nrun the tests please"
    prompt["message"]["content"] = [{"type": "text", "text": skill}]
    injected = {"type": "custom_message", "id": "c0000001", "parentId": prompt["parentId"]}
    injected |= {"customType": "notes", "content": "Injected: do X", "display": True}
    path = tmp_path / CORRECTED.name
    path.write_text("\n".join([head, json.dumps(injected), *map(json.dumps, entries)]) + "\n")
    [task] = mine_chunk(parse(path)[0], FALLBACK_TIME)
    assert task.intent == "run the tests please" and task.skills_used == ["tests"]
    assert "Always run the tests with pytest -q." in task.context
    assert task.context.startswith("[Repository text expanded into the session, not typed")
    assert "Injected" not in task.intent + task.feedback

    prompt["message"]["content"] = (
        '<file name="/home/dev/work/calc/calc.py">\ndef add(a, b): ...\n</file>\nrun the tests please'
    )
    path.write_text("\n".join([head, *map(json.dumps, entries)]) + "\n")
    [task] = mine_chunk(parse(path)[0], FALLBACK_TIME)
    assert task.intent == "run the tests please" and "def add(a, b): ..." in task.context


def test_a_session_opened_with_the_skillopt_sleep_skill_is_never_a_task(tmp_path):
    head, *rest = CORRECTED.read_text("utf-8").splitlines()
    entries = [json.loads(line) for line in rest]
    prompt = next(e for e in entries if _user_text(e) == "run the tests please")
    location = "/home/dev/work/pi/skills/skillopt-sleep/SKILL.md"
    block = f'<skill name="skillopt-sleep" location="{location}">\nRun the CLI.\n</skill>\n\nstatus'
    prompt["message"]["content"] = [{"type": "text", "text": block}]
    path = tmp_path / CORRECTED.name
    path.write_text("\n".join([head, *map(json.dumps, entries)]) + "\n", encoding="utf-8")
    chunk = drop_control_turns(parse(path)[0])
    assert chunk.state.replay and mine_chunk(chunk, FALLBACK_TIME) == []


def test_the_lister_finds_the_session_files_under_the_agent_dir():
    problems: list[tuple[str, str]] = []
    every = [str(CORRECTED), str(PRAISED), str(FORKED)]
    assert sorted(pi_files(ROOT / "sessions", problems)) == every
    assert problems == []
    assert list(pi_files(ROOT / "sessions", problems, frozenset({"/home/dev/other"}))) == []
    scoped = pi_files(ROOT / "sessions", problems, frozenset({"/home/dev/work/calc"}))
    assert sorted(scoped) == every and problems == []
    assert CORRECTED.parent.name == session_dir_name("/home/dev/work/calc")
    assert session_dir_name("C:\\Users\\me\\app") == "--C--Users-me-app--"


def test_the_sessions_root_follows_the_variables_pi_honours():
    home = {"HOME": "/home/dev"}
    assert sessions_root(home) == Path("/home/dev/.pi/agent/sessions")
    assert sessions_root({**home, "PI_CODING_AGENT_DIR": "/srv/pi"}) == Path("/srv/pi/sessions")
    moved = {**home, "PI_CODING_AGENT_DIR": "/srv/pi", "PI_CODING_AGENT_SESSION_DIR": "/srv/s"}
    assert sessions_root(moved) == Path("/srv/s")
    assert sessions_root(moved, "~/mine") == Path("/home/dev/mine")


def test_sessions_in_a_moved_session_dir_are_listed_without_a_project_folder(tmp_path):
    """With ``PI_CODING_AGENT_SESSION_DIR`` pi writes the files into it directly."""
    shutil.copy(CORRECTED, tmp_path / CORRECTED.name)
    problems: list[tuple[str, str]] = []
    assert list(pi_files(tmp_path, problems)) == [str(tmp_path / CORRECTED.name)]


def test_a_missing_root_lists_nothing_and_an_unreadable_dir_is_a_problem(tmp_path):
    problems: list[tuple[str, str]] = []
    assert list(pi_files(tmp_path / "nowhere", problems)) == [] and problems == []
    (tmp_path / "sessions").write_text("not a directory")
    assert list(pi_files(tmp_path / "sessions", problems)) == []
    assert problems == [(str(tmp_path / "sessions"), "Not a directory")]
    problems.clear()
    shutil.copytree(ROOT, tmp_path / "agent")
    locked = tmp_path / "agent" / "sessions" / CORRECTED.parent.name
    locked.chmod(0)
    try:
        if not os.access(locked, os.R_OK):  # (root reads any directory)
            assert list(pi_files(tmp_path / "agent" / "sessions", problems)) == []
            assert problems == [(str(locked), "Permission denied")]
    finally:
        locked.chmod(0o755)


@pytest.mark.realbin
@pytest.mark.slow
def test_a_fresh_pi_recording_goes_through_the_extension_to_the_task_log(
    tmp_path, sandbox_home, monkeypatch
):
    """One recording, in a home with the package installed, proves three things, each asserted
    on its own: its sessions are harvested (the correction, the praise, the fork); on each exit of
    ``pi -p`` the extension runs the package's launcher, which runs the engine's ``log`` with that
    session's file on stdin (a recorder in front of the engine's Python notes each call and hands
    it on); and the engine stores them, the session and its ``--continue`` correction as one task.
    The same installed home then proves the packaged skill loads and its session is never a task."""
    recorder = tmp_path / "python"
    recorder.write_text(  # one write per call: the drainers the engine starts use it too
        f'#!/bin/sh\npayload=$(cat)\nprintf \'%s\\t%s\\n\' "$*" "$payload" >> "$0.calls"\n'
        f'printf \'%s\' "$payload" | exec {sys.executable} "$@"\n',
        encoding="utf-8",
    )
    recorder.chmod(0o755)
    monkeypatch.setenv("SKILLOPT_SLEEP_PYTHON", str(recorder))
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    with ModelServer([]) as srv:
        pi, _, _ = _installed_pi(tmp_path, srv, None)
    home, work = tmp_path / "agent-home", tmp_path / "work"
    files = pi_agent.record_sessions(home, work)
    assert len(files) == 3, "--continue appended to the session it continued"
    problems: list[tuple[str, str]] = []
    assert sorted(pi_files(home / ".pi" / "agent" / "sessions", problems)) == [
        str(f) for f in files
    ]
    [corrected], [praised], [forked] = (tasks(f) for f in files)
    assert forked.intent == pi_agent.FORK_REQUEST
    assert corrected.project == str(work.resolve()) and corrected.source == "pi"
    assert (corrected.intent, corrected.feedback) == (pi_agent.REQUEST, pi_agent.CORRECTION)
    assert [plain(c) for c in corrected.checks][:3] == [
        "contains 'pytest -q'",
        "runs pytest",
        "never runs unittest",
    ]
    assert [a.exit_code for a in corrected.actions if a.kind == "command"] == [0, 2]
    assert (praised.feedback, praised.outcome, praised.checks) == (pi_agent.PRAISE, "success", [])

    # the extension: each of the five runs handed its session to the engine's `log` as it ended
    lines = Path(f"{recorder}.calls").read_text("utf-8").splitlines()
    hooked = [line.split("\t", 1) for line in lines if "--drain" not in line.split("\t")[0]]
    calls = [(argv, json.loads(sent)) for argv, sent in hooked]
    ended = [files[0], files[0], files[1], files[1], files[2]]
    assert calls == [("-m skillopt_sleep log", _ended(session, work)) for session in ended], (
        "the extension did not hand each ended session to log"
    )

    # the engine: the task log holds the three requests, the first with its correction
    logged = _logged(sandbox_home, lambda ts: len(ts) == 3 and any(t.feedback for t in ts))
    assert sorted(t.intent for t in logged) == sorted(
        [pi_agent.REQUEST, pi_agent.PRAISE_REQUEST, pi_agent.FORK_REQUEST]
    )
    [task] = [t for t in logged if t.intent == pi_agent.REQUEST]
    assert (task.source, task.feedback, task.outcome) == ("pi", pi_agent.CORRECTION, "failure")
    assert [plain(c) for c in task.checks][:3] == [
        "contains 'pytest -q'",
        "runs pytest",
        "never runs unittest",
    ]
    assert _read_store(sandbox_home, Store.notices) == []
    with ModelServer([]) as srv:
        env = pi_agent.pi_home(home, srv.url)
        _packaged_skill_loads_and_is_never_a_task(pi, env, work, srv, home)


def _ended(session: Path, work: Path) -> dict[str, str]:
    """What the extension sends `log` when the session in ``session`` ends."""
    return {
        "agent": "pi",
        "session_id": session.stem.split("_", 1)[1],
        "transcript_path": str(session),
        "cwd": str(work.resolve()),
        "hook_event_name": "SessionEnd",
        "reason": "quit",
    }


def _user_text(entry: dict) -> str:
    message = entry.get("message") or {}
    if message.get("role") != "user":
        return ""
    content = message.get("content")
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


def _view(records: list[TaskRecord]) -> list[dict]:
    return [r.model_dump(mode="json") for r in records]


def _installed_pi(
    tmp_path: Path, srv: ModelServer, bin_path: Path | None, extra: dict | None = None
) -> tuple[str, dict, Path]:
    """``pi install plugins/pi`` in a sandbox home; the pi binary, its env and the project."""
    pi = pi_agent.which_pi()
    if pi is None:
        pytest.skip("pi is not installed (npm i -g @mariozechner/pi-coding-agent)")
    home, work = tmp_path / "agent-home", tmp_path / "work"
    pi_agent.make_project(work)
    base = {k: v for k, v in os.environ.items() if k != "SKILLOPT_SLEEP_BIN"}
    base.update({"SKILLOPT_SLEEP_BIN": str(bin_path)} if bin_path else {})
    env = pi_agent.pi_home(home, srv.url, base={**base, **(extra or {})})
    installed = run_agent([pi, "install", str(REPO / "plugins" / "pi")], env, work)
    assert installed.code == 0, installed.err
    return pi, env, work


def _pi_print(pi: str, env: dict, work: Path, prompt: str, *extra: str):
    argv = [pi, "-p", "--offline", "--provider", pi_agent.PROVIDER, "--model", pi_agent.MODEL]
    done = run_agent([*argv, *extra, prompt], env, work, timeout=120)
    assert done.code == 0, done.err
    return done


_LINES = [line for p in (CORRECTED, PRAISED, FORKED) for line in p.read_bytes().splitlines()]
_WRONG = st.one_of(
    st.none(),
    st.integers(),
    st.booleans(),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@st.composite
def _damaged(draw) -> bytes:
    """A real line, whole or with one field (at any depth) of a wrong type, or cut short."""
    line = draw(st.sampled_from(_LINES))
    kind = draw(st.sampled_from(["good", "wrong", "cut"]))
    if kind == "cut":
        return line[: draw(st.integers(0, max(0, len(line) - 1)))]
    obj = json.loads(line)
    if kind == "wrong":
        node = obj
        while isinstance(node, dict) and node:
            key = draw(st.sampled_from(sorted(node)))
            child = node[key]
            if not isinstance(child, dict) or draw(st.booleans()):
                node[key] = draw(_WRONG)
                break
            node = child
    return json.dumps(obj).encode()


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=st.lists(_damaged(), max_size=30))
def test_damaged_sessions_never_stop_the_parser_or_the_miner(lines):
    parser = PiParser()
    for offset, line in enumerate(lines):
        parser.feed(offset, line + b"\n")
    chunk = parser.finish()
    assert chunk.lines == len(lines)
    mine_chunk(chunk, FALLBACK_TIME)


def _packaged_skill_loads_and_is_never_a_task(
    pi: str, env: dict, work: Path, srv: ModelServer, home: Path
) -> None:
    """The packaged skill, typed as `/skill:skillopt-sleep status`, reaches the model whole, and
    its session is never a task."""
    before = set(pi_agent.pi_sessions(home))
    srv.enqueue(Text("status: no nights yet"))
    _pi_print(pi, env, work, "/skill:skillopt-sleep status")
    call = srv.model_calls()[-1]
    assert call.prompt.startswith('<skill name="skillopt-sleep"'), (
        "the packaged skill is not loaded"
    )
    assert call.prompt.endswith("status") and "Never edit `AGENTS.md`" in call.prompt
    [session] = set(pi_agent.pi_sessions(home)) - before
    chunk = drop_control_turns(parse(session)[0])
    assert chunk.state.replay and mine_chunk(chunk, FALLBACK_TIME) == [], (
        "a skill session is a task"
    )


def _logged(sandbox_home: Path, ready, timeout: float = 90) -> list[TaskRecord]:
    """The store's tasks once ``ready(tasks)`` holds (the logger reads in the background)."""
    deadline = time.monotonic() + timeout
    found: list[TaskRecord] = []
    while time.monotonic() < deadline:
        found = _read_store(sandbox_home, Store.list_tasks)
        if ready(found):
            return found
        time.sleep(0.25)
    raise AssertionError(f"the task log never got there: {[t.model_dump() for t in found]}")


def _read_store(sandbox_home: Path, read):
    store = Store.open(sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db")
    try:
        return read(store)
    finally:
        store.close()
