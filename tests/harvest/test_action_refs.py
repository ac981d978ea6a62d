"""Action corrections: a later turn that names what the previous attempt did corrects it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from skillopt_sleep.harvest.mine import mine_chunk

from .conftest import FALLBACK_TIME

BENCH = Path(__file__).resolve().parents[2] / "bench" / "action_turns.py"


def _bench():
    spec = importlib.util.spec_from_file_location("action_turns", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_labelled_suite_is_read_far_better_with_the_attempts_actions():
    bench = _bench()
    rows = bench.load()
    rules, refs = bench.score(rows, bench.rules_only), bench.score(rows, bench.with_refs)
    assert refs["accuracy"] >= 0.9 > rules["accuracy"]
    assert refs["corrections_caught"] >= 40 and refs["false_corrections"] <= 2
    assert set(refs["by_lang"]) == {"en", "de", "fr", "es"}


def _session(tmp_path: Path, turns: list[tuple[str, str]]):
    from skillopt_sleep.harvest.claude_code import ClaudeCodeParser
    from skillopt_sleep.harvest.jsonl import read_chunk

    base = {"sessionId": "s1", "cwd": "/w/p", "timestamp": "2026-11-21T10:00:00Z"}
    lines = []
    for i, (prompt, command) in enumerate(turns):
        lines += [
            {**base, "type": "user", "message": {"role": "user", "content": prompt}},
            {
                **base,
                "type": "assistant",
                "message": {
                    "id": f"m{i}",
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": f"t{i}",
                            "name": "Bash",
                            "input": {"command": command},
                        }
                    ],
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
                            "tool_use_id": f"t{i}",
                            "content": "ok",
                            "is_error": False,
                        }
                    ],
                },
            },
        ]
    path = tmp_path / "s1.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    chunk, _ = read_chunk(ClaudeCodeParser(), path, 0)
    return mine_chunk(chunk, FALLBACK_TIME)


def test_a_short_imperative_about_the_command_just_run_attaches_to_its_request(tmp_path):
    [task] = _session(
        tmp_path, [("Install lodash", "npm install lodash"), ("pnpm here", "pnpm add lodash")]
    )
    assert task.intent == "Install lodash"
    assert task.feedback == "pnpm here" and task.outcome == "failure"
    assert [a.command for a in task.actions] == ["npm install lodash"]


def test_a_new_request_naming_the_same_file_stays_a_task_of_its_own(tmp_path):
    tasks = _session(
        tmp_path,
        [
            ("Fix the title", "sed -i 's/x/y/' README.md"),
            ("Add a Usage section to README.md", "cat README.md"),
        ],
    )
    assert [t.intent for t in tasks] == ["Fix the title", "Add a Usage section to README.md"]


def test_an_action_correction_yields_action_checks_that_fail_on_the_corrected_attempt(tmp_path):
    [task] = _session(
        tmp_path, [("Show me the config", "cat .env"), ("don't cat .env", "cat config.example")]
    )
    checks = {(c.kind, c.value) for c in task.checks}
    assert ("never_read", ".env") in checks
    from skillopt_sleep.checks.action_judge import action_check, recorded

    for check in task.checks:
        if check.kind in ("never_read", "never_ran"):
            assert action_check(check, recorded(task.actions))[0] is False


def test_another_tool_of_the_same_job_becomes_ran_and_never_ran(tmp_path):
    [task] = _session(
        tmp_path, [("Install lodash", "npm install lodash"), ("pnpm here", "pnpm add lodash")]
    )
    kinds = {(c.kind, c.value) for c in task.checks}
    assert ("ran", r"(?<![\w-])pnpm(?![\w-])") in kinds
    assert ("never_ran", r"(?<![\w-])npm(?![\w-])") in kinds


def test_a_linter_named_against_the_one_the_attempt_ran_is_a_correction_with_checks(tmp_path):
    [task] = _session(
        tmp_path,
        [
            ("Run the linter", "flake8 . 2>&1 | tail -1"),
            ("Use ruff check, flake8 is gone from this project.", "ruff check ."),
        ],
    )
    assert task.feedback == "Use ruff check, flake8 is gone from this project."
    kinds = {(c.kind, c.value) for c in task.checks}
    assert ("never_ran", r"(?<![\w-])flake8(?![\w-])") in kinds
    assert ("ran", r"(?<![\w-])ruff(?![\w-])") in kinds


def test_an_edit_whose_output_is_redirected_still_names_the_file_it_edited(tmp_path):
    [task] = _session(
        tmp_path,
        [
            (
                "Fix the typo in the parser",
                "sed -i 's/recieve/receive/' vendor/p.py 2>&1 | tail -1",
            ),
            ("Don't touch vendor/, patch src/ instead", "sed -i 's/recieve/receive/' src/p.py"),
        ],
    )
    assert [(a.kind, a.path) for a in task.actions if a.kind != "command"] == [
        ("edit", "vendor/p.py")
    ]
    assert ("untouched", "vendor") in {(c.kind, c.value) for c in task.checks}


def test_most_corrections_of_sessions_kept_out_of_the_tuning_yield_a_check():
    spec = importlib.util.spec_from_file_location("corrections", BENCH.with_name("corrections.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fixtures = BENCH.parents[1] / "tests" / "fixtures" / "conversations_fresh"
    fresh = module.count("tests.harvest.fresh_conversations", "FRESH_SESSIONS", fixtures)
    assert fresh["corrections"] == 20 and fresh["became_tasks"] == 20 - fresh["attached"]
    assert fresh["attached"] >= 17 and fresh["with_check"] >= 14, fresh["missed"]
    fixtures = fixtures.with_name("conversations_unseen")
    unseen = module.count("tests.harvest.unseen_conversations", "UNSEEN_SESSIONS", fixtures)
    assert unseen["corrections"] == 12 and unseen["with_check"] >= 11, unseen["missed"]


def test_a_german_compound_names_the_directory_the_attempt_deleted():
    from skillopt_sleep.harvest.action_refs import reference
    from skillopt_sleep.models import Action

    deleted = [
        Action(kind="command", command="rm -rf tmp/ .cache/"),
        Action(kind="delete", path=".cache"),
    ]
    ref = reference("Den .cache-Ordner bitte nicht anfassen.", deleted)
    assert ref is not None and ref.named == (".cache",) and ref.contrast
    assert reference("Lösch den tmp-ordner nicht", [Action(kind="read", path="src/a.py")]) is None


def test_a_command_codex_refused_to_start_is_what_its_attempt_tried():
    from skillopt_sleep.harvest.codex import CodexParser
    from skillopt_sleep.harvest.jsonl import read_chunk

    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "conversations_fresh"
    [path] = [p for p in fixtures.rglob("rollout-*.jsonl") if "Clean up the build" in p.read_text()]
    chunk, _ = read_chunk(CodexParser(), path, 0)
    [task] = mine_chunk(chunk, FALLBACK_TIME)
    assert task.intent == "Clean up the build artefacts."
    [command] = [a for a in task.actions if a.kind == "command"]
    assert command.command == "rm -rf dist build" and command.failed
    assert task.feedback == "Leave dist alone, the release script needs it."
    assert ("untouched", "dist") in {(c.kind, c.value) for c in task.checks}
