"""`status` lists an unconfirmed edit as waiting for evidence only while it may still be retested:
one the user rejected is not (the next night leaves it out too)."""

from __future__ import annotations

from .one_task import log_one_corrected_request


def test_a_rejected_edit_is_not_listed_as_waiting_for_evidence(cli, project):
    log_one_corrected_request(cli, project)
    r = cli("run", "--backend", "simulated", "--json", cwd=project)
    assert r.code == 0, r.err
    (edit,) = [e["content"] for e in r.json()["edits"]]
    r = cli("status", cwd=project)
    assert "waiting for evidence" in r.out and edit[:40] in r.out
    assert cli("reject", "1", cwd=project).code == 0
    r = cli("status", cwd=project)
    assert r.code == 0, r.err
    assert "waiting for evidence" not in r.out and edit[:40] not in r.out
    assert cli("status", "--json", cwd=project).json()["waiting"] == []
