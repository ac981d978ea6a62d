"""`tasks add | import | list | show | rm`: records validated on the way in, nothing half-stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillopt_sleep.models import TaskRecord


def add_readme(cli, project: Path):
    return cli(
        "tasks",
        "add",
        "--intent",
        "Write the README",
        "--check",
        "heading=Beta App",
        "--check",
        "max_chars=300",
        "--check",
        "json_valid",
        "--feedback",
        "The title must be 'Beta App'",
        "--outcome",
        "failure",
        cwd=project,
    )


def test_add_then_list_shows_intent_outcome_feedback_and_checks(cli, project):
    r = add_readme(cli, project)
    assert r.code == 0, r.err
    assert r.out.startswith("added: 1 new, 0 updated\n  t_")
    r = cli("tasks", "list", cwd=project)
    lines = r.out.splitlines()
    assert lines[0].endswith("  manual  failure")
    assert lines[1:4] == [
        "  intent:   Write the README",
        "  feedback: The title must be 'Beta App'",
        "  checks:   heading 'Beta App'; max_chars 300; json_valid",
    ]
    assert lines[4] == f"1 task(s) for {project}"


def test_list_json_is_an_array_of_task_records(cli, project):
    add_readme(cli, project)
    out = cli("tasks", "list", "--json", cwd=project).json()
    [record] = [TaskRecord.model_validate(item) for item in out]
    assert record.project == str(project) and record.source == "manual"
    assert [c.kind for c in record.checks] == ["heading", "max_chars", "json_valid"]
    assert record.checks[1].value == 300


def test_adding_the_same_intent_again_updates_it(cli, project):
    add_readme(cli, project)
    r = cli("tasks", "add", "--intent", "Write the README", "--feedback", "shorter", cwd=project)
    assert r.out.startswith("added: 0 new, 1 updated")
    assert len(cli("tasks", "list", "--json", cwd=project).json()) == 1


@pytest.mark.parametrize(
    "check, message",
    [
        (
            "regex=(",
            (
                "skillopt-sleep: error: --check regex=(: invalid regex '(': missing ), unterminated subpattern "
                "at position 0 (fix the regular expression (and quote it for the shell))"
            ),
        ),
        (
            "contain=x",
            (
                "skillopt-sleep: error: unknown check kind 'contain' in --check contain=x (did you mean "
                "contains? kinds: contains, not_contains, regex, starts_with, max_chars, json_valid, heading, "
                "equals, rubric, ran, never_ran, changed, untouched, never_read, file_contains, "
                "file_not_contains, passes_after)"
            ),
        ),
        (
            "max_chars=lots",
            (
                "skillopt-sleep: error: --check max_chars=lots: max_chars needs a whole number "
                "(for example --check max_chars=300)"
            ),
        ),
        (
            "contains",
            (
                "skillopt-sleep: error: --check contains: contains needs a non-empty text value "
                "(write it as KIND=VALUE)"
            ),
        ),
    ],
)
def test_bad_check_is_one_line_and_stores_nothing(cli, project, check, message):
    r = cli("tasks", "add", "--intent", "x", "--check", check, cwd=project)
    assert r.code == 4
    assert r.err == message + "\n"
    assert cli("tasks", "list", "--json", cwd=project).json() == []


def test_missing_intent_and_missing_action(cli, project):
    r = cli("tasks", "add", cwd=project)
    assert r.code == 4 and "a task needs --intent" in r.err
    r = cli("tasks", cwd=project)
    assert r.code == 2 and r.err.count("\n") == 1


TOML = """
[[task]]
intent = "Run the tests"
feedback = "always use pytest -q"
outcome = "failure"
checks = [{ kind = "contains", value = "pytest -q" }]

