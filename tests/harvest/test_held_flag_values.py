"""A flag's value refused beside the user's own command setting it otherwise, on its own and in
wordings and languages the recorded sets do not hold: what the program or the flag alone would
forbid, the user's own command runs too, so only the value the attempt passed stays forbidden."""

from __future__ import annotations

import pytest

from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.harvest.examples import hold, user_example
from skillopt_sleep.harvest.quoted import phrase
from skillopt_sleep.models import Action, Check


def _never(*words: str) -> Check:
    return Check(kind="never_ran", value=phrase(words), case_sensitive=False)


@pytest.mark.parametrize(
    ("correction", "attempt", "own", "refused"),
    [
        (  # Korean: the negation follows what it refuses
            "`-n auto`는 쓰지 마세요. CI는 2코어라서 `pytest -n 2`까지만.",
            "pytest -n auto 2>&1 | tail -1",
            "pytest -n 2",
            "never runs -n auto",
        ),
        (  # a flag and its value in one word
            "Non `--workers=auto`: mai più di `pytest --workers=2` in CI.",
            "pytest --workers=auto",
            "pytest --workers=2",
            "never runs --workers=auto",
        ),
        (  # the value left unquoted, the user's command in a clause read as negating
            "No auto here, never more than `pytest -n 2` on these runners.",
            "pytest -n auto",
            "pytest -n 2",
            "never runs pytest ... auto",
        ),
    ],
)
def test_only_the_refused_value_stays_forbidden(correction, attempt, own, refused):
    corrected = [Action(kind="command", command=attempt, exit_code=0)]
    example = user_example(correction, corrected)
    assert example is not None and own in example.commands
    program = attempt.split()[0]
    flag = attempt.split()[1].split("=")[0]
    held = [plain(c) for c in hold([_never(program), _never(flag)], example, corrected)]
    assert refused in held
    assert f"never runs {program}" not in held and f"never runs {flag}" not in held
