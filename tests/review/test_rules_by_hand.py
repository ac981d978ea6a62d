"""Requests added by hand count for a rule's verdict: a failure with the user's feedback is a
correction, and a rule with too little data says how many more requests of its kind it needs."""

from __future__ import annotations

from skillopt_sleep.models import Edit

RULE = "Run the test suite with `pytest -q`, never bare `pytest`."
FEEDBACK = "No: run the test suite with pytest -q, never bare pytest."


def _add(cli, project, intent: str) -> str:
    r = cli(
        "tasks",
        "add",
        "--intent",
        intent,
        "--outcome",
        "failure",
        "--feedback",
        FEEDBACK,
        "--tag",
        "tests",
        "--json",
        cwd=project,
    )
    assert r.code == 0, r.err
    return str(r.json()["ids"][0])


def test_hand_added_failures_with_feedback_are_corrections_and_no_data_says_how_many_more(
    home, project, cli
):
    (project / "CLAUDE.md").write_text("# Notes\n", encoding="utf-8")
    ids = [_add(cli, project, f"Run the tests of module {name}") for name in ("a", "b", "c")]
    home.stage(
        project,
        {
            "CLAUDE.md": f"# Notes\n\n<!-- skillopt-sleep:begin -->\n- {RULE}\n<!-- skillopt-sleep:end -->\n"
        },
        edits=[Edit(target="memory", content=RULE, status="applied", cites=ids[:1])],
    )
    assert cli("adopt", cwd=project).code == 0
    r = cli("rules", cwd=project)
    assert r.code == 0, r.err
    assert "none of the 2 other requests" not in r.out
    assert "corrected 2 of 2 requests of its kind before, 0 of 0 since" in r.out
    rule = cli("rules", "--json", cwd=project).json()["rules"][0]
    assert rule["before"] == {"requests": 2, "corrected": 2} and rule["needed"] > 1
    assert f"no data yet: {rule['needed']} more requests about tests needed;" in r.out


LOGGING_RULE = "Use the logging module for debug output, never print()."
LOGGING_CHECKS = ("--check", "not_contains=print(", "--check", "contains=logging")


def _add_logging(cli, project, intent: str, feedback: str, *checks: str) -> str:
    r = cli(
        "tasks", "add", "--intent", intent, *checks, "--feedback", feedback,
        "--outcome", "failure", "--json", cwd=project,
    )  # fmt: skip
    assert r.code == 0, r.err
    return str(r.json()["ids"][0])


def test_a_hand_added_failure_said_in_other_words_after_adoption_is_a_correction_of_the_rule(
    home, project, cli
):
    """The rule was made from requests added by hand ('use the logging module, not print'); a
    later one with the same checks and 'use logging not print' is corrected the rule's way, and a
    request of the kind corrected about something else is not."""
    (project / "CLAUDE.md").write_text("# Notes\n", encoding="utf-8")
    made = "use the logging module, not print"
    ids = [
        _add_logging(cli, project, f"Add debug output to the {x}", made, *LOGGING_CHECKS)
        for x in ("loader", "parser", "cli")
    ]
    home.stage(
        project,
        {
            "CLAUDE.md": "# Notes\n\n<!-- skillopt-sleep:begin -->\n"
            f"- {LOGGING_RULE}\n<!-- skillopt-sleep:end -->\n"
        },
        edits=[Edit(target="memory", content=LOGGING_RULE, status="applied", cites=ids[:1])],
    )
    assert cli("adopt", cwd=project).code == 0
    _add_logging(
        cli, project, "Add debug output to the exporter", "use logging not print", *LOGGING_CHECKS
    )
    _add_logging(
        cli, project, "Add debug output to the importer", "Add type hints to every function."
    )
    r = cli("rules", cwd=project)
    assert r.code == 0, r.err
    assert "corrected 2 of 2 requests of its kind before, 1 of 2 since" in r.out
    rule = cli("rules", "--json", cwd=project).json()["rules"][0]
    assert rule["after"] == {"requests": 2, "corrected": 1, "opposite": 0}
