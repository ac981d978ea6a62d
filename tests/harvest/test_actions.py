"""What the attempt did, as structured actions, from both agents' real transcripts."""

from __future__ import annotations

import json

import pytest

from skillopt_sleep.harvest.claude_code import ClaudeCodeParser
from skillopt_sleep.harvest.jsonl import read_chunk
from skillopt_sleep.harvest.mine import mine_chunk
from skillopt_sleep.harvest.shell_effects import shell_effects
from skillopt_sleep.models import Action, TaskRecord

from .conftest import FALLBACK_TIME, claude_file, codex_file, parse


@pytest.mark.parametrize(
    "path",
    [
        claude_file("c04fb971-dcb5-4eb6-a28b-bcd3f06499fb"),
        codex_file("01a1fea5-bbc9-7811-8a5f-a599def456c4"),
    ],
    ids=["claude", "codex"],
)
def test_the_corrected_attempt_keeps_the_command_it_ran_with_its_exit_status(path):
    [task] = mine_chunk(parse(path), FALLBACK_TIME)
    commands = [(a.command, a.exit_code) for a in task.actions if a.kind == "command"]
    assert commands == [("python3 -m unittest -v 2>&1 | tail -4", 0)]  # not the retry's pytest


def test_a_write_tool_and_a_shell_redirect_are_both_file_actions():
    [readme] = mine_chunk(parse(claude_file("4f16d2cd-4766-4855-aaec-e7d5e8743fef")), FALLBACK_TIME)
    assert [(a.kind, a.path, a.tool) for a in readme.actions] == [("write", "README.md", "Write")]
    assert readme.actions[0].content.startswith("# beta-app")
    [notes] = mine_chunk(parse(claude_file("0ee3a2bc-368e-461d-a52b-eadedec77036")), FALLBACK_TIME)
    assert [(a.kind, a.path) for a in notes.actions if a.kind != "command"] == [
        ("write", "NOTES.md"),
        ("read", "NOTES.md"),
    ]


@pytest.mark.parametrize(
    ("command", "effects"),
    [
        ("cat .env", [("read", ".env")]),
        ("rm -rf dist build", [("delete", "dist"), ("delete", "build")]),
        ("sed -i 's/a/b/' src/app.py", [("edit", "src/app.py")]),
        ("pytest -q 2>&1 | tail -n 20", []),
        (
            "echo hi >> log.txt; tee out.txt < in.txt",
            [("write", "log.txt"), ("write", "out.txt"), ("read", "in.txt")],
        ),
        ("mv old.py new.py", [("delete", "old.py"), ("write", "new.py")]),
        ("grep -n TODO src/main.py", [("read", "src/main.py")]),
        ("echo 'unclosed", []),
        ("sed -i 's/a/b/' vendor/p.py 2>&1 | tail -1", [("edit", "vendor/p.py")]),
        ("make docs >& build.log", [("write", "build.log")]),
        ("cat notes.md >&2", [("read", "notes.md")]),
    ],
)
def test_shell_commands_show_their_file_effects(command, effects):
    assert shell_effects(command) == effects


def _claude_lines(tool_input: dict, result: str, is_error: bool) -> list[dict]:
    base = {"sessionId": "s1", "cwd": "/w/p", "timestamp": "2026-11-21T10:00:00Z"}
    return [
        {**base, "type": "user", "message": {"role": "user", "content": "Clean the build"}},
        {
            **base,
            "type": "assistant",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "tu1", "name": "Bash", "input": tool_input}],
            },
        },
        {
            **base,
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "tu1",
                        "content": result,
                        "is_error": is_error,
                    }
                ],
            },
        },
    ]


def test_a_failing_claude_command_keeps_its_exit_code(tmp_path):
    path = tmp_path / "s.jsonl"
    lines = _claude_lines({"command": "make clean"}, "Exit code 2\nmake: *** No rule", True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    chunk, _ = read_chunk(ClaudeCodeParser(), path, 0)
    [task] = mine_chunk(chunk, FALLBACK_TIME)
    [action] = task.actions
    assert (action.command, action.exit_code, action.failed) == ("make clean", 2, True)


def test_an_older_record_reads_as_one_without_actions():
    old = {
        "schema_version": 2,
        "source": "manual",
        "project": "/w/p",
        "session_id": "s",
        "created_at": "2026-11-21T10:00:00Z",
        "intent": "do it",
    }
    assert TaskRecord.model_validate(old).actions == []


@pytest.mark.parametrize(
    ("fields", "message"),
    [({"kind": "command"}, "needs the command"), ({"kind": "read"}, "needs a path")],
)
def test_an_action_without_its_subject_is_refused(fields, message):
    with pytest.raises(ValueError, match=message):
        Action(**fields)
