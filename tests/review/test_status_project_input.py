"""`status` and `tasks add` refuse a project directory that does not exist, storing nothing, and
`status` says in one line what is wrong with a broken project config instead of keeping quiet."""

from __future__ import annotations

import pytest

from skillopt_sleep.errors import UsageError


def _no_tasks_anywhere(cli) -> bool:
    r = cli("tasks", "list", "--all-projects", "--json")
    return r.code == 0 and r.json() == []


@pytest.mark.parametrize(
    "argv",
    [
        ("status",),
        ("status", "--json"),
        ("tasks", "add", "--intent", "Write the README"),
        ("tasks", "add", "--intent", "Write the README", "--json"),
    ],
)
def test_a_project_that_does_not_exist_is_refused_and_nothing_is_stored(cli, tmp_path, argv):
    missing = tmp_path / "no-such-project"
    r = cli(*argv, "--project", str(missing))
    assert r.code == UsageError.exit_code
    assert r.out == ""
    assert r.err == (
        f"skillopt-sleep: error: no project directory {missing} "
        "(check the --project path, or run from inside the project)\n"
    )
    assert not missing.exists()
    assert _no_tasks_anywhere(cli)


def test_tasks_import_into_a_project_that_does_not_exist_is_refused(cli, tmp_path):
    tasks = tmp_path / "tasks.json"
    tasks.write_text('[{"intent": "Write the README"}]', encoding="utf-8")
    missing = tmp_path / "typo"
    r = cli("tasks", "import", str(tasks), "--project", str(missing))
    assert r.code == UsageError.exit_code and f"no project directory {missing}" in r.err
    assert _no_tasks_anywhere(cli)


def test_a_file_given_as_the_project_is_refused(cli, tmp_path):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x", encoding="utf-8")
    r = cli("tasks", "add", "--intent", "x", "--project", str(a_file))
    assert r.code == UsageError.exit_code and f"no project directory {a_file}" in r.err
    assert _no_tasks_anywhere(cli)


def test_an_existing_project_still_takes_tasks_and_shows_status(cli, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    assert cli("tasks", "add", "--intent", "Write the README", "--project", str(project)).code == 0
    r = cli("status", "--project", str(project), "--json")
    assert r.code == 0 and r.json()["tasks"] == 1 and r.json()["config_error"] is None


@pytest.mark.parametrize(
    ("config", "error"),
    [
        ("[night\nk = 2\n", "is not valid TOML: "),
        ('[night]\nk = "many"\n', "invalid setting night.k = 'many' from "),
        ("[nigth]\nk = 2\n", "unknown section [nigth] in "),
    ],
)
def test_status_says_what_is_wrong_with_a_broken_project_config(cli, tmp_path, config, error):
    project = tmp_path / "project"
    project.mkdir()
    toml = project / ".skillopt-sleep.toml"
    toml.write_text(config, encoding="utf-8")
    r = cli("status", "--project", str(project))
    assert r.code == 0, r.err
    [line] = [ln for ln in r.out.splitlines() if ln.startswith("! config: ")]
    assert error in line and str(toml) in line
    assert f"fix it in {toml})" in line or f"fix or remove {toml})" in line  # the fix
    assert r.out.splitlines()[0] == f"project: {project}  (0 tasks logged)"

    status = cli("status", "--project", str(project), "--json")
    assert status.code == 0 and status.json()["config_error"] == line.removeprefix("! config: ")
