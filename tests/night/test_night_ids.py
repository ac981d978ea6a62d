"""Nights started in the same second keep their own ids, records and proposals."""

from __future__ import annotations

import io
import json
import os
from datetime import datetime, timezone
from pathlib import Path

from skillopt_sleep.cli import main
from skillopt_sleep.clock import FixedClock
from skillopt_sleep.errors import StoreError
from skillopt_sleep.models import NightSummary
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.store import Store

ONE_SECOND = FixedClock(datetime(2026, 11, 26, 3, 17, 42, tzinfo=timezone.utc))


def _cli_at(clock: FixedClock, *argv: str, cwd: Path) -> tuple[int, str, str]:
    """The CLI as a user types it, with every night started at the same instant."""
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), env=dict(os.environ), stdout=out, stderr=err, cwd=cwd, clock=clock)
    return code, out.getvalue(), err.getvalue()


def _sample_project(tmp_path: Path) -> Path:
    code, _, err = _cli_at(ONE_SECOND, "demo", "--dir", str(tmp_path / "d"), "--json", cwd=tmp_path)
    assert code == 0, err
    project = tmp_path / "d" / "project"
    demo = Store.open(resolve_paths(str(tmp_path / "d" / "home")).db)
    mine = Store.open(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).db)
    mine.upsert_tasks(demo.list_tasks(project=str(project)), ONE_SECOND.now())
    return project


def test_a_run_and_a_dry_run_in_the_same_second_both_stay(tmp_path):
    project = _sample_project(tmp_path)
    args = ("--project", str(project), "--backend", "simulated", "--json")
    code, out, err = _cli_at(ONE_SECOND, "run", *args, cwd=tmp_path)
    assert code == 0, err
    staged = json.loads(out)
    code, out, err = _cli_at(ONE_SECOND, "dry-run", *args, cwd=tmp_path)
    assert code == 0, err
    dry = json.loads(out)
    assert staged["night_id"] != dry["night_id"]
    assert dry["night_id"] == staged["night_id"] + "-2"
    # the staged proposal is still there for the morning
    code, out, err = _cli_at(
        ONE_SECOND, "review", "--project", str(project), "--json", cwd=tmp_path
    )
    assert code == 0, err
    assert json.loads(out)["night_id"] == staged["night_id"]
    code, out, _ = _cli_at(ONE_SECOND, "status", "--project", str(project), "--json", cwd=tmp_path)
    ids = [n["night_id"] for n in json.loads(out)["nights"]]
    assert staged["night_id"] in ids and dry["night_id"] in ids


def test_a_reject_then_a_run_in_the_same_second_keeps_the_rejected_night(tmp_path):
    project = _sample_project(tmp_path)
    args = ("--project", str(project), "--backend", "simulated", "--json")
    code, out, err = _cli_at(ONE_SECOND, "run", *args, cwd=tmp_path)
    assert code == 0, err
    first = json.loads(out)["night_id"]
    code, _, err = _cli_at(ONE_SECOND, "reject", "--project", str(project), cwd=tmp_path)
    assert code == 0, err
    code, out, err = _cli_at(ONE_SECOND, "run", *args, cwd=tmp_path)
    assert code == 0, err
    second = json.loads(out)["night_id"]
    assert second != first
    store = Store.open(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).db)
    rejected = store.night(first)
    assert rejected is not None and rejected.state == "rejected"


def test_the_store_never_replaces_a_recorded_night(tmp_path):
    store = Store.memory()
    summary = NightSummary(
        night_id="20261126-031742-abcdef",
        project=str(tmp_path),
        started_at=ONE_SECOND.now(),
        decision="no_evidence",
    )
    store.save_night(summary, "none")
    try:
        store.save_night(summary.model_copy(update={"decision": "accept"}), "staged")
    except StoreError as exc:
        assert "already recorded" in str(exc)
    else:
        raise AssertionError("a second record under one id was accepted")
    row = store.night(summary.night_id)
    assert row is not None and row.state == "none"


def test_ids_reserved_in_the_same_second_count_up_and_skip_directories_in_use(tmp_path):
    store = Store.memory()
    taken = {"base-2"}
    first = store.reserve_night_id("base", "/p", ONE_SECOND.now(), taken.__contains__)
    second = store.reserve_night_id("base", "/p", ONE_SECOND.now(), taken.__contains__)
    assert (first, second) == ("base", "base-3")
