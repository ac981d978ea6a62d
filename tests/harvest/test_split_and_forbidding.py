"""A correction that opens by forbidding what the attempt did, and one split over two messages,
land on the request they correct, never as tasks of their own."""

from __future__ import annotations

from pathlib import Path

from .test_action_refs import _session


def test_a_turn_forbidding_the_kind_of_action_just_done_corrects_it(tmp_path: Path) -> None:
    [task] = _session(
        tmp_path,
        [
            ("Lint the project", "ruff check ."),
            (
                "Don't run the linter over the generated `db/` folder. Lint `pkg/` only.",
                "ruff check pkg/",
            ),
        ],
    )
    assert task.intent == "Lint the project"
    assert task.outcome == "failure"


def test_forbidding_another_kind_of_action_is_left_as_the_rules_read_it(tmp_path: Path) -> None:
    tasks = _session(
        tmp_path,
        [
            ("Show me the layout", "ls"),
            ("Don't edit anything yet; write a plan for the cache layer first", "cat plan.md"),
        ],
    )
    assert len(tasks) == 2


def test_the_second_half_of_a_split_correction_attaches(tmp_path: Path) -> None:
    [task] = _session(
        tmp_path,
        [
            ("Restart the web service", "systemctl restart web"),
            ("No, not like that.", "systemctl status web"),
            (
                "Here we restart through compose: `docker compose restart web`.",
                "docker compose restart web",
            ),
        ],
    )
    assert task.intent == "Restart the web service"
    assert len(task.turns) == 2
    assert "docker compose restart web" in task.feedback


def test_a_new_request_after_a_correction_is_still_a_task(tmp_path: Path) -> None:
    tasks = _session(
        tmp_path,
        [
            ("Restart the web service", "systemctl restart web"),
            ("No, not like that.", "docker compose restart web"),
            ("Add a health check endpoint to the API.", "touch api/health.py"),
        ],
    )
    assert [t.intent for t in tasks][-1] == "Add a health check endpoint to the API."
