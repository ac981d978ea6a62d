"""Every real transcript parses into the TaskRecords reviewed in tests/golden/harvest/."""

from __future__ import annotations

import pytest

from skillopt_sleep.checks.action_judge import action_check, recorded
from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.harvest.expanded import typed
from skillopt_sleep.harvest.mine import mine_chunk

from .conftest import (
    CLAUDE_FILES,
    CODEX_FILES,
    FALLBACK_TIME,
    claude_file,
    codex_file,
    parse,
    records_json,
)


@pytest.mark.parametrize("path", CLAUDE_FILES + CODEX_FILES, ids=lambda p: p.stem[-12:])
def test_every_real_transcript_parses_into_the_expected_task_records(path, golden):
    chunk = parse(path)
    assert not chunk.skipped, f"lines skipped in a real transcript: {dict(chunk.skipped)}"
    assert chunk.lines == len(path.read_bytes().splitlines())
    records = mine_chunk(chunk, FALLBACK_TIME)
    assert records, "a real session gave no task"
    source = "claude-code" if path in CLAUDE_FILES else "codex"
    golden(f"harvest/{source}/{path.stem}.json", records_json(records))


@pytest.mark.parametrize(
    "path",
    [
        claude_file("c04fb971-dcb5-4eb6-a28b-bcd3f06499fb"),
        codex_file("01a1fea5-bbc9-7811-8a5f-a599def456c4"),
    ],
    ids=["claude", "codex"],
)
def test_a_resumed_correction_is_feedback_with_a_check_and_a_failed_outcome(path):
    [task] = mine_chunk(parse(path), FALLBACK_TIME)
    assert task.intent == "Run the test suite"
    assert task.feedback == "No, that's wrong: always use pytest -q"
    assert task.outcome == "failure"
    assert [plain(c) for c in task.checks] == [
        "contains 'pytest -q'",
        "runs pytest",
        "never runs unittest",
    ]
    assert "unittest" in task.attempt  # the corrected attempt, not the retry
    for check in task.checks[1:]:  # the action checks fail on the attempt the user corrected
        assert action_check(check, recorded(task.actions))[0] is False
    assert "corrected" in task.tags


def test_a_title_correction_becomes_a_heading_check():
    [task] = mine_chunk(parse(claude_file("4f16d2cd-4766-4855-aaec-e7d5e8743fef")), FALLBACK_TIME)
    assert task.project == "/home/dev/work/beta_app.v2"
    assert task.outcome == "failure"
    assert task.feedback == "No, that's wrong: the README title must be 'Beta App'"
    assert [(c.kind, c.value) for c in task.checks] == [("heading", "Beta App")]
    assert "# beta-app" in task.attempt and "Files changed: README.md" in task.attempt


def test_a_plugin_slash_command_keeps_its_expanded_body_as_context():
    [task] = mine_chunk(parse(claude_file("20c8f1d0-421d-422c-8534-ebdd30d8e6c6")), FALLBACK_TIME)
    assert task.intent == "/demo-plugin:hello world"
    assert task.context.startswith(
        "[Repository text expanded into the session, not typed by the user: the body of the slash command "
        "/demo-plugin:hello]\nHELLO-PLUGIN-MARKER. Greet world"
    )
    assert typed(task.context) == "" and "HELLO-PLUGIN-MARKER" not in task.feedback
    assert task.skills_used == ["demo-plugin:hello"]
    assert "<command-" not in task.intent + task.context


def test_codex_injected_messages_are_not_prompts_and_skill_mentions_are_recorded():
    [task] = mine_chunk(parse(codex_file("01a1fea5-c08c-7110-ab98-13249bd2a812")), FALLBACK_TIME)
    assert task.intent == "Please use $demo-skill here"
    assert task.skills_used == ["demo-skill"]
    for chunk_path in CODEX_FILES:
        for rec in mine_chunk(parse(chunk_path), FALLBACK_TIME):
            assert not rec.intent.startswith(("<environment_context>", "# AGENTS.md", "<skill>"))
