"""A scope correction ("never search under .venv; look in app/ only") harvested through the CLI
from sessions the real claude and codex wrote: its example is the corrected command kept to the
scope, and no check mined from it fails there. A path the user keeps the work in is never a
command never to run, and a check on a tool is limited to the path the user put out of bounds."""

from __future__ import annotations

from .check_conversations_third import CHECKS_THIRD
from .recorded_harvest import harvested, mined
from .scope_shapes import SCOPE_SESSIONS, SCOPES


def test_scope_corrections_land_on_their_request(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, SCOPES)
    assert sorted(tasks) == sorted(s.steps[0].prompt for s in SCOPE_SESSIONS)


def test_a_path_the_user_keeps_the_work_in_is_no_command_never_to_run(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, SCOPES)
    key = mined(tasks["Where do we read the API key?"])
    assert "never runs app/" not in key and "never reads .venv" in key
    logs = mined(tasks["How big is each log folder?"])
    assert "never runs logs/" not in logs and "never runs archive/" in logs
    out = mined(tasks["Clear out the generated files."])
    assert "never runs out/coverage" not in out and "leaves out/docs alone" in out


def test_tasks_show_holds_a_scope_correction_against_the_command_kept_to_it(cli, sandbox_home):
    task = harvested(cli, sandbox_home, SCOPES)["How big is each log folder?"]
    out = cli("tasks", "show", task.id[:12]).out
    assert (
        "  - never runs archive/ (held against the user's example: `du -sh logs/ | tail -3`" in out
    )


def test_never_grep_inside_a_folder_limits_the_check_to_that_folder(cli, sandbox_home):
    task = harvested(cli, sandbox_home, CHECKS_THIRD)["Find where the session timeout is set."]
    checks = mined(task)
    assert "never runs grep" not in checks and "never runs src/" not in checks
    assert "never runs grep ... node_modules" in checks
    out = cli("tasks", "show", task.id[:12]).out
    assert "(held against the user's example: `grep -rn SESSION_TIMEOUT src/ | head -5`" in out


def test_a_command_quoted_back_as_it_ran_is_the_one_never_to_run(cli, sandbox_home):
    task = harvested(cli, sandbox_home, SCOPES)["Free some space on the build box."]
    assert mined(task) == ["never runs docker system prune -af"]
    out = cli("tasks", "show", task.id[:12]).out
    assert "  - never runs docker system prune -af\n" in out
