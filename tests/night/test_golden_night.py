"""The night's --json document is read by other tools: its shape and values are pinned."""

from __future__ import annotations

from datetime import datetime, timezone

from skillopt_sleep import run_night
from skillopt_sleep.backends.simulated import SimulatedBackend
from skillopt_sleep.clock import FixedClock


def test_sample_night_summary_json_is_stable(sample_project, golden):
    project, tasks = sample_project
    clock = FixedClock(datetime(2026, 11, 21, 3, 17, tzinfo=timezone.utc))
    summary = run_night(tasks, project, target=SimulatedBackend(), clock=clock).summary
    text = summary.to_json().replace(str(project), "<project>").replace(summary.night_id, "<night>")
    golden("night/sample-night.json", text + "\n")
