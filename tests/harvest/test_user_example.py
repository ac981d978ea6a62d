"""A check mined from a correction must pass on the user's own example of what to do instead."""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.harvest.examples import consistent, hold, user_example
from skillopt_sleep.harvest.shell_effects import shell_effects
from skillopt_sleep.models import Action, Check

from .conftest import FALLBACK_TIME
from .test_action_refs import _session


def _acts(*commands: str) -> list[Action]:
    out: list[Action] = []
    for command in commands:
        out.append(Action(kind="command", command=command))
        out += [Action(kind=k, path=p) for k, p in shell_effects(command)]
    return out


def _checks(tmp_path: Path, request: str, bad: str, correction: str, good: str) -> list[str]:
    [task] = _session(tmp_path, [(request, bad), (correction, good)])
    assert task.feedback == correction
    return [plain(c) for c in task.checks if c.kind != "rubric"]


def test_the_command_the_user_asks_for_is_narrowed_out_of_a_never_ran(tmp_path):
    checks = _checks(
        tmp_path,
        "Run the tests",
        "python3 -m unittest discover tests 2>&1 | tail -3",
        "Use `python3 -m pytest -x`, not unittest",
        "python3 -m pytest -x",
    )
    assert "never runs python3" not in checks
    assert "never runs python3 -m unittest" in checks
    assert "never runs unittest" in checks


def test_a_folder_the_user_says_to_clear_is_not_left_alone(tmp_path):
    checks = _checks(
        tmp_path,
        "Free some disk space",
        "rm -rf .cache dist",
        "Only ever clear cache folders like `.cache/`; never delete `dist/`",
        "rm -rf .cache",
    )
    assert "leaves dist alone" in checks
    assert "leaves .cache alone" not in checks


def test_a_file_the_user_says_to_search_is_not_never_read():
    corrected = _acts("cat app.log")
    example = user_example("Don't print the whole log; grep it for ERROR first", corrected)
    assert example is not None and example.commands == ("grep -e ERROR app.log",)
    never_read = Check(kind="never_read", value="app.log")
    never_cat = Check(kind="never_ran", value=r"(?<![\w-])cat(?![\w-])")
    held = hold([never_read, never_cat], example, corrected)
    assert [plain(c) for c in held] == ["never runs cat"]
    assert held[0].held_against == "`grep -e ERROR app.log`"


def test_tasks_show_names_the_example_each_check_was_held_against(tmp_path, cli, sandbox_home):
    from skillopt_sleep.store import Store

    [task] = _session(
        tmp_path,
        [
            ("Run the tests", "python3 -m unittest"),
            ("Use `python3 -m pytest -x`, not unittest", "x"),
        ],
    )
    cli("tasks", "list", "--all-projects")
    store = Store.open(sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db")
    store.upsert_tasks([task], FALLBACK_TIME)
    out = cli("tasks", "show", task.id[:10]).out
    assert (
        "  - never runs python3 -m unittest (held against the user's example: "
        "`python3 -m pytest -x`)\n" in out
    )


def test_checks_that_ask_for_and_against_the_same_thing_are_both_dropped():
    ran = Check(kind="ran", value="pytest")
    never = Check(kind="never_ran", value="pytest")
    other = Check(kind="untouched", value="dist")
    assert consistent([ran, never, other]) == [other]


def test_a_correction_without_an_example_keeps_its_checks_unmarked():
    check = Check(kind="untouched", value="dist")
    assert user_example("Leave dist alone.", _acts("rm -rf dist")) is None
    assert hold([check], None, []) == [check]
