"""What a correction names without a rule's wording, from sessions recorded with the real claude
and codex (the sixth labelled set, tests/harvest/check_conversations_sixth.py), harvested through
the CLI: a file the attempt left unchanged that the user wants changed too, a code fence with its
language (Japanese), a host-like name to leave out; each check fails on the attempt and passes on
the user's own example."""

from __future__ import annotations

from skillopt_sleep.checks.action_judge import action_check, recorded
from skillopt_sleep.checks.judge import rule_check
from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.models import Action

from .check_conversations_sixth import _SPRINT, _SPRINT_BAD, CHECKS_SIXTH
from .recorded_harvest import harvested, mined


def test_a_file_the_user_names_beside_the_attempts_change_must_change_too(cli, sandbox_home):
    # "Our users only learn options from `docs/cli-reference.md`, so `--since` needs its entry
    # there too." after an edit of src/export.py only
    task = harvested(cli, sandbox_home, CHECKS_SIXTH)[
        "Add a `--since` option to the export command."
    ]
    assert mined(task) == ["changes docs/cli-reference.md"]
    [check] = task.checks
    edit = Action(kind="write", path="src/export.py", content="def export(since=None): ...\n")
    docs = Action(kind="write", path="docs/cli-reference.md", content="--since DATE\n")
    assert action_check(check, recorded([edit, docs]))[0] is True
    assert action_check(check, recorded([edit]))[0] is False


def test_a_code_fence_and_a_name_to_leave_out_said_without_quotes(cli, sandbox_home):
    tasks = harvested(cli, sandbox_home, CHECKS_SIXTH)
    fence = tasks["READMEにインストール手順を書いてください。"]  # "必ず ```bash のコードブロックに"
    assert [n.kind for n in fence.turns] == ["correction"]
    assert mined(fence) == ["contains '```bash'"]
    sprint = tasks["Summarise the sprint for the client."]  # "... anything about staging-db-2."
    assert "not_contains 'staging-db-2'" in mined(sprint)
    for task, answer, attempt in (
        (fence, "```bash\npip install acme-cli\n```", "pip install acme-cli を実行してください。"),
        (sprint, _SPRINT, _SPRINT_BAD),
    ):
        for check in (c for c in task.checks if c.kind != "rubric"):
            assert rule_check(check, answer)[0], plain(check)
            assert not rule_check(check, attempt)[0], plain(check)


def test_a_file_the_user_points_to_for_reading_is_never_one_to_change():
    from skillopt_sleep.harvest.examples import hold, user_example
    from skillopt_sleep.harvest.named_files import named_file_checks

    acted = [Action(kind="edit", path="src/app.py", content="x = 1\n")]
    said = "Look at `docs/style.md` for how we format these."
    assert hold(named_file_checks(said, acted), user_example(said, acted), acted) == []