[[task]]
intent = "Summarise the change"
checks = [{ kind = "max_chars", value = 280 }, { kind = "rubric", value = "Is it one paragraph?" }]
"""


@pytest.mark.parametrize(
    "name, text",
    [
        (
            "tasks.json",
            json.dumps(
                [
                    {
                        "intent": "Run the tests",
                        "checks": [{"kind": "contains", "value": "pytest -q"}],
                    },
                    {"intent": "Summarise the change", "tags": ["docs"]},
                ]
            ),
        ),
        (
            "tasks.jsonl",
            '{"intent": "Run the tests"}\n\n{"intent": "Summarise the change", "outcome": "success"}\n',
        ),
        ("tasks.toml", TOML),
    ],
)
def test_import_json_json_lines_and_toml(cli, project, tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    r = cli("tasks", "import", str(path), cwd=project)
    assert r.code == 0, r.err
    assert r.out.startswith(f"imported {path}: 2 new, 0 updated")
    records = cli("tasks", "list", "--json", cwd=project).json()
    assert sorted(x["intent"] for x in records) == ["Run the tests", "Summarise the change"]
    assert {x["source"] for x in records} == {"import"}
    again = cli("tasks", "import", str(path), cwd=project)
    assert again.out.startswith(f"imported {path}: 0 new, 2 updated")


@pytest.mark.parametrize(
    "records, message",
    [
        (
            [{"intent": "ok"}, {"intent": "bad", "checks": [{"kind": "regex", "value": "a(b"}]}],
            (
                "tasks.json record 2: checks.0: invalid regex 'a(b': missing ), unterminated subpattern at position 1 "
                "(fix the record; nothing was imported)"
            ),
        ),
        (
            [{"intent": "ok"}, {"intent": "bad", "checks": [{"kind": "matches", "value": "x"}]}],
            (
                "tasks.json record 2: checks.0.kind: Input should be 'contains', 'not_contains', 'regex', "
                "'starts_with', 'max_chars', 'json_valid', 'heading', 'equals', 'rubric', 'ran', 'never_ran', "
                "'changed', 'untouched', 'never_read', 'file_contains', 'file_not_contains' or 'passes_after' "
                "(fix the record; nothing was imported)"
            ),
        ),
        (
            [{"intnet": "typo"}],
            "tasks.json record 1: unknown field 'intnet' (did you mean intent?)",
        ),
        (
            [{"intent": ""}],
            (
                "tasks.json record 1: intent: String should have at least 1 character "
                "(fix the record; nothing was imported)"
            ),
        ),
        (
            [{"intent": "x", "project": "relative/dir"}],
            (
                "tasks.json record 1: project: project must be an absolute path, got 'relative/dir' "
                "(fix the record; nothing was imported)"
            ),
        ),
        (
            ["just a string"],
            "tasks.json record 1 is not an object (each task is a JSON object or a [[task]] table)",
        ),
        ([], "no tasks in {path} (write a JSON array, JSON lines or TOML [[task]] tables)"),
    ],
)
def test_a_bad_record_imports_nothing(cli, project, tmp_path, records, message):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(records))
    r = cli("tasks", "import", str(path), cwd=project)
    assert r.code == 4
    assert r.err == "skillopt-sleep: error: " + message.format(path=path) + "\n"
    assert cli("tasks", "list", "--json", cwd=project).json() == []


def test_unreadable_files_are_one_line_errors(cli, project, tmp_path):
    r = cli("tasks", "import", str(tmp_path / "missing.json"), cwd=project)
    assert r.code == 4 and "no such file" in r.err
    bad = tmp_path / "bad.toml"
    bad.write_text("[[task]\nintent = 1")
    r = cli("tasks", "import", str(bad), cwd=project)
    assert r.code == 4 and r.err.count("\n") == 1 and "is not valid TOML" in r.err
    jl = tmp_path / "bad.jsonl"
    jl.write_text('{"intent": "a"}\n{oops\n')
    r = cli("tasks", "import", str(jl), cwd=project)
    assert r.code == 4 and f"{jl} line 2 is not valid JSON" in r.err


def test_add_from_a_file(cli, project, tmp_path):
    path = tmp_path / "one.toml"
    path.write_text(TOML)
    r = cli("tasks", "add", "--file", str(path), cwd=project)
    assert r.code == 0 and "2 new" in r.out
    assert {x["source"] for x in cli("tasks", "list", "--json", cwd=project).json()} == {"manual"}


def test_show_and_rm_by_prefix(cli, project):
    add_readme(cli, project)
    task_id = cli("tasks", "list", "--json", cwd=project).json()[0]["id"]
    r = cli("tasks", "show", task_id[:8], cwd=project)
    assert r.code == 0
    assert f"id:        {task_id}" in r.out and "  - heading 'Beta App'" in r.out
    assert cli("tasks", "show", task_id[:8], "--json", cwd=project).json()["id"] == task_id
    r = cli("tasks", "rm", task_id[:10], cwd=project)
    assert r.out == f"removed {task_id}  Write the README\n"
    r = cli("tasks", "show", task_id, cwd=project)
    assert r.code == 4
    assert r.err == (
        f"skillopt-sleep: error: no task {task_id!r} "
        "(see `skillopt-sleep tasks list --all-projects`)\n"
    )


def test_list_is_per_project_unless_all(cli, project, tmp_path):
    add_readme(cli, project)
    other = tmp_path / "other"
    other.mkdir()
    assert "no tasks for" in cli("tasks", "list", cwd=other).out
    assert len(cli("tasks", "list", "--all-projects", "--json", cwd=other).json()) == 1
