"""Nights and proposals stored by a version that still had the whole-holdout gate load as they are:
its fields are read and dropped, the tally is counted from the evidence."""

from __future__ import annotations

import json
import sqlite3

from skillopt_sleep.models import NightSummary, Proposal
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.store import Store

OLD_NIGHT = {
    "night_id": "20260301-031700-ab12cd",
    "project": "/home/dev/beta-app",
    "started_at": "2026-03-01T03:17:00+00:00",
    "finished_at": "2026-03-01T03:24:00+00:00",
    "decision": "accept",
    "reason": "gain +0.229 (95% CI +0.125 to +0.333), p = 0.000488 on 8 holdout tasks",
    "dry_run": False,
    "holdout_before": 0.531,
    "holdout_after": 0.76,
    "gain": 0.229,
    "ci_low": 0.125,
    "ci_high": 0.333,
    "p_value": 0.000488,
    "n_train": 14,
    "n_holdout": 8,
    "errored_rollouts": 2,
    "edits": [{"target": "memory", "op": "add", "content": "Use uv.", "status": "applied"}],
    "rejected_edits": [],
    "skipped": [],
    "proposal_dir": None,
    "calls": 171,
    "tokens": 40399,
    "cost_usd": 0.0123,
}


def test_an_older_night_summary_and_proposal_load_without_the_holdout_fields():
    s = NightSummary.model_validate_json(json.dumps(OLD_NIGHT))
    assert (s.decision, s.calls, s.edits[0].content) == ("accept", 171, "Use uv.")
    dumped = s.model_dump(mode="json")
    assert "gain" not in dumped and "holdout_before" not in dumped
    assert dumped["tally"] == {
        "accepted": 0,
        "refused": 0,
        "inconclusive": 0,
        "over_budget": 0,
        "unconfirmed": 0,
    }
    assert (
        NightSummary.model_validate_json(s.model_dump_json()) == s
    )  # its own dump, tally included, loads
    proposal = Proposal.model_validate(
        {
            "night_id": OLD_NIGHT["night_id"],
            "project": OLD_NIGHT["project"],
            "created_at": OLD_NIGHT["started_at"],
            "files": [],
            "summary": OLD_NIGHT,
        }
    )
    assert proposal.summary.reason.startswith("gain +0.229")


def test_status_shows_an_older_night_from_the_store(cli, sandbox_home, tmp_path):
    project = tmp_path / "beta-app"
    project.mkdir()
    paths = resolve_paths(str(sandbox_home / "sleep-home")).ensure()
    Store.open(paths.db).close()
    old = dict(OLD_NIGHT, project=str(project))
    with sqlite3.connect(paths.db) as conn:  # written as the older version wrote it
        conn.execute(
            "INSERT INTO nights(id, project, started_at, decision, state, proposal_dir, summary)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                old["night_id"],
                old["project"],
                old["started_at"],
                "accept",
                "none",
                None,
                json.dumps(old),
            ),
        )
    conn.close()
    r = cli("status", "--project", str(project))
    assert r.code == 0, r.err
    assert "accept" in r.out and "171 calls" in r.out
    [night] = cli("status", "--project", str(project), "--json").json()["nights"]
    assert (
        night["night_id"] == OLD_NIGHT["night_id"]
        and "gain" not in night
        and "p_value" not in night
    )


def test_a_config_that_still_sets_the_holdout_gate_gets_one_line_naming_the_fix(
    cli, sandbox_home, tmp_path
):
    config = sandbox_home / "sleep-home" / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[night]\nk = 2\ngate = "holdout"\n')
    r = cli("config", "show", cwd=tmp_path)
    assert (
        r.code != 0 and "night.gate" not in r.out
    )  # what loads is shown, without the retired setting
    assert r.err.splitlines()[-1] == (
        f"skillopt-sleep: error: setting night.gate from {config} is retired: every edit is "
        f"judged alone, where it acts: the edit-by-edit gate is the only gate (remove it from "
        f"{config})"
    )


def test_a_config_that_still_sets_the_allocation_is_refused_in_one_line_naming_the_fix(
    cli, sandbox_home, tmp_path
):
    config = sandbox_home / "sleep-home" / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[night]\nk = 2\nallocation = "classic"\n')
    r = cli("run", "--project", str(tmp_path), cwd=tmp_path)
    assert r.code == 3, r.err
    assert r.err == (
        f"skillopt-sleep: error: setting night.allocation from {config} is retired: the gate "
        "spends its rollouts one way, lean; the classic allocation is kept in bench/ as a "
        f"baseline (remove it from {config})\n"
    )


def test_a_retired_setting_from_the_environment_is_refused_naming_the_variable_to_unset(cli):
    r = cli("config", "show", env={"SKILLOPT_SLEEP_NIGHT__ALLOCATION": "lean"})
    assert r.code == 3, r.err
    assert r.err.splitlines()[-1] == (
        "skillopt-sleep: error: setting night.allocation from the environment is retired: the "
        "gate spends its rollouts one way, lean; the classic allocation is kept in bench/ as a "
        "baseline (unset SKILLOPT_SLEEP_NIGHT__ALLOCATION)"
    )
