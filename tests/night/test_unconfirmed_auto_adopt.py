"""``auto_adopt`` on a night with an unconfirmed edit adopts its confirmed edits alone."""

from __future__ import annotations

from tests.night.test_unconfirmed import RULE, _run
from tests.night.test_unconfirmed import log as log

BREVITY = "Keep summaries under 300 characters."


def test_auto_adopt_takes_the_confirmed_edits_and_leaves_the_unconfirmed_one_waiting(cli, log):
    # type hints: a task it comes from and an unseen one; brevity: one task; logging: the others
    project = log(
        [
            ("type-hints", 0, "train"),
            ("type-hints", 2, "holdout"),
            ("brevity", 0, "train"),
            ("logging", 0, "holdout"),
            ("logging", 1, "holdout"),
        ]
    )
    night = _run(cli, project, "--json")
    verdicts = {e["edit"]["content"]: e for e in night["evidence"] if e["verdict"] == "accepted"}
    assert verdicts[RULE]["unconfirmed"] == []
    assert verdicts[BREVITY]["unconfirmed"] == ["unseen"]
    live = (project / "CLAUDE.md").read_text()
    assert RULE in live and BREVITY not in live
    numbers = {e["content"]: n for n, e in enumerate(night["edits"], start=1)}
    status = cli("status", "--project", str(project)).out
    assert (
        f"night {night['night_id']}: edit {numbers[RULE]} auto-adopted; not edit "
        f"{numbers[BREVITY]} (unconfirmed: checked only on the tasks it came from)"
    ) in status
    assert f"{BREVITY!r}: unconfirmed: checked only on the tasks it came from" in status
