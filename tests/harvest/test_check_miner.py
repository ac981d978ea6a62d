"""Checkable corrections become rule checks that fail on the corrected attempt and pass on the
attempt the user asked for; the rest get none (the night scores them with a rubric)."""

from __future__ import annotations

import pytest

from skillopt_sleep.checks.judge import rule_check
from skillopt_sleep.harvest.check_miner import candidate_checks
from skillopt_sleep.harvest.feedback import validated

CASES = [
    ("Max 3 bullet points, please.", "- a\n- b\n- c\n- d\n- e", "- a\n- b\n- c"),
    ("Höchstens drei Stichpunkte, bitte.", "* a\n* b\n* c\n* d", "* a\n* b"),
    ("Use a | as separator, not commas.", "web, 8080", "web | 8080"),
    ("Trenn die Spalten bitte mit Semikolon statt Komma.", "a,b,c", "a;b;c"),
    (
        "Please use the heading '## Summary' like I asked.",
        "Three parts.",
        "## Summary\nThree parts.",
    ),
    (
        "Verwende bitte künftig die Überschrift '## Zusammenfassung'.",
        "# Meeting\nx",
        "## Zusammenfassung\nx",
    ),
    ("For the last time, the title must be 'Beta App'.", "# beta-app", "# Beta App"),
    ("No, always use pytest -q", "> Bash: python3 -m unittest", "> Bash: pytest -q"),
    ("Use `uv run pytest`, not plain pytest.", "$ pytest", "$ uv run pytest"),
    (
        "Please always run ruff before you say it's done.",
        "> Bash: flake8 .",
        "> Bash: ruff check .",
    ),
    ("No em dashes please.", "fast \u2014 and safe", "fast, and safe"),
    ("No bold text in the answer, it renders badly.", "It is **important**.", "It is important."),
    ("Stop using tables, plain lists only.", "| a | b |\n|---|---|\n| 1 | 2 |", "- a: 1\n- b: 2"),
    ("Wie gesagt: keine Emojis in Commit-Nachrichten!", "Fix: cache bug 🎉", "Fix: cache bug"),
    ("Call me Sam, not 'the user'.", "Status for the user: green.", "Status for Sam: green."),
    (
        "Bitte sprich mich mit Sie an, nicht mit du.",
        "Du findest hier alles.",
        "Sie finden hier alles.",
    ),
    ("Bitte duze mich.", "Sie haben drei Tickets.", "Du hast drei Tickets."),
    ("That's too much. Two sentences max.", "One. Two. Three. Four.", "One. Two."),
    ("Keep it under 50 words.", " ".join(["word"] * 80), " ".join(["word"] * 20)),
    ("Never use print for logging.", "print('x')", "log.info('x')"),
]


@pytest.mark.parametrize(("correction", "bad", "good"), CASES, ids=[c[0][:30] for c in CASES])
def test_a_checkable_correction_yields_a_rule_that_tells_the_attempts_apart(correction, bad, good):
    checks = validated(candidate_checks(correction), bad, good)
    rules = [c for c in checks if c.kind != "rubric"]
    assert rules, f"no rule from {correction!r}: candidates {candidate_checks(correction)}"
    for check in rules:
        assert not rule_check(check, bad)[0] and rule_check(check, good)[0]


@pytest.mark.parametrize(
    "correction",
    ["Zu lang.", "You forgot the changelog entry.", "Thanks!", "That's not what I asked for."],
)
def test_a_correction_without_anything_checkable_yields_no_rule(correction):
    assert candidate_checks(correction) == []


def test_a_check_that_also_fails_on_the_accepted_retry_is_dropped():
    # the user asked for pytest -q, and praised a retry that still ran unittest: the check
    # "contains 'pytest -q'" asks for more than the user did, so it is not kept
    checks = candidate_checks("No, always use pytest -q")
    assert validated(checks, "python -m unittest", "python -m unittest -v") == []
    assert [c.value for c in validated(checks, "python -m unittest", None)] == ["pytest -q"]


def test_a_correction_no_rule_captures_is_scored_by_a_rubric_next_to_the_rules(tmp_path):
    from datetime import datetime, timezone

    from bench.worlds import synthetic as syn
    from skillopt_sleep.harvest.claude_code import ClaudeCodeParser
    from skillopt_sleep.harvest.jsonl import read_chunk
    from skillopt_sleep.harvest.mine import mine_chunk

    sid = "7f0c9e7e-1b4c-4f0e-9d65-000000000001"
    turns = [
        syn.SynthTurn("List the release steps", "- a\n- b\n- c\n- d"),
        syn.SynthTurn("Max 2 bullet points, please.", "- a\n- b"),
        syn.SynthTurn("You forgot the changelog.", "- a\n- changelog"),
    ]
    path = syn.claude_path(tmp_path, "/work/a", sid)
    syn.write(path, syn.claude_session(sid, "/work/a", turns, datetime.now(timezone.utc)))
    [task] = mine_chunk(read_chunk(ClaudeCodeParser(), path, 0)[0], datetime.now(timezone.utc))
    assert [c.kind for c in task.checks] == ["regex", "rubric"]
    assert (
        task.checks[1].value
        == "The answer respects the user's correction: You forgot the changelog."
    )


def test_a_secret_in_a_correction_is_redacted_in_its_turn_its_feedback_and_its_preference(tmp_path):
    from datetime import datetime, timezone

    from bench.worlds import synthetic as syn
    from skillopt_sleep.harvest.claude_code import ClaudeCodeParser
    from skillopt_sleep.harvest.jsonl import read_chunk
    from skillopt_sleep.harvest.mine import mine_chunk
    from skillopt_sleep.harvest.preferences import preference_sightings

    key = "sk-ant-api03-" + "Zq8wX2vB7nM4kL1pR6tY9uI3oE5aS0dF" * 2
    sid = "7f0c9e7e-1b4c-4f0e-9d65-000000000002"
    turns = [
        syn.SynthTurn("Call the API", "curl https://api.example.com"),
        syn.SynthTurn(f"No, always use `{key}` as the key", "ok"),
    ]
    path = syn.claude_path(tmp_path, "/work/a", sid)
    syn.write(path, syn.claude_session(sid, "/work/a", turns, datetime.now(timezone.utc)))
    [task] = mine_chunk(read_chunk(ClaudeCodeParser(), path, 0)[0], datetime.now(timezone.utc))
    [sighting] = preference_sightings([task])
    assert task.turns[0].kind == "correction"
    for text in (task.turns[0].text, task.feedback, sighting.statement, *sighting.checks):
        assert key not in text and "sk-ant" not in text
    assert task.checks == []  # a rule about a secret would carry its shape into prompts
