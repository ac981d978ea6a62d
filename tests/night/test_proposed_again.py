"""A night whose optimizer proposes again only the edits already waiting for evidence says so.

Night one on a log of one task stages its rule unconfirmed: it waits for an unseen task of its kind
and a task of another kind. The nights after have neither, and the simulated optimizer proposes
the same rule again each time: merged into its wait, it is not tested again. Before, such a night
said "no candidate tonight: the optimizer proposed no edit" while its reflection held the edit, and
after three of them status said the nights "learned nothing: log more tasks".
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.night.test_unconfirmed import RULE, _run
from tests.night.test_unconfirmed import log as log

NEEDS = "1 more task about type-hints and 1 more task of another kind"


def test_a_night_that_proposes_the_waiting_edit_again_says_so_and_what_it_waits_for(cli, log):
    project = log([("type-hints", 0, "train")])
    first = _run(cli, project, "--json")
    [waits] = first["waiting"]
    assert waits["edit"]["content"] == RULE

    second = _run(cli, project, "--json")
    assert second["decision"] == "no_evidence" and second["evidence"] == []
    artifacts = Path(os.environ["SKILLOPT_SLEEP_HOME"], "data", "nights", second["night_id"])
    reflected = json.loads((artifacts / "artifacts" / "reflection.json").read_text())
    assert [e["content"] for e in reflected["edits"]] == [RULE]  # the optimizer did propose it
    assert second["reason"] == (
        "no candidate tonight: the optimizer proposed again the edit already waiting for "
        f"evidence; it waits for {NEEDS}; the next night that has it retests it first"
    )
    assert "proposed no edit" not in _run(cli, project)["text"]


def test_nights_whose_edit_waits_are_not_told_to_have_learned_nothing(cli, log):
    project = log([("type-hints", 0, "train")])
    for _ in range(4):  # one that stages the rule, three that propose it again
        _run(cli, project, "--json")
    status = cli("status", "--project", str(project))
    assert status.code == 0, status.err
    assert "learned nothing" not in status.out
    assert (
        f"! the last 3 nights staged nothing new: 1 edit waits for evidence ({NEEDS}); the next "
        "night that has it retests them first (`skillopt-sleep status` lists them)"
    ) in status.out
