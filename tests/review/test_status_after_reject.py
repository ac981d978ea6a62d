"""`status` lists an unconfirmed edit as waiting for evidence only while it may still be retested:
one the user rejected is not (the next night leaves it out too)."""

from __future__ import annotations

import subprocess


def test_a_rejected_edit_is_not_listed_as_waiting_for_evidence(cli, project):
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    r = cli(
        "tasks", "add", "--intent", "Add debug output to module 1",
        "--check", "not_contains=print(", "--check", "contains=logging",
        "--feedback", "use the logging module, not print", "--outcome", "failure",
        cwd=project,
    )  # fmt: skip
    assert r.code == 0, r.err
    # the one task is learnt from, never held out (a task's share is fixed by its id)
    held_out = {"SKILLOPT_SLEEP_NIGHT__HOLDOUT_FRACTION": "0.000001"}
    r = cli("run", "--backend", "simulated", "--json", cwd=project, env=held_out)
    assert r.code == 0, r.err
    (edit,) = [e["content"] for e in r.json()["edits"]]
    r = cli("status", cwd=project)
    assert "waiting for evidence" in r.out and edit[:40] in r.out
    assert cli("reject", "1", cwd=project).code == 0
    r = cli("status", cwd=project)
    assert r.code == 0, r.err
    assert "waiting for evidence" not in r.out and edit[:40] not in r.out
    assert cli("status", "--json", cwd=project).json()["waiting"] == []
