"""Qwen Code sessions become tasks: the recorded sessions of the real CLI, and a fresh one."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.harvest.control import drop_control_turns
from skillopt_sleep.harvest.jsonl import read_chunk
from skillopt_sleep.harvest.mine import mine_chunk
from skillopt_sleep.harvest.qwen import QwenParser, qwen_files
from skillopt_sleep.harvest.run import _resume_point
from skillopt_sleep.harvest.session import ParseState
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.testing import ModelServer, Text
from skillopt_sleep.testing.agents import run_agent
from skillopt_sleep.testing.qwen_agent import (
    FAILING_COMMAND,
    NOTES,
    NOTES_TEXT,
    OK_COMMAND,
    calc_project,
    link_extension,
    qwen_env,
    qwen_sessions,
    scripted_session,
    which_qwen,
)

from .conftest import records_json

REPO = Path(__file__).resolve().parents[2]
ROOT = REPO / "tests" / "fixtures" / "transcripts" / "qwen" / ".qwen"
PROJECT = "/home/dev/work/calc"
REQUEST = "QW run the tests please"
FIX = "No, that's wrong: always use pytest -q"
PRAISE = "thanks, perfect"
WHEN = datetime(2026, 11, 26, tzinfo=timezone.utc)


def _files() -> list[Path]:
    problems: list[tuple[str, str]] = []
    files = [Path(f) for f in qwen_files(ROOT, problems)]
    assert problems == []
    return files


def _session(said: str) -> Path:
    """The recorded session in which the user said ``said`` after the request."""
    return next(p for p in _files() if said in p.read_text(encoding="utf-8"))


def _tasks(path: Path, start: int = 0, state: ParseState | None = None) -> list[TaskRecord]:
    chunk, _ = read_chunk(QwenParser(state), path, start)
    return mine_chunk(chunk, WHEN)


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.stem[:8])
def test_every_recorded_session_parses_whole_into_the_reviewed_task_records(path, golden):
    chunk, _ = read_chunk(QwenParser(), path, 0)
    assert not chunk.skipped and chunk.lines == len(path.read_bytes().splitlines())
    golden(f"harvest/qwen/{path.stem}.json", records_json(mine_chunk(chunk, WHEN)))


def test_the_lister_finds_both_recorded_sessions_and_nothing_for_a_missing_home(tmp_path):
    assert len(_files()) == 2
    problems: list[tuple[str, str]] = []
    assert list(qwen_files(tmp_path / "no-such-home", problems)) == problems == []
    scoped = list(qwen_files(ROOT, problems, frozenset({PROJECT})))
    assert len(scoped) == 2 and list(qwen_files(ROOT, problems, frozenset({"/else"}))) == []


def test_a_projects_dir_that_cannot_be_listed_is_a_problem_not_an_error(tmp_path):
    (tmp_path / "projects").symlink_to(tmp_path / "projects")  # a loop: even root cannot list it
    problems: list[tuple[str, str]] = []
    assert list(qwen_files(tmp_path, problems)) == []
    assert problems == [(str(tmp_path / "projects"), "Too many levels of symbolic links")]


def test_the_correction_lands_on_its_request_with_the_pytest_checks():
    [task] = _tasks(_session(FIX))
    assert (task.source, task.project, task.intent) == ("qwen", PROJECT, REQUEST)
    assert task.feedback == FIX and task.outcome == "failure"
    assert [plain(c) for c in task.checks] == [
        "contains 'pytest -q'",
        "runs pytest",
        "never runs unittest",
    ]


def test_the_attempt_keeps_the_commands_their_exit_codes_and_the_written_file():
    [task] = _tasks(_session(FIX))
    shown = [(a.kind, a.command or a.path, a.exit_code, a.failed) for a in task.actions]
    assert shown == [
        ("command", OK_COMMAND, 0, False),
        ("write", NOTES, None, False),
        ("command", FAILING_COMMAND, 2, True),
    ]
    assert task.actions[1].content == NOTES_TEXT
    assert "exited 2" in task.attempt and "Files changed: NOTES.md" in task.attempt
    assert task.tools_used == ["run_shell_command", "write_file"]


def test_praise_is_not_a_correction():
    [task] = _tasks(_session(PRAISE))
    assert task.intent == REQUEST and task.feedback == PRAISE
    assert task.outcome == "success" and task.checks == []


def test_a_write_qwen_refused_is_a_failed_action_and_no_changed_file():
    """In the praise session NOTES.md already existed: qwen refused to overwrite it unread."""
    [task] = _tasks(_session(PRAISE))
    [write] = [a for a in task.actions if a.kind == "write"]
    assert write.failed and "Files changed" not in task.attempt
    assert "has not been read in this session" in task.attempt


def test_a_broken_line_is_skipped_and_counted_and_nothing_else_is_lost(tmp_path):
    source = _session(FIX)
    lines = source.read_bytes().splitlines(keepends=True)
    broken = tmp_path / source.name
    broken.write_bytes(b"".join([*lines[:3], b'{"type": "assistant", "mess\n', *lines[3:]]))
    chunk, _ = read_chunk(QwenParser(), broken, 0)
    assert dict(chunk.skipped) == {"invalid-json": 1}
    assert _dumps(mine_chunk(chunk, WHEN)) == _dumps(_tasks(source))


def test_a_resumed_session_read_from_its_last_task_gives_the_same_tasks_as_one_read(tmp_path):
    source = _session(FIX)
    data = source.read_bytes()
    cut = _offset_of(data, FIX)
    grown = tmp_path / source.name
    grown.write_bytes(data[:cut])  # the file as qwen left it before --continue
    chunk, end = read_chunk(QwenParser(), grown, 0)
    first = mine_chunk(chunk, WHEN)
    offset, state = _resume_point(chunk, end)
    state = ParseState.from_json(state.to_json())  # as the cursor keeps it
    with grown.open("ab") as fh:
        fh.write(data[cut:])
    second = _tasks(grown, offset, state)
    assert offset < cut and [t.feedback for t in first] == [""]
    merged = {t.id: t for t in [*first, *second]}
    assert _dumps(list(merged.values())) == _dumps(_tasks(source))


def _offset_of(data: bytes, prompt: str) -> int:
    offset = 0
    for line in data.splitlines(keepends=True):
        record = json.loads(line)
        if record["type"] == "user" and record["message"]["parts"][0].get("text") == prompt:
            return offset
        offset += len(line)
    raise AssertionError(prompt)


def _dumps(tasks: list[TaskRecord]) -> str:
    return json.dumps([t.model_dump(mode="json") for t in tasks], sort_keys=True)


@pytest.mark.realbin
@pytest.mark.slow
def test_a_fresh_qwen_session_goes_to_log_and_its_correction_is_harvested(tmp_path):
    """``qwen extensions link plugins/qwen``: after a headless ``qwen -p`` answer its Stop hook
    runs the plugin's launcher, ``log --agent qwen`` (a recorder stands in for the engine),
    with qwen's hook JSON naming the session file, which harvests into the task; the correction
    typed next (``--continue``) lands on that request with its checks; then, in the same linked
    home, the extension's command expands headless and its session is never a task. One linked
    home serves all three claims: each qwen start costs seconds."""
    if which_qwen() is None:
        pytest.skip("qwen is not installed (npm i -g @qwen-code/qwen-code@0.15.10)")
    recorder = tmp_path / "engine"
    recorder.write_text('#!/bin/sh\n{ echo "$@"; cat; } > "$0.call"\n', encoding="utf-8")
    recorder.chmod(0o755)
    home, work = tmp_path / "agent-home", calc_project(tmp_path / "work")
    base = {**os.environ, "SKILLOPT_SLEEP_PYTHON": str(recorder)}
    with ModelServer(responder=scripted_session(work)) as srv:
        env = qwen_env(home, srv.url, base=base)
        linked = link_extension(REPO / "plugins" / "qwen", env, work)
        assert linked.code == 0 and "linked successfully" in linked.out, linked.err
        done = run_agent(
            [which_qwen(), "-p", REQUEST, "--yolo", "--auth-type", "openai"], env, work, 180
        )
    assert done.code == 0, done.err
    argv, payload = Path(f"{recorder}.call").read_text("utf-8").split("\n", 1)
    assert argv == "-m skillopt_sleep log --agent qwen"
    sent = json.loads(payload)
    [session] = qwen_sessions(home)
    assert sent["hook_event_name"] == "Stop" and sent["transcript_path"] == str(session)
    assert sent["session_id"] == session.stem and sent["cwd"] == str(work)
    [task] = _tasks(Path(sent["transcript_path"]))
    assert (task.intent, task.session_id) == (REQUEST, sent["session_id"])

    with ModelServer(responder=scripted_session(work)) as srv:
        argv2 = [which_qwen(), "-p", FIX, "--yolo", "--auth-type", "openai", "--continue"]
        done = run_agent(argv2, qwen_env(home, srv.url, base=base), work, 180)
    assert done.code == 0, done.err
    assert qwen_sessions(home) == [session]
    [task] = _tasks(session)
    assert (task.intent, task.feedback, task.outcome) == (REQUEST, FIX, "failure")
    assert task.project == str(work) and task.source == "qwen"
    assert [(a.command, a.exit_code) for a in task.actions if a.kind == "command"] == [
        (OK_COMMAND, 0),
        (FAILING_COMMAND, 2),
    ]
    assert "runs pytest" in [plain(c) for c in task.checks]
    _extension_command_session_is_never_a_task(home, work, base)


def _extension_command_session_is_never_a_task(home: Path, work: Path, base: dict) -> None:
    """``qwen -p "/skillopt-sleep status"`` in the same linked home sends the command's body,
    which opens with the command the user typed: its session is a control session, not something
    to learn from."""
    before = set(qwen_sessions(home))
    with ModelServer([Text("status: no nights yet")]) as srv:
        argv = [which_qwen(), "-p", "/skillopt-sleep status", "--yolo", "--auth-type", "openai"]
        done = run_agent(argv, qwen_env(home, srv.url, base=base), work, 180)
        call = srv.model_calls()[0]  # later ones: qwen's own memory extraction, if it runs
    assert done.code == 0, done.err
    assert call.prompt.startswith("/skillopt-sleep status\n"), "the command did not expand"
    assert "Never edit `QWEN.md`" in call.prompt, "the command's body is not the extension's"
    [session] = set(qwen_sessions(home)) - before
    chunk, _ = read_chunk(QwenParser(), session, 0)
    assert drop_control_turns(chunk).turns == [] and chunk.state.replay, "a command is a task"


def test_text_the_user_did_not_type_is_never_a_prompt(tmp_path):
    """A background agent's notice, a cron prompt and a subagent's prompt are not requests; what
    qwen appended to a prompt (``@file`` contents, a hook's context) is the task's context, marked
    as not typed."""
    source = _session(FIX)
    lines = source.read_bytes().splitlines(keepends=True)
    first = json.loads(lines[0])

    def user(parts: list[dict], **extra: object) -> bytes:
        return (
            json.dumps({**first, "message": {"role": "user", "parts": parts}, **extra}) + "\n"
        ).encode()

    notice = user([{"text": "Background agent finished: 3 files"}], subtype="notification")
    cron = user([{"text": "run the nightly lint"}], subtype="cron")
    sidechain = user([{"text": "Search the repo for add()"}], isSidechain=True)
    lines[0] = user([{"text": REQUEST}, {"text": "\n--- Content from referenced files ---\nx"}])
    mixed = tmp_path / source.name
    mixed.write_bytes(b"".join([*lines[:-1], notice, cron, sidechain, lines[-1]]))
    chunk, _ = read_chunk(QwenParser(), mixed, 0)
    assert [t.prompt for t in chunk.turns] == [REQUEST, FIX]
    [task] = mine_chunk(chunk, WHEN)
    assert task.intent == REQUEST and task.feedback == FIX
    assert "not typed by the user" in task.context and "Content from referenced" in task.context


def _record(kind: str, parts: list[dict], **extra: object) -> bytes:
    role = "model" if kind == "assistant" else "user"
    base = {
        "sessionId": "s1",
        "cwd": PROJECT,
        "gitBranch": "main",
        "timestamp": "2026-11-26T10:00:00Z",
    }
    record = {**base, "type": kind, "message": {"role": role, "parts": parts}, **extra}
    return (json.dumps(record) + "\n").encode()


def test_a_killed_command_and_a_refused_tool_fail_and_reasoning_is_not_the_reply(tmp_path):
    shell = {
        "functionCall": {"id": "c1", "name": "run_shell_command", "args": {"command": "sleep 99"}}
    }
    edit = {"functionCall": {"id": "c2", "name": "edit", "args": {"file_path": f"{PROJECT}/a.py"}}}
    killed = "Command: sleep 99\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: (none)\nSignal: 9"
    path = tmp_path / "s1.jsonl"
    path.write_bytes(
        b"".join(
            [
                _record("user", [{"text": "Wait for the server"}]),
                _record(
                    "assistant", [{"text": "Let me think in secret.", "thought": True}, shell, edit]
                ),
                _record(
                    "tool_result",
                    [{"functionResponse": {"id": "c1", "response": {"output": killed}}}],
                ),
                _record(
                    "tool_result",
                    [
                        {
                            "functionResponse": {
                                "id": "c2",
                                "response": {"error": "old_string not found"},
                            }
                        }
                    ],
                    toolCallResult={"callId": "c2", "status": "error"},
                ),
                _record("assistant", [{"text": "The server never answered."}]),
            ]
        )
    )
    [task] = _tasks(path)
    shown = [(a.kind, a.command or a.path, a.exit_code, a.failed) for a in task.actions]
    assert shown == [("command", "sleep 99", None, True), ("edit", "a.py", None, True)]
    assert "secret" not in task.attempt and "The server never answered." in task.attempt
    assert "[error] did not finish" in task.attempt
    assert "old_string not found" in task.attempt and "Files changed" not in task.attempt
