"""No mined check contradicts the user: sessions recorded with the real claude and codex (the
sixth labelled set, tests/harvest/check_conversations_sixth.py, and the fresh set), harvested
through the CLI, each check read as ``tasks show`` words it and judged on the user's own example:
a span said against something is only ever forbidden, a command named as where files come from
is no command to run, "never delete" is not "never touch" when the user's own command rewrites
the file, a pipe's tail is part of the command the user runs, and a flag the user names is asked
for as run."""

from __future__ import annotations

from skillopt_sleep.action_models import ACTION_KINDS
from skillopt_sleep.checks.action_judge import action_check, recorded
from skillopt_sleep.checks.judge import rule_check
from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.models import Action

from .check_conversations_sixth import CHECKS_SIXTH
from .fresh_conversations import FRESH
from .recorded_harvest import harvested, mined


def _ran(*commands: str, writes: tuple[str, ...] = ()) -> list[Action]:
    return [
        *(Action(kind="command", command=c, exit_code=0) for c in commands),
        *(Action(kind="write", path=p, content="{}\n") for p in writes),
    ]


def _all_pass(task, example: list[Action]) -> None:
    for check in task.checks:
        if check.kind in ACTION_KINDS:
            assert action_check(check, recorded(example))[0] is True, plain(check)


def test_a_span_said_against_something_is_forbidden_never_asked_for(cli, sandbox_home):
    # "... and none of them starts with 'Oops'", after the agent only asked back what to write
    task = harvested(cli, sandbox_home, CHECKS_SIXTH)[
        "Write the error message for an expired download link."
    ]
    checks = mined(task)
    assert "not_contains 'Oops'" in checks
    assert not [c for c in checks if "Oops" in c and not c.startswith("not_contains")], checks
    answer = "This download link has expired. Request a new one from your account page."
    for check in task.checks:
        if check.kind != "rubric":
            assert rule_check(check, answer)[0], plain(check)
            assert not rule_check(check, "Oops! Something went wrong :(")[0], plain(check)


def test_a_command_named_as_where_files_come_from_is_not_asked_for(cli, sandbox_home):
    # "In `generated/` non si tocca niente, né a mano né con ruff: quei file escono da
    # `make codegen`. Limita il fix ad `app/`." after `ruff check --fix .`
    task = harvested(cli, sandbox_home, CHECKS_SIXTH)["Sistema gli import inutilizzati."]
    checks = mined(task)
    assert "never runs ruff check --fix ." in checks
    assert "runs make codegen" not in checks and "never runs ruff" not in checks
    _all_pass(task, _ran("ruff check --fix app/"))


def test_never_deleting_a_file_the_users_command_rewrites_is_not_leaving_it_alone(
    cli, sandbox_home
):
    # "Ne supprime jamais `package-lock.json` ; `npm install --package-lock-only` le met à jour
    # sans tout réinstaller." after `rm package-lock.json && npm install`
    task = harvested(cli, sandbox_home, CHECKS_SIXTH)["Mets à jour le lockfile."]
    checks = mined(task)
    assert "never runs rm package-lock.json" in checks
    assert "runs npm install --package-lock-only" in checks
    assert "leaves package-lock.json alone" not in checks
    _all_pass(task, _ran("npm install --package-lock-only", writes=("package-lock.json",)))


def test_the_tail_of_a_pipe_is_part_of_the_command_the_user_runs(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, CHECKS_SIXTH)
    job = tasks["Descobre porque é que o job noturno falhou."]  # after `cat ... | tail -20`
    assert "never runs tail -20" not in mined(job)
    assert "runs tail -n 100 logs/nightly.log" in mined(job)
    _all_pass(job, _ran("tail -n 100 logs/nightly.log 2>&1 | tail -20"))
    back = tasks["Roll back the last migration."]  # after `alembic downgrade base | tail -1`
    assert "never runs tail -1" not in mined(back)
    _all_pass(back, _ran("alembic downgrade -1 2>&1 | tail -1"))


def test_a_flag_the_user_names_is_asked_for_on_the_program_it_belongs_to(cli, sandbox_home):
    # "Please don't dump the whole log on me, use git log --oneline." after `git log -n 20`
    task = harvested(cli, sandbox_home, FRESH)["Show me what changed recently."]
    checks = mined(task)
    assert "runs git ... --oneline" in checks
    _all_pass(task, _ran("git log --oneline"))
    assert action_check(task.checks[0], recorded(_ran("git log -n 20")))[0] is False


def test_a_variant_of_the_attempts_command_under_a_negation_is_never_asked_for(tmp_path):
    # the shape of "no merge commits: `git pull --rebase ...`", with the negation on the command
    from .test_action_refs import _session

    [task] = _session(
        tmp_path,
        [
            ("Push my branch", "git push origin main"),
            (
                "Never `git push --force` on this repo, others build on main.",
                "git push origin main",
            ),
        ],
    )
    assert not [c for c in task.checks if c.kind == "ran" and "force" in str(c.value)]
