"""A file tool call that failed changed nothing: Claude Code's Write refused with
``<tool_use_error>File has not been read yet`` is recorded as a failed write, in the harvest
(``tasks show`` lists no file changed, no ``untouched`` check is mined from it) and in an agent
replay's scoring (``untouched`` passes when the only write failed). Recorded with the real
claude 2.1.197 against the loopback server: a session (``.claude/projects``) and a replay's
``--output-format stream-json``."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.agent_replay.events import claude_output, codex_output
from skillopt_sleep.checks.action_judge import Effects, action_check
from skillopt_sleep.harvest.gemini import GeminiParser
from skillopt_sleep.harvest.jsonl import read_chunk
from skillopt_sleep.harvest.mine import mine_chunk
from skillopt_sleep.harvest.pi import PiParser
from skillopt_sleep.models import Check, TaskRecord

from .recorded_harvest import harvested

REPO_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FIXTURES = REPO_FIXTURES / "failed_writes"
UNTOUCHED = Check(kind="untouched", value="vendor/**")
UNTOUCHED_REASON = "changed files the user wants left alone"


def test_a_refused_write_is_no_file_changed_in_tasks_show(cli, sandbox_home: Path) -> None:
    tasks = harvested(cli, sandbox_home, FIXTURES)
    task = tasks["Fix the date parsing bug in parse()"]
    write = next(a for a in task.actions if a.kind == "write")
    assert (write.path, write.failed) == ("vendor/lib.py", True)
    shown = cli("tasks", "show", task.id, env={"HOME": str(sandbox_home / "agents")})
    assert shown.code == 0, shown.err
    assert "> Write: vendor/lib.py" in shown.out  # what it tried is still shown, as failed
    assert "Write failed: <tool_use_error>File has not been read yet" in shown.out
    assert "[wrote]" not in shown.out
    assert "Files changed" not in shown.out
    assert "Files changed" not in task.attempt
    # the attempt changed nothing under vendor/: it fails no untouched check for that write
    for check in (c for c in task.checks if c.kind == "untouched"):
        assert action_check(check, Effects(tuple(task.actions))) == (True, UNTOUCHED_REASON)


def test_a_codex_patch_that_did_not_apply_is_no_file_changed(cli, sandbox_home: Path) -> None:
    task = harvested(cli, sandbox_home, FIXTURES)["Fix the ISO date parsing in parse()"]
    assert [(a.kind, a.path, a.failed) for a in task.actions] == [("edit", "vendor/lib.py", True)]
    shown = cli("tasks", "show", task.id, env={"HOME": str(sandbox_home / "agents")})
    assert shown.code == 0, shown.err
    assert "apply_patch failed: apply_patch verification failed" in shown.out
    assert "Files changed" not in shown.out
    assert action_check(UNTOUCHED, Effects(tuple(task.actions))) == (True, UNTOUCHED_REASON)


def test_a_replayed_write_that_failed_passes_untouched() -> None:
    stdout = (FIXTURES / "claude-replay-stream.jsonl").read_text()
    out = claude_output(stdout, "/home/dev/work/dates")
    assert [(a.kind, a.path, a.failed) for a in out.actions] == [("write", "vendor/lib.py", True)]
    assert action_check(UNTOUCHED, Effects(out.actions)) == (True, UNTOUCHED_REASON)
    assert out.model == "claude-sonnet-4-6"  # what it ran on (claude --model), as claude names it


def test_a_replayed_write_that_succeeded_fails_untouched() -> None:
    stdout = (FIXTURES / "claude-replay-stream.jsonl").read_text()
    done = stdout.replace('"is_error":true', '"is_error":false').replace(
        "<tool_use_error>File has not been read yet. Read it first before writing to it."
        "</tool_use_error>",
        "File created successfully at: /home/dev/work/dates/vendor/lib.py",
    )
    out = claude_output(done, "/home/dev/work/dates")
    assert [(a.kind, a.path, a.failed) for a in out.actions] == [("write", "vendor/lib.py", False)]
    assert action_check(UNTOUCHED, Effects(out.actions)) == (False, UNTOUCHED_REASON)


def test_a_codex_patch_that_did_not_apply_passes_untouched() -> None:
    def events(status: str) -> str:
        change = '{"path":"vendor/lib.py","kind":"update"}'
        return (
            f'{{"type":"item.completed","item":{{"id":"i1","type":"file_change",'
            f'"changes":[{change}],"status":"{status}"}}}}\n'
            '{"type":"turn.completed","usage":{"input_tokens":5,"output_tokens":1}}\n'
        )

    failed = codex_output(events("failed"), "/p").actions
    applied = codex_output(events("completed"), "/p").actions
    assert [(a.path, a.failed) for a in failed] == [("vendor/lib.py", True)]
    assert action_check(UNTOUCHED, Effects(failed))[0] is True  # type: ignore[index]
    assert action_check(UNTOUCHED, Effects(applied))[0] is False  # type: ignore[index]


PI = sorted(
    (REPO_FIXTURES / "transcripts" / "pi" / ".pi" / "agent" / "sessions").glob("*/*.jsonl")
)[0]
GEMINI = (
    REPO_FIXTURES
    / "transcripts/gemini/.gemini/tmp/calc-project/chats/session-2026-11-26T15-43-f40649d8.jsonl"
)


def _mined(parser, path: Path, tmp_path: Path, was: str, now: str) -> TaskRecord:
    """The first task of a recorded session whose file tool's result ``was`` is read as ``now``
    (the session as the agent writes it when that call fails)."""
    text = path.read_text(encoding="utf-8")
    assert text.count(was) == 1
    failed = tmp_path / path.name
    failed.write_text(text.replace(was, now), encoding="utf-8")
    chunk, _ = read_chunk(parser, failed, 0)
    return mine_chunk(chunk, datetime(2026, 11, 21, tzinfo=timezone.utc))[0]


@pytest.mark.parametrize("failed", [False, True], ids=["wrote", "failed"])
def test_a_pi_write_whose_result_is_an_error_changed_nothing(tmp_path: Path, failed: bool) -> None:
    was = '"Successfully wrote 24 bytes to NOTES.md"}],"isError":false'
    now = '"EACCES: permission denied, open NOTES.md"}],"isError":true' if failed else was
    task = _mined(PiParser(), PI, tmp_path, was, now)
    write = next(a for a in task.actions if a.kind == "write")
    assert (write.path, write.failed) == ("NOTES.md", failed)
    assert ("Files changed: NOTES.md" in task.attempt) is not failed
    assert ("[wrote] NOTES.md" in task.attempt) is not failed
    assert action_check(
        Check(kind="untouched", value="NOTES.md"), Effects(tuple(task.actions))
    ) == (
        failed,
        UNTOUCHED_REASON,
    )


@pytest.mark.parametrize("failed", [False, True], ids=["wrote", "failed"])
def test_a_gemini_write_file_whose_status_is_error_changed_nothing(
    tmp_path: Path, failed: bool
) -> None:
    was = '"status":"success"'
    task = _mined(GeminiParser(), GEMINI, tmp_path, was, '"status":"error"' if failed else was)
    write = next(a for a in task.actions if a.kind == "write")
    assert (write.path, write.failed) == ("calc.py", failed)
    assert ("Files changed: calc.py" in task.attempt) is not failed
    assert ("[wrote] calc.py" in task.attempt) is not failed
    assert action_check(Check(kind="untouched", value="calc.py"), Effects(tuple(task.actions))) == (
        failed,
        UNTOUCHED_REASON,
    )
