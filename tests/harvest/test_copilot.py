"""GitHub Copilot CLI sessions (recorded from the real CLI against a loopback model) become tasks:
the request, what the agent did, and the user's correction or praise attached to it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from skillopt_sleep.errors import InputError
from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.harvest.copilot import (
    CopilotParser,
    copilot_files,
    default_root,
    peek_copilot_project,
    session_end_payload,
)
from skillopt_sleep.harvest.jsonl import read_chunk
from skillopt_sleep.harvest.mine import group_turns, mine_chunk
from skillopt_sleep.harvest.session import ParseState, SessionChunk
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.testing.copilot_agent import (
    CORRECTION,
    NOTES,
    NOTES_TEXT,
    PRAISE,
    PRAISE_PROMPT,
    PROMPT,
    install_plugin,
    record_sessions,
    which_copilot,
)

from .conftest import FALLBACK_TIME, TRANSCRIPTS, records_json

COPILOT_ROOT = TRANSCRIPTS / "copilot" / ".copilot"
CORRECTED = COPILOT_ROOT / "session-state" / "e3551bd7-1e86-42ac-91d6-5ff108467236" / "events.jsonl"
PRAISED = COPILOT_ROOT / "session-state" / "2ebcadb7-e609-4a62-a970-f7ccd919a195" / "events.jsonl"
PROJECT = "/home/user/calc"
PLUGIN = Path(__file__).resolve().parents[2] / "plugins" / "copilot"


def parse(path: Path, start: int = 0, state: ParseState | None = None) -> SessionChunk:
    chunk, _ = read_chunk(CopilotParser(state), path, start)
    return chunk


def mined(path: Path) -> list[TaskRecord]:
    return mine_chunk(parse(path), FALLBACK_TIME)


def _events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def _write(path: Path, events: list[dict | str]) -> Path:
    lines = [e if isinstance(e, str) else json.dumps(e) for e in events]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_correction_on_continue_lands_on_its_request_with_the_pytest_checks():
    [task] = mined(CORRECTED)
    assert (task.source, task.intent, task.feedback) == ("copilot", PROMPT, CORRECTION)
    assert task.outcome == "failure"
    assert task.session_id == "e3551bd7-1e86-42ac-91d6-5ff108467236"
    assert task.project == PROJECT and task.commit
    assert [plain(c) for c in task.checks] == [
        "contains 'pytest -q'",
        "runs pytest",
        "never runs unittest",
    ]


def test_the_attempt_shows_the_commands_with_their_exit_codes_and_the_written_file():
    [task] = mined(CORRECTED)
    done = [(a.kind, a.command or a.path, a.exit_code, a.failed) for a in task.actions]
    assert done == [
        ("command", "python3 -m unittest", 0, False),
        ("write", NOTES, None, False),
        ("command", "ls does-not-exist", 2, True),
    ]
    assert task.actions[1].content == NOTES_TEXT
    assert "[error] exit 2: ls: cannot access 'does-not-exist'" in task.attempt
    assert f"[wrote] {NOTES}:" in task.attempt and task.tools_used == ["bash", "create"]


def test_praise_is_feedback_on_its_request_never_a_correction():
    [task] = mined(PRAISED)
    assert (task.intent, task.feedback, task.outcome) == (PRAISE_PROMPT, PRAISE, "success")
    assert task.checks == []


def test_only_what_the_user_typed_is_a_prompt():
    chunk = parse(CORRECTED)
    # AGENTS.md and the system prompt reach the model in system.message; the model's copy of a
    # prompt carries a <current_datetime> prefix: neither is a prompt.
    assert [t.prompt for t in chunk.turns] == [PROMPT, CORRECTION]
    assert (chunk.state.project, chunk.state.branch, chunk.state.model) == (
        PROJECT,
        "master",
        "gpt-5",
    )


@pytest.mark.parametrize("path", [CORRECTED, PRAISED], ids=["corrected", "praised"])
def test_the_recorded_sessions_parse_whole_into_the_reviewed_records(path, golden):
    chunk = parse(path)
    assert not chunk.skipped, dict(chunk.skipped)
    assert chunk.lines == len(path.read_bytes().splitlines())
    golden(
        f"harvest/copilot/{path.parent.name}.json", records_json(mine_chunk(chunk, FALLBACK_TIME))
    )


def test_a_broken_line_is_skipped_and_counted_and_nothing_else_is_lost(tmp_path):
    events: list[dict | str] = list(_events(CORRECTED))
    events.insert(3, '{"type": "assistant.message", "data": {"content": "cut sho')
    events.insert(5, {"type": "user.message", "data": "not an object"})
    events.insert(7, {"type": "telemetry.beacon", "data": {}})
    broken = _write(tmp_path / "events.jsonl", events)
    chunk = parse(broken)
    assert dict(chunk.skipped) == {"invalid-json": 1, "bad-fields": 1, "unknown-type": 1}
    assert records_json(mine_chunk(chunk, FALLBACK_TIME)) == records_json(mined(CORRECTED))


def test_a_resumed_session_read_in_two_harvests_gives_the_tasks_of_one_read(tmp_path):
    data = CORRECTED.read_bytes()
    resume = data.index(b'{"type":"session.resume"')
    grown = tmp_path / "events.jsonl"
    grown.write_bytes(data[:resume])  # the file as the first run left it
    first = parse(grown)
    [before] = mine_chunk(first, FALLBACK_TIME)
    assert (before.intent, before.feedback, before.outcome) == (PROMPT, "", "unknown")

    # the next harvest starts at the last task's prompt, with the state its cursor kept
    last = group_turns(first.turns)[-1].task
    state = ParseState.from_json(first.state.to_json())
    state.turns_before = last.index
    with grown.open("ab") as fh:
        fh.write(data[resume:])  # copilot --continue appends to the same file
    again = mine_chunk(parse(grown, last.offset, state), FALLBACK_TIME)
    assert records_json(again) == records_json(mined(CORRECTED))
    assert again[0].id == before.id  # the store folds it into the task it already has


def test_injected_and_sub_agent_messages_are_not_prompts(tmp_path):
    events = _events(CORRECTED)
    prompt = next(e for e in events if e["type"] == "user.message")
    skill = {
        **prompt,
        "data": {**prompt["data"], "content": "Use the pdf skill", "source": "skill-pdf"},
    }
    auto = {
        **prompt,
        "data": {**prompt["data"], "content": "continue", "isAutopilotContinuation": True},
    }
    sub = {**prompt, "agentId": "sub-1", "data": {**prompt["data"], "content": "inspect calc.py"}}
    at = events.index(prompt) + 1
    path = _write(tmp_path / "events.jsonl", [*events[:at], skill, auto, sub, *events[at:]])
    assert [t.prompt for t in parse(path).turns] == [PROMPT, CORRECTION]


def test_the_lister_finds_every_session_log_and_reports_what_it_cannot_list(tmp_path):
    problems: list[tuple[str, str]] = []
    found = list(copilot_files(COPILOT_ROOT, problems))
    assert sorted(found) == sorted([str(CORRECTED), str(PRAISED)]) and problems == []
    assert list(copilot_files(tmp_path / "nowhere", problems)) == [] and problems == []

    home = tmp_path / ".copilot"
    shutil.copytree(COPILOT_ROOT, home)
    (home / "session-state" / ".session-operation-locks").mkdir()  # copilot's lock directory
    (home / "session-state" / "no-log-yet").mkdir()
    assert len(list(copilot_files(home, problems))) == 2 and problems == []

    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "session-state").write_text("not a directory")
    assert list(copilot_files(blocked, problems)) == []
    [(path, why)] = problems
    assert path.endswith("session-state") and why


def test_the_home_is_copilot_home_else_dot_copilot_and_the_project_is_peeked(tmp_path):
    assert default_root({"HOME": "/home/u"}) == Path("/home/u/.copilot")
    assert default_root({"HOME": "/home/u", "COPILOT_HOME": "/srv/cp"}) == Path("/srv/cp")
    assert peek_copilot_project(CORRECTED) == PROJECT
    assert peek_copilot_project(tmp_path / "missing.jsonl") == ""


@pytest.mark.realbin
@pytest.mark.slow
def test_a_fresh_copilot_recording_is_harvested_and_the_plugin_hook_leads_to_each_session(
    tmp_path,
):
    """One recording, in a home with the plugin installed as a user installs it, proves two
    things, each asserted on its own: its sessions are harvested (the correction, the praise),
    and the plugin's sessionEnd hook fires after each headless ``copilot -p`` run with a payload
    that leads to that run's session (a recorder stands in for the launcher)."""
    if which_copilot() is None:
        pytest.skip("copilot is not installed (npm i -g @github/copilot@1.0.102)")
    plugin, out = tmp_path / "plugin", tmp_path / "hook-calls"
    shutil.copytree(PLUGIN, plugin, symlinks=True)
    launcher = plugin / "bin" / "skillopt-sleep"
    launcher.unlink()  # stands in for the launcher: records what the hook ran with
    launcher.write_text(f'#!/bin/sh\necho "$*" >> "{out}.argv"\ncat >> "{out}.json"\n')
    launcher.chmod(0o755)
    home = tmp_path / "home"
    installed = install_plugin(plugin, home)
    assert installed.code == 0, installed.err

    corrected, praised = record_sessions(tmp_path)
    project = str(tmp_path / "project")
    [task] = mined(corrected)
    assert (task.intent, task.feedback, task.outcome) == (PROMPT, CORRECTION, "failure")
    assert task.project == project and "runs pytest" in [plain(c) for c in task.checks]
    assert [(a.command, a.exit_code) for a in task.actions if a.kind == "command"] == [
        ("python3 -m unittest", 0),
        ("ls does-not-exist", 2),
    ]
    assert (tmp_path / "project" / NOTES).read_text() == NOTES_TEXT
    [thanked] = mined(praised)
    assert (thanked.feedback, thanked.outcome, thanked.checks) == (PRAISE, "success", [])
    assert sorted(copilot_files(home / ".copilot", [])) == sorted([str(corrected), str(praised)])

    # the plugin: each of the four runs ran `log --agent copilot` with a payload naming its session
    argv = Path(f"{out}.argv")
    assert argv.exists(), "the plugin's sessionEnd hook never ran the launcher"
    assert argv.read_text() == "log --agent copilot\n" * 4
    payloads = [
        session_end_payload(n, home / ".copilot") for n in _json_values(Path(f"{out}.json"))
    ]
    assert [p["transcript_path"] for p in payloads] == [
        str(p) for p in (corrected,) * 2 + (praised,) * 2
    ]
    assert all((p["cwd"], p["reason"]) == (project, "complete") for p in payloads)
    [hooked] = mined(Path(payloads[0]["transcript_path"]))
    assert (hooked.session_id, hooked.intent) == (payloads[0]["session_id"], PROMPT)


