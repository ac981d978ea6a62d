"""A first night on a log of one task learns from it, whichever side of the split its id falls on:
before, a task held out (a share fixed by its id, 35% by default) left the night nothing to learn."""

from __future__ import annotations

from .one_task import log_one_corrected_request

ALL_HELD_OUT = {"SKILLOPT_SLEEP_NIGHT__HOLDOUT_FRACTION": "0.999999"}


def test_a_one_task_log_whose_task_is_held_out_still_gives_an_unconfirmed_edit(cli, project):
    log_one_corrected_request(cli, project)
    r = cli("run", "--backend", "simulated", "--json", cwd=project, env=ALL_HELD_OUT)
    assert r.code == 0, r.err
    night = r.json()
    assert "no task to learn from" not in night["reason"]
    assert (night["n_train"], night["n_holdout"]) == (1, 0)
    (edit,) = night["edits"]
    assert "logging" in edit["content"].lower()
    r = cli("review", cwd=project)
    assert "unconfirmed" in r.out
