"""The night from the command line: demo, run, dry-run, status, estimate."""

from __future__ import annotations

import json
from pathlib import Path

from skillopt_sleep.clock import SystemClock
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.store import Store

NIGHT_KEYS = {
    "night_id",
    "decision",
    "tally",
    "evidence",
    "edits",
    "rejected_edits",
    "proposal_dir",
    "calls",
    "tokens",
    "cost_usd",
}


def test_demo_json_accepts_and_stages_inside_the_demo_dir_only(cli, tmp_path, sandbox_home):
    r = cli("demo", "--dir", str(tmp_path / "d"), "--json")
    assert r.code == 0, r.err
    out = r.json()
    assert set(out) >= NIGHT_KEYS
    assert out["decision"] == "accept"
    proven = [ev for ev in out["evidence"] if ev["verdict"] == "accepted"]
    assert proven and all(
        ev["efficacy"]["after_pass"] > ev["efficacy"]["before_pass"] for ev in proven
    )
    assert out["tally"]["accepted"] == len(proven)
    assert sum(out["tally"].values()) == len(out["evidence"])
    proposal = Path(out["proposal_dir"])
    assert proposal.is_relative_to(tmp_path / "d")
    assert {p.name for p in proposal.iterdir()} >= {
        "proposal.json",
        "report.md",
        "report.html",
        "diffs",
        "candidate",
    }
    assert not (sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db").exists()
    # nothing live changed in the demo project
    assert "skillopt-sleep:begin" not in (tmp_path / "d" / "project" / "CLAUDE.md").read_text()


def test_demo_text_shows_score_decision_edits_and_diffs(cli, tmp_path):
    r = cli("demo", "--dir", str(tmp_path / "d"))
    assert r.code == 0, r.err
    assert "evidence, edit by edit" in r.out and "[accepted]" in r.out and "where it acts" in r.out
    assert "decision: ACCEPT" in r.out
    assert "--- proposed change to " in r.out
    assert "+<!-- skillopt-sleep:begin -->" in r.out


def _store_with_sample(tmp_path: Path, cli) -> Path:
    r = cli("demo", "--dir", str(tmp_path / "d"), "--json")
    demo_store = Store.open(resolve_paths(str(tmp_path / "d" / "home")).db)
    project = tmp_path / "d" / "project"
    tasks = demo_store.list_tasks(project=str(project))
    assert r.code == 0 and tasks
    import os

    mine = Store.open(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).db)
    mine.upsert_tasks(tasks, SystemClock().now())
    return project


def test_run_stages_then_status_shows_the_night_and_the_pending_proposal(cli, tmp_path):
    project = _store_with_sample(tmp_path, cli)
    r = cli("run", "--project", str(project), "--backend", "simulated", "--json")
    assert r.code == 0, r.err
    night = r.json()
    assert night["decision"] == "accept" and night["proposal_dir"]
    proposal = json.loads((Path(night["proposal_dir"]) / "proposal.json").read_text())
    changed = {f["name"] for f in proposal["files"]}
    assert changed and changed <= {"SKILL.md", "CLAUDE.md"}
    assert changed == {
        "CLAUDE.md" if e["target"] == "memory" else "SKILL.md" for e in night["edits"]
    }
    st = cli("status", "--project", str(project), "--json").json()
    assert st["pending"]["night_id"] == night["night_id"]
    assert st["nights"][0]["decision"] == "accept" and st["nights"][0]["calls"] == night["calls"]
    assert st["nights"][0]["tally"] == night["tally"] and night["tally"]["accepted"] >= 1
    text = cli("status", "--project", str(project)).out
    assert "pending proposal: night " + night["night_id"] in text
    t = night["tally"]
    tally = (
        f"edits {t['accepted']} accepted, {t['refused']} refused, {t['inconclusive']} inconclusive"
    )
    assert tally in text  # in the night's row, and in the pending proposal's line


def test_dry_run_stages_nothing_and_a_second_night_is_mostly_cached(cli, tmp_path):
    project = _store_with_sample(tmp_path, cli)
    first = cli("dry-run", "--project", str(project), "--backend", "simulated", "--json").json()
    assert first["proposal_dir"] is None and first["dry_run"] is True
    est = cli(
        "run", "--estimate", "--project", str(project), "--backend", "simulated", "--json"
    ).json()
    second = cli("dry-run", "--project", str(project), "--backend", "simulated", "--json").json()
    assert est["cached"] == first["n_train"] * 4  # the whole train replay comes from the cache
    # the estimate counts every test's fresh rollouts (how many a night draws depends on what it finds)
    assert 0.5 * second["calls"] <= est["calls"] <= 2 * second["calls"]
    assert (
        est["calls_bound"] >= second["calls"]
    )  # the most it can spend is never below what it spent


def test_run_without_tasks_says_how_to_get_some(cli, tmp_path):
    r = cli("run", "--project", str(tmp_path), "--backend", "simulated")
    assert r.code == 0
    assert "no tasks logged" in r.out and "skillopt-sleep harvest" in r.out


def test_run_without_any_usable_backend_lists_the_ways_to_configure_one(cli, tmp_path):
    project = _store_with_sample(tmp_path, cli)
    r = cli("run", "--project", str(project), env={"PATH": str(tmp_path / "empty")})
    assert r.code == 6
    assert r.err.startswith("skillopt-sleep: error: no model backend is configured or usable")
    assert "ANTHROPIC_API_KEY" in r.err and "--backend" in r.err


def test_a_second_night_while_one_runs_is_refused_with_exit_9(cli, tmp_path):
    import os

    from skillopt_sleep.lock import night_lock

    project = _store_with_sample(tmp_path, cli)
    with night_lock(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).ensure().lock_file):
        r = cli("run", "--project", str(project), "--backend", "simulated")
    assert r.code == 9
    assert "another night" in r.err.lower() or "running" in r.err.lower(), r.err


def test_auto_adopt_applies_the_accepted_night_and_leaves_a_notice(cli, tmp_path):
    project = _store_with_sample(tmp_path, cli)
    r = cli(
        "run",
        "--project",
        str(project),
        "--backend",
        "simulated",
        "--json",
        env={"SKILLOPT_SLEEP_NIGHT__AUTO_ADOPT": "true"},
    )
    assert r.code == 0, r.err
    assert r.json()["decision"] == "accept"
    from skillopt_sleep.night.demo import SKILL_PATH

    for edit in r.json()["edits"]:  # every adopted rule is in its live file
        live = project / ("CLAUDE.md" if edit["target"] == "memory" else SKILL_PATH)
        assert (
            "<!-- skillopt-sleep:begin -->" in live.read_text()
            and edit["content"] in live.read_text()
        )
    notices = cli("status", "--project", str(project), "--json").json()["notices"]
    assert any("auto-adopted" in n["message"] for n in notices)


def test_review_shows_each_edits_evidence_and_why_others_were_refused(cli, tmp_path):
    assert cli("demo", "--dir", str(tmp_path / "d")).code == 0
    r = cli(
        "review",
        "-p",
        str(tmp_path / "d" / "project"),
        env={"SKILLOPT_SLEEP_HOME": str(tmp_path / "d" / "home")},
    )
    assert r.code == 0, r.err
    assert "evidence, edit by edit" in r.out and "[accepted]" in r.out
    assert "where it acts" in r.out and "cited +" in r.out and "unseen same-kind" in r.out
    report = (tmp_path / "d" / "home").rglob("report.md")
    text = next(report).read_text()
    assert "## Evidence, edit by edit" in text and "attempts right, was" in text
