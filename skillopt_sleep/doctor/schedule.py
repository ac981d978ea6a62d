"""Doctor checks for the schedule: is a night scheduled, by which method, when next, and how the
last one went."""

from __future__ import annotations

import os
import sys
from datetime import datetime, timezone
from pathlib import Path

from ..errors import SleepError
from ..schedule.envfile import too_open
from ..schedule.overview import Overview, overview
from ..schedule.plan import Host
from ..schedule.runner import SubprocessRunner
from ..schedule.timing import local_timezone
from ..store import Store
from . import DoctorInput, Finding


def checks(inp: DoctorInput) -> list[Finding]:
    try:
        store = Store.open_readonly(inp.paths.db)
    except SleepError as exc:
        return [Finding("schedule", "skip", f"cannot read the store: {exc.one_line()}")]
    try:
        home = Path(inp.env.get("HOME") or inp.env.get("USERPROFILE") or Path.home())
        uid = os.getuid() if hasattr(os, "getuid") else 0
        host = Host(
            SubprocessRunner(inp.env), inp.env, home, inp.paths.state_dir, sys.platform, uid
        )
        view = overview(store, host, datetime.now(timezone.utc), local_timezone(inp.env))
    finally:
        store.close()
    findings = [_scheduled(view), _last_run(view)]
    if too_open(inp.paths.env_file):
        findings.append(
            Finding(
                "schedule secrets",
                "fail",
                f"{inp.paths.env_file} is readable by others",
                fix=f"chmod 600 {inp.paths.env_file}",
            )
        )
    return findings


def _scheduled(view: Overview) -> Finding:
    if view.method is None:
        return Finding(
            "schedule",
            "warn",
            "no night is scheduled",
            fix="run `skillopt-sleep schedule` (or `skillopt-sleep schedule run` in a container)",
        )
    if view.problem:
        return Finding("schedule", "fail", view.problem, fix="run `skillopt-sleep schedule` again")
    nxt = view.next_runs[0].isoformat(timespec="minutes") if view.next_runs else "unknown"
    data = {"method": view.method, "cron": view.cron or "", "next_run": nxt}
    return Finding(
        "schedule", "ok", f"{view.method}, {view.description}; next run {nxt}", data=data
    )


def _last_run(view: Overview) -> Finding:
    last = view.last_run
    unseen = f"; {len(view.notices)} unseen failure notice(s)" if view.notices else ""
    if last is None:
        return Finding(
            "last night",
            "skip" if not view.notices else "warn",
            "no scheduled night has run yet" + unseen,
            fix="see `skillopt-sleep schedule status`" if view.notices else "",
        )
    when = last.started_at.isoformat(timespec="minutes")
    detail = f"{when} ({last.trigger}): {last.status}" + (
        f", {last.message}" if last.message else ""
    )
    fix = f"see `skillopt-sleep schedule status` and the log {last.log_file}"
    if last.status == "failed":
        return Finding("last night", "fail", detail + unseen, fix=fix)
    if last.status != "ok" or view.notices:
        return Finding("last night", "warn", detail + unseen, fix=fix)
    return Finding("last night", "ok", detail)