def _json_values(path: Path) -> list[dict]:
    """The JSON values written one after another in ``path`` (the hook's stdin, run by run)."""
    text, values, at = path.read_text(), [], 0
    decoder = json.JSONDecoder()
    while text[at:].strip():
        at += len(text[at:]) - len(text[at:].lstrip())
        value, at = decoder.raw_decode(text, at)
        values.append(value)
    return values


def test_the_session_end_hook_payload_names_the_session_log_and_nothing_else(tmp_path):
    root = tmp_path / ".copilot"
    native = {"sessionId": "e3551bd7-1e86", "timestamp": 1, "cwd": PROJECT, "reason": "complete"}
    payload = session_end_payload(native, root)
    assert payload == {
        "agent": "copilot",
        "session_id": "e3551bd7-1e86",
        "transcript_path": str(root / "session-state" / "e3551bd7-1e86" / "events.jsonl"),
        "cwd": PROJECT,
        "hook_event_name": "SessionEnd",
        "reason": "complete",
    }
    claude_format = {"hook_event_name": "SessionEnd", "session_id": "e3551bd7-1e86"}
    assert session_end_payload(claude_format, root)["transcript_path"] == payload["transcript_path"]
    for bad in ("../../etc", "/etc/passwd", "", None, "a/b"):
        with pytest.raises(InputError, match="no valid sessionId"):
            session_end_payload({"sessionId": bad}, root)


