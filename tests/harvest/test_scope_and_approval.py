"""A bare folder name the corrected command worked on is a scope, "nothing in X" puts X out of
bounds, and a command the correction quotes back approvingly is never forbidden."""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.checks.action_judge import action_check, recorded
from skillopt_sleep.harvest.examples import user_example
from skillopt_sleep.harvest.scope import confine, scope
from skillopt_sleep.models import Action

from .test_action_refs import _session


def _ran(command: str) -> list[Action]:
    return [Action(kind="command", command=command)]


def test_a_bare_folder_of_the_corrected_command_is_read_as_a_scope() -> None:
    where = scope([("not in node_modules", True)], _ran("grep -rn TODO node_modules src"))
    assert where.outside == ("node_modules",)
    assert confine("grep -rn TODO node_modules src", where) == "grep -rn TODO src"
    assert (
        confine(
            "find node_modules src -name x",
            scope([("skip node_modules", True)], _ran("find node_modules src -name x")),
        )
        == "find src -name x"
    )


def test_a_search_pattern_is_not_a_folder() -> None:
    where = scope([("not TODO", True)], _ran("grep -rn TODO lib"))
    assert "TODO" not in where.outside


def test_nothing_in_a_folder_is_a_scope_and_the_example_keeps_the_rest() -> None:
    example = user_example(
        "Touch nothing in vendor, it is upstream code.", _ran("black vendor app")
    )
    assert example is not None and example.commands == ("black app",)


def test_a_scope_correction_on_a_bare_folder_is_held_against_the_confined_command(
    tmp_path: Path,
) -> None:
    [task] = _session(
        tmp_path,
        [
            ("Find the TODOs", "grep -rn TODO node_modules src"),
            ("Not in node_modules, that's third-party code.", "grep -rn TODO src"),
        ],
    )
    held = [c for c in task.checks if c.kind != "rubric"]
    assert held and all(c.held_against == "`grep -rn TODO src`" for c in held)
    for check in held:
        assert action_check(check, recorded(_ran("grep -rn TODO src")))[0] is True


def test_a_command_quoted_back_approvingly_is_never_forbidden(tmp_path: Path) -> None:
    [task] = _session(
        tmp_path,
        [
            ("Run the tests", "make test 2>&1 | tail -5"),
            ("Yes, `make test` is right, but never pipe it into tail.", "make test"),
        ],
    )
    for check in task.checks:
        if check.kind == "never_ran":
            assert action_check(check, recorded(_ran("make test")))[0] is True, check
    assert any(c.kind == "never_ran" for c in task.checks)


def test_a_scope_said_with_only_asks_for_the_command_kept_to_it(tmp_path: Path) -> None:
    [task] = _session(
        tmp_path,
        [
            ("Type-check the code", "mypy ."),
            ("Never type-check the generated `stubs/` folder. Check `pkg/` only.", "mypy pkg/"),
        ],
    )
    ran = [c for c in task.checks if c.kind == "ran"]
    assert ran, task.checks
    for check in ran:
        assert action_check(check, recorded(_ran("mypy pkg")))[0] is True
        assert action_check(check, recorded(_ran("mypy .")))[0] is False
