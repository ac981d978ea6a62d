"""A correction that states a rule about the answer, however it is worded, lands on the request it
corrects and becomes the check it states; a flag the user names with a value is what they want
run, never a command to forbid. Through the harvest of sessions recorded with the real claude and
codex (tests/fixtures/conversations_checks_unseen, .../conversations_unseen)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from skillopt_sleep.checks.judge import rule_check
from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.store import Store

from .check_conversations_unseen import CHECK_UNSEEN_LABELS, CHECKS_UNSEEN
from .unseen_conversations import UNSEEN

LINKS_RELATIVE = "links are relative (no http(s) link)"


def _harvest(cli, sandbox_home: Path, fixtures: Path) -> list[TaskRecord]:
    home = sandbox_home / "recorded"
    shutil.copytree(fixtures, home)
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    r = cli("harvest", "--all-projects", "--since", "2020-01-01", "--json", env=env)
    assert r.code == 0, r.err
    return Store.open(sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db").list_tasks()


def _corrected(tasks: list[TaskRecord], correction: str) -> TaskRecord:
    """The task the correction landed on; it never becomes a task of its own."""
    assert correction not in {t.intent for t in tasks}, "read as a new request"
    [task] = [t for t in tasks if any(n.text == correction for n in t.turns)]
    [note] = [n for n in task.turns if n.text == correction]
    assert note.kind == "correction" and not note.unsure, note.reason
    return task


@pytest.mark.parametrize(
    ("correction", "check"),
    [
        (
            "Put it under the `## Next release` heading; versions get assigned at tagging time.",
            "heading 'Next release'",
        ),
        (
            (
                "A setting nobody documented doesn't exist for our users: add `max_workers` to "
                "`CONFIG.md` as well."
            ),
            "changes CONFIG.md",
        ),
        (
            "Keep links inside the docs relative (`contributing.md`); absolute URLs go stale.",
            LINKS_RELATIVE,
        ),
        ("Start every summary with the date, as in `2026-11-26:`.", "starts_with '2026-11-26:'"),
    ],
)
def test_a_rule_about_the_answer_lands_on_its_request_as_its_check(
    cli, sandbox_home, correction, check
):
    task = _corrected(_harvest(cli, sandbox_home, CHECKS_UNSEEN), correction)
    assert task.outcome in ("failure", "mixed")  # "mixed": praised after the retry
    assert check in [plain(c) for c in task.checks]
    [label] = [lab for lab in CHECK_UNSEEN_LABELS if lab.correction == correction]
    if label.example is not None and label.example.answer:  # none fails on the user's example
        for mined in task.checks:
            if mined.kind not in ("rubric", "changed", "file_contains"):
                assert rule_check(mined, label.example.answer)[0], plain(mined)


def test_a_flag_named_with_its_value_is_never_forbidden(cli, sandbox_home):
    correction = "Always pass `--context staging` for this, never prod."
    task = _corrected(_harvest(cli, sandbox_home, CHECKS_UNSEEN), correction)
    checks = [plain(c) for c in task.checks]
    assert "never runs --context" not in checks
    assert "never runs --context prod" in checks


def test_a_prefix_said_of_every_answer_of_its_kind_corrects_the_last_one(cli, sandbox_home):
    tasks = _harvest(cli, sandbox_home, UNSEEN)
    task = _corrected(tasks, "Start it with 'fix:' like every commit here.")
    assert "starts_with 'fix:'" in [plain(c) for c in task.checks]


@pytest.mark.parametrize(
    ("request_", "then"),
    [
        ("Write the changelog line for --json.", "Write a README section `## Usage` for the CLI."),
        ("Summarise today's commits.", "Draft a commit message starting with `feat:` for this."),
        ("Add the retries option.", "Document the cache in `docs/cache.md`."),
    ],
)
def test_a_new_request_that_names_a_heading_or_a_file_stays_a_request(
    cli, sandbox_home, request_, then
):
    from .test_text_rules import _harvest as _synthetic

    tasks = _synthetic(cli, sandbox_home, request_, "Done.", then)
    assert sorted(t.intent for t in tasks) == sorted([request_, then])


def test_an_unquoted_flag_with_its_value_is_never_forbidden(tmp_path):
    from .test_user_example import _checks as _action_checks

    checks = _action_checks(
        tmp_path,
        "Deploy the chart.",
        "kubectl apply -f k8s/ --context prod",
        "Always pass --context staging, never prod.",
        "kubectl apply -f k8s/ --context staging",
    )
    assert "never runs --context" not in checks
