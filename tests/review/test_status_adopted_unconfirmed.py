"""An unconfirmed rule the user adopted is live: status lists it apart from the edits that wait.

Before, status listed it under "waiting for evidence (...; a night that has it retests them
first)" after adoption, though it is in the files and no night retests a rule the files have."""

from __future__ import annotations

from tests.night.test_unconfirmed import RULE, _run
from tests.night.test_unconfirmed import log as log

WAITING = "waiting for evidence (unconfirmed edits; a night that has it retests them first):"
EARLY = (
    "adopted on your word before all checks ran (live; a night does not retest a rule the files "
    "have: `skillopt-sleep rules` shows how each does):"
)


def _under(text: str, heading: str) -> list[str]:
    """The indented lines under ``heading`` in status's output."""
    lines = text.splitlines()
    if heading not in lines:
        return []
    rest = lines[lines.index(heading) + 1 :]
    end = next((i for i, x in enumerate(rest) if not x.startswith("  ")), len(rest))
    return rest[:end]


def test_an_adopted_unconfirmed_rule_is_listed_as_live_not_as_waiting(cli, log):
    project = log([("type-hints", 0, "train")])
    _run(cli, project, "--json")
    before = cli("status", "--project", str(project)).out
    assert any(RULE in line for line in _under(before, WAITING)) and EARLY not in before

    adopted = cli("adopt", "--project", str(project))
    assert adopted.code == 0, adopted.err
    assert RULE in (project / "CLAUDE.md").read_text()
    after = cli("status", "--project", str(project))
    assert WAITING not in after.out
    [line] = _under(after.out, EARLY)
    assert line.startswith(f"  {RULE!r}: unconfirmed: checked only on the tasks it came from")
    [waits] = cli("status", "--project", str(project), "--json").json()["waiting"]
    assert waits["edit"]["content"] == RULE and waits["live"] is True
