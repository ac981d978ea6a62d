"""Gemini CLI sessions become tasks: from the sessions the real CLI recorded (the fixtures under
``fixtures/transcripts/gemini/.gemini``, laid out as its home), and from a fresh recording."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.harvest.gemini import (
    GeminiParser,
    default_root,
    gemini_files,
    peek_gemini_project,
)
from skillopt_sleep.harvest.jsonl import read_chunk
from skillopt_sleep.harvest.mine import group_turns, mine_chunk
from skillopt_sleep.harvest.session import ParseState
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.testing import Text
from skillopt_sleep.testing.gemini_agent import (
    NOTES_TEXT,
    converse,
    gemini_shell,
    install_extension,
    make_project,
    scripted,
    scripted_session,
    which_gemini,
)

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "transcripts" / "gemini" / ".gemini"
CHATS = ROOT / "tmp" / "calc-project" / "chats"
CORRECTED = CHATS / "session-2026-11-26T15-42-42eaee10.jsonl"
PRAISED = CHATS / "session-2026-11-26T15-43-f40649d8.jsonl"
PROJECT = "/home/user/calc-project"
EXTENSION = Path(__file__).resolve().parents[2] / "plugins" / "gemini"
REQUEST, FIX = "run the tests please", "No, that's wrong: always use pytest -q"
NOW = datetime(2026, 11, 27, tzinfo=timezone.utc)


def tasks(path: Path, start: int = 0, state: ParseState | None = None) -> list[TaskRecord]:
    chunk, _ = read_chunk(GeminiParser(state), path, start)
    return mine_chunk(chunk, NOW)


def dumped(records: list[TaskRecord]) -> list[dict[str, object]]:
    return [r.model_dump(mode="json") for r in records]


def test_a_corrected_request_is_one_failed_task_carrying_the_pytest_check():
    [task] = tasks(CORRECTED)
    assert (task.source, task.project, task.intent) == ("gemini", PROJECT, REQUEST)
    assert task.session_id == "42eaee10-f445-400d-9c38-1a3d0225d778"
    assert (task.outcome, task.feedback) == ("failure", FIX)
    assert [plain(c) for c in task.checks] == [
        "contains 'pytest -q'",
        "runs pytest",
        "never runs unittest",
    ]
    assert task.model == "gemini-3.8-flash"
    assert task.tools_used == ["run_shell_command", "write_file"]


def test_the_attempt_keeps_each_command_with_its_exit_code_and_the_file_it_wrote():
    [task] = tasks(CORRECTED)
    assert [(a.kind, a.command or a.path, a.exit_code, a.failed) for a in task.actions] == [
        ("command", "python3 -m unittest", 0, False),
        ("write", "NOTES.md", None, False),
        ("command", "ls does-not-exist", 2, True),
    ]
    assert task.actions[1].content == "# Notes\nadd() works.\n"
    assert "exited 2" in task.attempt and "Done: the tests pass" in task.attempt
    assert task.attempt.count("Running the check.") == 1  # the reply re-written once done


def test_the_injected_session_context_is_never_a_prompt():
    chunk, _ = read_chunk(GeminiParser(), CORRECTED, 0)
    assert [t.prompt for t in chunk.turns] == [REQUEST, FIX]
    assert chunk.state.project == PROJECT and peek_gemini_project(CORRECTED) == PROJECT
    assert not chunk.skipped


def test_praise_is_not_a_correction():
    [task] = tasks(PRAISED)
    assert task.intent == "add a sub function to calc.py"
    assert (task.outcome, task.feedback, task.checks) == ("success", "thanks, perfect", [])
    assert [(n.kind, n.text) for n in task.turns] == [("praise", "thanks, perfect")]
    assert [(a.kind, a.path) for a in task.actions] == [("write", "calc.py")]


def test_a_broken_line_is_skipped_and_counted_and_nothing_else_is_lost(tmp_path):
    lines = CORRECTED.read_bytes().splitlines(keepends=True)
    broken = tmp_path / CORRECTED.name
    broken.write_bytes(
        b"".join(lines[:5])
        + b'{"id": "x", "type": "gemini", "toolCalls": 7}\n'
        + b"{not json\n"
        + b"".join(lines[5:])
    )
    chunk, _ = read_chunk(GeminiParser(), broken, 0)
    assert dict(chunk.skipped) == {"bad-fields": 1, "invalid-json": 1}
    assert dumped(mine_chunk(chunk, NOW)) == dumped(tasks(CORRECTED))


def _resumed_read(path: Path, cut: int) -> list[TaskRecord] | None:
    """Read ``cut`` bytes of ``path`` as a harvest would, then the rest of the grown file from
    where a harvest resumes (its last task's prompt), with the state its cursor keeps.

    None when the first read ends on a request with no reply yet: the harvest passes such a
    prompt over whatever the agent (a request without work teaches nothing).
    """
    grown = path.read_bytes()
    partial = path.parent / "partial" / path.name
    partial.parent.mkdir(exist_ok=True)
    partial.write_bytes(grown[:cut])
    chunk, end = read_chunk(GeminiParser(), partial, 0)
    state = ParseState.from_json(chunk.state.to_json())
    groups = group_turns(chunk.turns)
    if chunk.turns and not groups:
        return None
    start = end
    if groups:
        start, state.turns_before = groups[-1].task.offset, groups[-1].task.index
    partial.write_bytes(grown)
    return tasks(partial, start, state)


@pytest.mark.parametrize("session", [CORRECTED, PRAISED], ids=["corrected", "praised"])
def test_a_resumed_session_read_as_it_grows_gives_the_tasks_of_one_read(session, tmp_path):
    whole = dumped(tasks(session))
    data = session.read_bytes()
    ends = [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]
    copy = tmp_path / session.name
    shutil.copy(session, copy)
    compared = 0
    for cut in ends:  # at every line: between a reply's two versions, at the resume, ...
        again = _resumed_read(copy, cut)
        if again is not None:
            assert dumped(again) == whole, f"read first up to byte {cut}"
            compared += 1
    assert compared >= len(ends) - 3


def test_the_resume_appends_to_the_original_file_and_its_leftover_file_gives_nothing(tmp_path):
    """A resume writes the metadata and the context again, then its turns, to the file the
    session began in; the metadata-only file it leaves beside it holds no turn."""
    text = CORRECTED.read_text(encoding="utf-8").splitlines()
    assert sum(1 for line in text if '"projectHash"' in line) == 2
    leftover = tmp_path / "session-2026-11-26T15-44-42eaee10.jsonl"
    leftover.write_text("\n".join(text[:2]) + "\n", encoding="utf-8")
    chunk, _ = read_chunk(GeminiParser(), leftover, 0)
    assert (chunk.turns, chunk.state.project) == ([], PROJECT)


def test_a_subagents_session_is_not_the_users(tmp_path):
    lines = CORRECTED.read_text(encoding="utf-8").splitlines()
    meta = json.loads(lines[0]) | {"kind": "subagent"}
    path = tmp_path / "session-sub.jsonl"
    path.write_text("\n".join([json.dumps(meta), *lines[1:]]) + "\n", encoding="utf-8")
    assert tasks(path) == []


def test_the_lister_yields_the_session_files_under_the_home():
    problems: list[tuple[str, str]] = []
    assert list(gemini_files(ROOT, problems)) == [str(CORRECTED), str(PRAISED)]
    assert problems == []


def test_a_missing_home_yields_nothing_and_an_unlistable_directory_is_a_problem(tmp_path):
    problems: list[tuple[str, str]] = []
    assert list(gemini_files(tmp_path / "absent", problems)) == [] and problems == []
    (tmp_path / "tmp" / "proj").mkdir(parents=True)
    (tmp_path / "tmp" / "proj" / "chats").write_text("not a directory")
    assert list(gemini_files(tmp_path, problems)) == []
    assert problems == [(str(tmp_path / "tmp" / "proj" / "chats"), "Not a directory")]


def test_the_home_is_gemini_cli_home_else_home():
    assert default_root({"HOME": "/h"}) == Path("/h/.gemini")
    assert default_root({"HOME": "/h", "GEMINI_CLI_HOME": "/g"}) == Path("/g/.gemini")


def _hook_calls(out: Path) -> tuple[list[str], list[dict[str, object]]]:
    """What the stand-in launcher was run with, call by call: its arguments and the payloads
    it read (concatenated on its stdin log)."""
    assert Path(f"{out}.argv").exists(), "the extension's SessionEnd hook never ran the launcher"
    text, payloads, at = Path(f"{out}.json").read_text(), [], 0
    decoder = json.JSONDecoder()
    while text[at:].strip():
        at += len(text[at:]) - len(text[at:].lstrip())
        payload, at = decoder.raw_decode(text, at)
        payloads.append(payload)
    return Path(f"{out}.argv").read_text().splitlines(), payloads


@pytest.mark.realbin
@pytest.mark.slow
def test_a_fresh_gemini_session_goes_to_log_through_the_extension_and_its_correction_is_harvested(
    tmp_path,
):
    """One recording proves both: the extension's SessionEnd hook fires headless and names the
    transcript, and the corrected session it names is harvested with its correction."""
    if which_gemini() is None:
        pytest.skip("gemini is not installed (npm i -g @google/gemini-cli@0.61.0)")
    extension, out = tmp_path / "extension", tmp_path / "hook-calls"
    shutil.copytree(EXTENSION, extension, symlinks=True)
    launcher = extension / "bin" / "skillopt-sleep"
    launcher.unlink()  # stands in for the launcher: records what the hook ran with
    launcher.write_text(f'#!/bin/sh\necho "$*" >> "{out}.argv"\ncat >> "{out}.json"\n')
    launcher.chmod(0o755)
    home, project = tmp_path / "home", make_project(tmp_path / "calc-project")
    installed = install_extension(extension, home)
    assert installed.code == 0, installed.err
    fix = scripted([gemini_shell("python3 -m pytest -q"), Text("Understood: pytest -q.")])
    runs = converse([(REQUEST, scripted_session()), (FIX, fix)], home=home, cwd=project)
    assert [r.code for r in runs] == [0, 0], runs[-1].err[-2000:]
    session = runs[0].json()["session_id"]

    # the hook: one `log --agent gemini` call per ended session, each naming its transcript
    argv, payloads = _hook_calls(out)
    assert argv == ["log --agent gemini"] * 2, argv
    for payload in payloads:
        assert (payload["hook_event_name"], payload["reason"]) == ("SessionEnd", "exit")
        assert (payload["session_id"], payload["cwd"]) == (session, str(project))
    [hooked] = tasks(Path(str(payloads[0]["transcript_path"])))
    assert (hooked.session_id, hooked.intent) == (session, REQUEST)

    # the harvest: a resume in a later minute leaves a metadata-only file beside the real one
    paths = [Path(p) for p in gemini_files(home / ".gemini", [])]
    assert {p.name.rsplit("-", 1)[1] for p in paths} == {f"{session[:8]}.jsonl"}
    [task] = [t for path in paths for t in tasks(path)]
    assert (task.project, task.intent, task.feedback) == (str(project), REQUEST, FIX)
    assert task.session_id == session and task.outcome == "failure"
    assert [plain(c) for c in task.checks] == [
        "contains 'pytest -q'",
        "runs pytest",
        "never runs unittest",
    ]
    assert [(a.command or a.path, a.exit_code) for a in task.actions] == [
        ("python3 -m unittest", 0),
        ("NOTES.md", None),
        ("ls does-not-exist", 2),
    ]
    assert (project / "NOTES.md").read_text() == NOTES_TEXT


def test_a_custom_command_is_the_request_the_user_typed_and_its_body_is_context(tmp_path):
    """As gemini 0.61 writes ``/hello world`` run from ``.gemini/commands/hello.toml``."""
    lines = PRAISED.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if "add a sub function" in line)
    typed = json.loads(lines[at])
    typed["content"] = [{"text": "EXPANDED_HELLO to world"}]
    typed["displayContent"] = [{"text": "/hello world"}]
    path = tmp_path / PRAISED.name
    path.write_text("\n".join([*lines[:at], json.dumps(typed), *lines[at + 1 :]]) + "\n")
    [task] = tasks(path)
    assert (task.intent, task.feedback, task.tags) == (
        "/hello world",
        "thanks, perfect",
        ["slash-command"],
    )
    assert "EXPANDED_HELLO to world" in task.context
    assert task.context.startswith("[Repository text expanded into the session, not typed")
