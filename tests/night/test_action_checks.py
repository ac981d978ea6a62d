"""Action checks: validated when made, scored on a recorded attempt and on a replayed tree alike."""

from __future__ import annotations

import asyncio
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.checks.action_judge import Effects, action_check, glob_match, recorded
from skillopt_sleep.checks.judge import judge
from skillopt_sleep.errors import MalformedOutput
from skillopt_sleep.models import Action, Check, TaskRecord


def CMD(c, code=0):
    return Action(kind="command", command=c, exit_code=code)


def FILE(k, p, content=""):
    return Action(kind=k, path=p, content=content)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"kind": "never_ran", "value": "rm -rf ("}, "invalid regex"),
        ({"kind": "untouched", "value": "/etc/passwd"}, "relative to the project"),
        ({"kind": "untouched", "value": "../other/**"}, "must not leave the project"),
        ({"kind": "file_contains", "value": "x"}, "needs a path"),
        ({"kind": "ran", "value": "pytest", "path": "a.py"}, "takes no path"),
        ({"kind": "passes_after", "value": "a\nb"}, "one command line"),
        ({"kind": "contains", "value": "x", "path": "a.py"}, "takes no path"),
    ],
)
def test_a_malformed_action_check_is_refused_when_made(fields, message):
    with pytest.raises(ValueError, match=message):
        Check(**fields)


@pytest.mark.parametrize(
    ("glob", "path", "hit"),
    [
        ("dist/**", "dist/a/b.js", True),
        ("dist", "dist/x", True),
        (".env", "config/.env", True),
        ("*.lock", "poetry.lock", True),
        ("src/*.py", "tests/a.py", False),
        ("node_modules", "src/node_modules_list.py", False),
    ],
)
def test_globs_name_files_and_directories(glob, path, hit):
    assert glob_match(glob, path) is hit


ATTEMPT = recorded(
    [
        CMD("python3 -m unittest -v"),
        FILE("read", ".env"),
        FILE("write", "NOTES.md", "# Notes\n- calc"),
        FILE("delete", "dist/app.js"),
    ]
)


@pytest.mark.parametrize(
    ("check", "passed"),
    [
        (Check(kind="ran", value=r"\bpytest\b"), False),
        (Check(kind="never_ran", value=r"\bunittest\b"), False),
        (Check(kind="never_read", value=".env"), False),
        (Check(kind="untouched", value="dist/**"), False),
        (Check(kind="changed", value="NOTES.md"), True),
        (Check(kind="file_contains", path="NOTES.md", value="^# Notes"), True),
        (Check(kind="file_not_contains", path="NOTES.md", value="calc"), False),
    ],
)
def test_action_checks_score_a_recorded_attempt(check, passed):
    ok, reason = action_check(check, ATTEMPT)
    assert ok is passed
    assert str(check.value) not in reason  # the optimizer never sees the pattern


def test_what_a_record_cannot_show_is_not_applicable_rather_than_a_fail():
    edit_only = recorded([FILE("edit", "app.py", "x = 1")])
    assert action_check(Check(kind="file_contains", path="app.py", value="y"), edit_only) is None
    assert action_check(Check(kind="passes_after", value="true"), edit_only) is None


def _run(command: str, tree: Path) -> int:
    return subprocess.run(
        command, shell=True, cwd=tree, capture_output=True, check=False
    ).returncode


def test_action_checks_score_a_replayed_tree(tmp_path):
    (tmp_path / "app.py").write_text("def add(a, b):\n    return a + b\n")
    effects = Effects(actions=(FILE("edit", "app.py"),), tree=tmp_path, run=_run)
    assert action_check(Check(kind="file_contains", path="*.py", value="return a \\+ b"), effects)[
        0
    ]
    assert action_check(Check(kind="passes_after", value="python3 -c 'import app'"), effects)[0]
    assert not action_check(Check(kind="passes_after", value="python3 -c 'import nope'"), effects)[
        0
    ]


def _task(checks: list[Check]) -> TaskRecord:
    return TaskRecord(
        source="manual",
        project="/w/p",
        session_id="s",
        intent="Run the tests",
        created_at=datetime(2026, 11, 21, tzinfo=timezone.utc),
        checks=checks,
    )


def test_a_text_replay_is_judged_on_the_commands_it_names_and_nothing_else():
    task = _task([Check(kind="ran", value=r"pytest -q"), Check(kind="untouched", value="dist/**")])
    verdict = asyncio.run(judge(task, "I would run `pytest -q`.", None))
    assert verdict.passed and verdict.score == 1.0
    only_paths = _task([Check(kind="untouched", value="dist/**")])
    with pytest.raises(MalformedOutput, match="needs an agent replay"):
        asyncio.run(judge(only_paths, "I would not touch dist.", None))


def test_an_agent_replay_is_judged_on_its_actions():
    task = _task(
        [Check(kind="never_ran", value=r"\bunittest\b"), Check(kind="contains", value="done")]
    )
    verdict = asyncio.run(judge(task, "done", None, recorded([CMD("python -m unittest")])))
    assert not verdict.passed and verdict.score == 0.5
    assert verdict.reasons == ("ran a command the user does not want run",)
