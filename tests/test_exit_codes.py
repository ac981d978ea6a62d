"""Exit codes: the README's table is the error tree's, and each outcome exits with its row."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from skillopt_sleep.errors import SleepError, exit_code_table, exit_codes
from skillopt_sleep.testing import ModelServer

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
TABLE = re.compile(r"(## Exit codes\n\n)(\|.*?\n)(?=\n|\Z)", re.DOTALL)


def _every_error_class(cls: type[SleepError] = SleepError) -> list[type[SleepError]]:
    return [cls, *[c for sub in cls.__subclasses__() for c in _every_error_class(sub)]]


def test_the_readme_table_is_the_one_the_error_tree_makes(request):
    text = README.read_text(encoding="utf-8")
    found = TABLE.search(text)
    assert found, "README.md has no '## Exit codes' table"
    if request.config.getoption("--update-golden"):
        README.write_text(
            text[: found.start(2)] + exit_code_table() + text[found.end(2) :], encoding="utf-8"
        )
        return
    assert found.group(2) == exit_code_table(), (
        "README.md's exit codes differ from skillopt_sleep/errors.py: "
        "run `pytest tests/test_exit_codes.py --update-golden` and review the diff"
    )


def test_every_error_class_exits_with_a_code_the_table_explains():
    documented = exit_codes()
    for cls in _every_error_class():
        assert cls.exit_code in documented, cls.__name__


@pytest.fixture
def demo(cli, tmp_path) -> tuple[Path, dict[str, str]]:
    """A demo project with its tasks logged, and the environment that points at its home."""
    r = cli("demo", "--dir", str(tmp_path / "demo"), "--quiet")
    assert r.code == 0, r.err
    return tmp_path / "demo" / "project", {"SKILLOPT_SLEEP_HOME": str(tmp_path / "demo" / "home")}


def test_a_night_that_runs_out_of_budget_exits_7_and_says_so(cli, demo):
    project, env = demo
    r = cli(
        "run",
        "--project",
        str(project),
        "--backend",
        "simulated",
        "--quiet",
        env={**env, "SKILLOPT_SLEEP_BUDGET__MAX_CALLS": "30"},
    )
    assert r.code == 7, r.err
    assert "BUDGET_EXHAUSTED" in r.out
    assert r.err == (
        "skillopt-sleep: error: call budget reached (30/30 calls) (raise budget.max_calls); "
        "the rest of the night was skipped\n"
    )


def test_a_demo_that_runs_out_of_budget_exits_7(cli, tmp_path):
    r = cli(
        "demo",
        "--dir",
        str(tmp_path / "d"),
        "--quiet",
        env={"SKILLOPT_SLEEP_BUDGET__MAX_CALLS": "30"},
    )
    assert r.code == 7 and "call budget reached" in r.err


def test_a_demo_against_a_dead_server_exits_6_like_run(cli, tmp_path):
    with ModelServer() as server:
        url = server.url
    r = cli(
        "demo",
        "--dir",
        str(tmp_path / "d"),
        "--quiet",
        "--backend",
        "openai",
        "--base-url",
        url,
        "--model",
        "gpt-5-mini",
        env={
            "OPENAI_API_KEY": "sk-test",
            "SKILLOPT_SLEEP_ROLES__TARGET__MAX_RETRIES": "0",
            "SKILLOPT_SLEEP_ROLES__OPTIMIZER__MAX_RETRIES": "0",
            "SKILLOPT_SLEEP_ROLES__JUDGE__MAX_RETRIES": "0",
        },
    )
    assert r.code == 6, (r.code, r.err)
    assert r.err.startswith("skillopt-sleep: error: ") and r.err.count("\n") == 1


def test_doctor_that_finds_a_problem_exits_1_which_the_table_explains(cli):
    r = cli("doctor")
    assert r.code == 1 and r.out.rstrip().endswith("problem(s) to fix")
    assert "doctor" in exit_codes()[1]


@pytest.mark.parametrize(
    "argv", [["run", "--k", "0"], ["demo", "--concurrency", "0"], ["dry-run", "--k", "-3"]]
)
def test_a_bad_flag_value_is_a_usage_error_naming_the_flag(cli, argv):
    r = cli(*argv)
    assert r.code == 2, r.err
    assert (
        r.err.startswith(f"skillopt-sleep: error: argument {argv[1]}: ") and r.err.count("\n") == 1
    )


def test_a_flag_value_the_settings_refuse_is_a_usage_error(cli):
    r = cli("run", "--k", "1000")
    assert r.code == 2, r.err
    assert "night.k = 1000 from the command line" in r.err


def test_run_for_a_project_that_does_not_exist_names_the_path(cli, tmp_path):
    missing = tmp_path / "does" / "not" / "exist"
    r = cli("run", "--project", str(missing), "--backend", "simulated")
    assert r.code == 2
    assert (
        r.err
        == f"skillopt-sleep: error: no project directory {missing} (check the --project path)\n"
    )
    assert not missing.exists()


@pytest.mark.parametrize("argv", [["status", "--bogus"], ["tasks", "list", "--bogus"], ["--bogus"]])
def test_an_unrecognized_argument_has_one_prefix_and_names_the_command(cli, argv):
    r = cli(*argv)
    assert r.code == 2
    assert r.err.count("skillopt-sleep") == 2, r.err  # the prefix, and the help command
    command = " ".join(a for a in argv if not a.startswith("-"))
    assert r.err == (
        f"skillopt-sleep: error: unrecognized arguments: --bogus "
        f"(see `skillopt-sleep {command + ' ' if command else ''}--help`)\n"
    )
