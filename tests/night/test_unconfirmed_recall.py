"""A waiting edit is retested on the tasks it came from even when the night does not select
them (``recall = 0``: each night works on its own day's tasks)."""

from __future__ import annotations

from tests.night.test_unconfirmed import RULE, _run
from tests.night.test_unconfirmed import log as log

DAY_ALONE = {"SKILLOPT_SLEEP_NIGHT__RECALL": "0"}


def test_the_next_day_retests_it_on_the_task_it_came_from_and_confirms_it(cli, log):
    project = log([("type-hints", 0, "train")])
    first = _run(cli, project, "--json", env=DAY_ALONE)
    [ev] = [e for e in first["evidence"] if e["verdict"] == "accepted"]
    assert ev["edit"]["content"] == RULE and ev["unconfirmed"] == ["unseen", "harm"]
    cited = ev["cited"]

    log([("type-hints", 1, "train"), ("brevity", 0, "holdout")])  # the next day's tasks
    second = _run(cli, project, "--json", env=DAY_ALONE)
    assert second["n_train"] + second["n_holdout"] == 2  # the first day's task is not selected
    [ev] = [e for e in second["evidence"] if e["edit"]["content"] == RULE]
    assert ev["cited"] == cited and ev["unseen"] and ev["harm_tasks"]
    assert ev["verdict"] == "accepted" and ev["unconfirmed"] == []
    assert any(r.startswith("retested first") and "confirmed" in r for r in second["retested"])
    assert RULE in (project / "CLAUDE.md").read_text()  # confirmed: auto_adopt took it