def test_an_edit_a_failed_tool_a_skill_and_an_interruption_are_kept_on_their_turn(tmp_path):
    start = _events(CORRECTED)[:2]  # session.start and the prompt, as recorded
    calc = f"{PROJECT}/calc.py"
    edit = {"path": calc, "old_str": "a + b", "new_str": "a + b  # sum"}
    events: list[dict | str] = [
        *start,
        {"type": "skill.invoked", "data": {"name": "testing", "path": "", "content": "..."}},
        {
            "type": "assistant.message",
            "data": {
                "content": "Fixing it.",
                "toolRequests": [
                    {"toolCallId": "c1", "name": "edit", "arguments": edit},
                    {"toolCallId": "c2", "name": "view", "arguments": {"path": f"{PROJECT}/x"}},
                ],
            },
        },
        {
            "type": "tool.execution_complete",
            "data": {
                "toolCallId": "c1",
                "success": True,
                "fileEdits": [{"path": calc, "kind": "edit"}],
                "result": {"content": "File updated"},
            },
        },
        {
            "type": "tool.execution_complete",
            "data": {"toolCallId": "c2", "success": False, "error": {"message": "no such file"}},
        },
        {"type": "abort", "data": {"reason": "user_initiated"}},
    ]
    [turn] = parse(_write(tmp_path / "events.jsonl", events)).turns
    assert [(a.kind, a.path, a.content) for a in turn.actions] == [
        ("read", f"{PROJECT}/x", ""),
        ("edit", calc, "a + b  # sum"),
    ]
    assert turn.errors == ["view: no such file"] and turn.files == [calc]
    assert (turn.skills, turn.tags, turn.tools) == (["testing"], ["interrupted"], ["edit", "view"])
