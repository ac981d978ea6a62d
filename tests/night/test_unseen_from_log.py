"""An edit whose kind has no unseen task among tonight's is checked on the log's older tasks of
its kind, which no reflection tonight was shown, and is confirmed on its own night instead of
waiting for the next one that brings a task of its kind (``recall = 0``: each night works on its
own day's tasks)."""

from __future__ import annotations

from tests.night.test_unconfirmed import RULE, _id, _run
from tests.night.test_unconfirmed import log as log

DAY_ALONE = {"SKILLOPT_SLEEP_NIGHT__RECALL": "0"}


def test_an_older_task_of_its_kind_in_the_log_confirms_the_edit_on_its_own_night(cli, log):
    project = log([("type-hints", 0, "holdout"), ("brevity", 0, "train")])
    first = _run(cli, project, "--json", env=DAY_ALONE)
    assert all(e["edit"]["content"] != RULE for e in first["evidence"])  # no case of its kind

    log([("type-hints", 1, "train"), ("brevity", 1, "holdout"), ("logging", 0, "holdout")])
    second = _run(cli, project, "--json", env=DAY_ALONE)
    assert second["n_train"] + second["n_holdout"] == 3  # the first day's are not selected
    [ev] = [e for e in second["evidence"] if e["edit"]["content"] == RULE]
    assert ev["unseen"] == [_id("type-hints0", "holdout")]  # yesterday's, never shown tonight
    assert ev["verdict"] == "accepted" and ev["unconfirmed"] == [] and ev["harm_tasks"]
    assert second["waiting"] == []
    assert RULE in (project / "CLAUDE.md").read_text()  # confirmed: auto_adopt took it tonight


def test_a_log_with_no_other_task_of_its_kind_still_leaves_it_unconfirmed(cli, log):
    project = log([("brevity", 0, "holdout"), ("brevity", 1, "train")])
    _run(cli, project, "--json", env=DAY_ALONE)
    log([("type-hints", 0, "train"), ("brevity", 2, "holdout")])
    night = _run(cli, project, "--json", env=DAY_ALONE)
    [ev] = [e for e in night["evidence"] if e["edit"]["content"] == RULE]
    assert ev["unseen"] == [] and "unseen" in ev["unconfirmed"]
    assert RULE not in (project / "CLAUDE.md").read_text()
