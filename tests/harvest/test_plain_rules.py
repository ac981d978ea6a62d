"""Rules said of the answer in plain words become checks that fail on the corrected answer and
pass on the answer the user wanted (shapes, not sentences: each is worded several ways)."""

from __future__ import annotations

import pytest

from skillopt_sleep.harvest.check_miner import candidate_checks
from skillopt_sleep.harvest.feedback import validated
from skillopt_sleep.harvest.plain_rules import plain_rules

LONG = "word " * 120
CASES = [
    # a length to fit in, in characters, words or lines, in four languages
    ("The changelog line must fit in 120 characters.", LONG, "Fixed the login bug."),
    ("Keep it within 20 words please.", LONG, "Short and sweet answer."),
    ("Das muss in höchstens 100 Zeichen passen.", LONG, "Kurz."),
    ("Il faut moins de 100 caractères.", LONG, "Court."),
    ("Tiene que tener 80 caracteres o menos.", LONG, "Corto."),
    ("Two lines max, it goes in a commit subject: 2 lines or fewer.", "a\nb\nc\nd", "a\nb"),
    ("No longer than 60 characters, it is a tab title.", LONG, "Settings"),
    # a reference format: the form to use, and the form it replaces
    ("Cite issues as `GH-12`, not as issue 12.", "Fixes issue 12.", "Fixes GH-12."),
    ("Schreib Tickets als `JIRA-7`, nicht als Ticket 7.", "Siehe Ticket 7.", "Siehe JIRA-7."),
    # words to leave out, and words to carry
    ("Nothing about `staging-db` in the public notes.", "Moved staging-db.", "Moved the db."),
    ("Rien de `localhost` dans la doc publique.", "Open localhost:8000", "Open the app"),
    ("Don't say `simply` in user docs.", "You simply run it.", "You run it."),
    (
        "Always mention `BREAKING` in the summary of this kind.",
        "Renamed the flag.",
        "BREAKING: renamed",
    ),
    # a closing line, a fixed spelling
    ("The last line should be `-- the docs team`.", "Thanks!", "Thanks!\n-- the docs team"),
    ("It's spelled `PostgreSQL`, not Postgres.", "Uses Postgres.", "Uses PostgreSQL."),
]


@pytest.mark.parametrize(("said", "corrected", "wanted"), CASES)
def test_a_plain_word_rule_becomes_a_check_the_user_would_sign(
    said: str, corrected: str, wanted: str
) -> None:
    kept = validated(candidate_checks(said), corrected, wanted)
    assert kept, f"no check from {said!r}"


def test_a_length_to_fit_in_is_the_cap_said() -> None:
    assert ("max_chars", 280) in plain_rules("It has to fit in 280 characters.")
    assert ("max_chars", 99) in plain_rules("moins de 100 caractères")


def test_a_quoted_path_left_out_is_not_read_as_words_to_leave_out() -> None:
    assert plain_rules("Nothing from `docs/internal/` in the release.") == []
