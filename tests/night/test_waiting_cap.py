"""A wait has an end: an edit that waits for evidence no night brings stops waiting after
``MAX_NIGHTS`` nights (or ``MAX_TRIES`` retests that did not confirm it), and the run, its
``--json`` and the night's report say why in one line."""

from __future__ import annotations

from skillopt_sleep.optimize.waiting import MAX_NIGHTS
from tests.night.test_unconfirmed import RULE, _run
from tests.night.test_unconfirmed import log as log


def test_an_edit_no_night_can_confirm_stops_waiting_after_its_nights(cli, log):
    project = log([("type-hints", 0, "train")])
    first = _run(cli, project, "--json")
    [waits] = first["waiting"]
    assert waits["edit"]["content"] == RULE
    for n in range(1, MAX_NIGHTS):  # nights with nothing new: nothing to confirm it on
        night = _run(cli, project, "--json")
        [waits] = [w for w in night["waiting"] if w["since"] == first["night_id"]]
        assert waits["nights"] == n
    last = _run(cli, project)["text"]
    line = (
        f"no longer waits, since night {first['night_id']}: {RULE!r}: waited {MAX_NIGHTS} "
        "nights without the evidence to confirm it; proposed again, it starts afresh"
    )
    assert line in last
    after = _run(cli, project, "--json")
    assert all(w["since"] != first["night_id"] for w in after["waiting"])
