"""A waiting edit does not swallow a new phrasing of it on a night that cannot retest it.

Night one has one task about type hints: its rule is accepted unconfirmed and waits for an unseen
task of its kind. Night two's tasks about type hints carry another check (another kind to the
gate), so the waiting rule cannot be retested tonight, while the optimizer words it anew citing
tonight's task. The new phrasing is tested on tonight's own tasks, accepted,
and takes the waiting rule's place: the night says so in one line, nothing waits any more, and one
rule, never both, reaches the files. The optimizer's replies come from the loopback model server
(the anthropic SDK over HTTP), the rest of each night from the simulated world.
"""

from __future__ import annotations

import json
from pathlib import Path

from skillopt_sleep.backends.simulated import WORLD
from skillopt_sleep.testing import ModelServer
from skillopt_sleep.testing.night_model import role_of, simulated_night_responder
from skillopt_sleep.testing.replies import ModelCall, Reply, Text
from tests.night.test_unconfirmed import AUTO, RULE, _id
from tests.night.test_unconfirmed import log as log

from .sample_log import anthropic_at

DAY_ALONE = {"SKILLOPT_SLEEP_NIGHT__RECALL": "0"}
REWORDED = "Give each new Python function full type hints, return type included."
ARROW = [{"kind": "regex", "value": r"->\s*\w"}]  # the same preference, mined into another check
[HINTS] = [p for p in WORLD if p.key == "type-hints"]


class Rewording:
    """The simulated world's optimizer until ``reword`` is set; then a reply proposing
    :data:`REWORDED` for the cases about type hints."""

    def __init__(self) -> None:
        self.world = simulated_night_responder(count_samples=True)
        self.reword = False

    def __call__(self, call: ModelCall) -> Reply:
        if role_of(call.system) != "optimizer":
            return self.world(call)
        prompt = call.last.text if call.last is not None else ""
        if not self.reword:
            return self.world(call)
        cases = prompt.split("\n## CASES", 1)[-1].split("\n### Case ")[1:]
        cited = [int(c.split(" ", 1)[0]) for c in cases if "type hints" in c.lower()]
        edit = {"target": "memory", "content": REWORDED, "cases": cited}
        return Text(json.dumps({"edits": [edit] if cited else []}))


def _arrow_tasks(project: Path, tmp_path: Path, cli) -> None:
    """Tonight's tasks: two about type hints under another check, two summaries elsewhere."""
    tasks = [
        {
            "intent": "Write a helper that reads the cache index",
            "feedback": "Add type hints, return type included.",
            "outcome": "failure",
            "checks": ARROW,
            "tags": ["annotations"],
            "id": _id("arrow0", "train"),
        },
        {
            "intent": "Add a function that renames the exports",
            "feedback": "Type hints again, please.",
            "outcome": "failure",
            "checks": ARROW,
            "tags": ["annotations"],
            "id": _id("arrow1", "holdout"),
        },
    ]
    file = tmp_path / "tonight.json"
    file.write_text(json.dumps(tasks))
    r = cli("tasks", "add", "--project", str(project), "--file", str(file), "--json")
    assert r.code == 0, r.err


def _night(cli, project: Path, url: str) -> dict:
    r = cli(
        "run",
        "--project",
        str(project),
        *anthropic_at(url),
        "--json",
        env={**AUTO, **DAY_ALONE, "ANTHROPIC_API_KEY": "sk-ant-test"},
    )
    assert r.code == 0, r.err
    return r.json()


def test_a_new_phrasing_tonight_can_test_replaces_a_wait_tonight_cannot_end(cli, log, tmp_path):
    assert HINTS.lesson == RULE and "type hint" in REWORDED  # the simulated agent follows both
    project = log([("type-hints", 0, "train")])
    optimizer = Rewording()
    with ModelServer(responder=optimizer) as srv:
        first = _night(cli, project, srv.url)
        [waits] = first["waiting"]
        assert waits["edit"]["content"] == RULE and "unseen" in waits["missing"]

        log([("brevity", 0, "holdout"), ("brevity", 1, "holdout")])
        _arrow_tasks(project, tmp_path, cli)
        optimizer.reword = True
        second = _night(cli, project, srv.url)

    # the new phrasing was tested on tonight's tasks, never on the one the waiting rule came from
    [ev] = [e for e in second["evidence"] if e["edit"]["content"] == REWORDED]
    assert ev["verdict"] == "accepted" and ev["unconfirmed"] == []
    assert ev["unseen"] == [_id("arrow1", "holdout")]
    assert not [e for e in second["evidence"] if e["edit"]["content"] == RULE]
    line = (
        f"no longer waits, since night {first['night_id']}: {RULE!r}: proposed again as "
        f"{REWORDED!r}, tested on tonight's tasks and accepted in its place"
    )
    assert line in second["retested"]
    assert second["waiting"] == []
    live = (project / "CLAUDE.md").read_text()
    assert REWORDED in live and RULE not in live  # confirmed: auto-adopted, alone
    status = cli("status", "--project", str(project)).out
    assert "waiting for evidence" not in status
