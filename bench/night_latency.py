"""Wall time of a night against a slow model: concurrency against serial, and the replay cache.

A loopback model server answers every call after ``--delay`` seconds (300 ms by default), the way
a hosted model does; the night runs through the real ``openai`` backend (SDK over HTTP) on a
project of ``--tasks`` tasks (the bundled sample tasks, extended) with K rollouts each. Printed:

* the wall time with the default concurrency and with concurrency 1, at an identical call count,
  and their ratio (the target is at least 8x);
* the calls of a second night with unchanged skill and tasks: the cache answers its train replay,
  and every test of an edit draws fresh rollouts, as a decision must;
* the same night with the gate's classic allocation (:class:`gates.ClassicGate`): its calls
  and wall time beside the default's.

    python -m bench.night_latency            # the full measurement (about three minutes)
    python -m bench.night_latency --json     # one JSON object
    python -m bench.night_latency --tasks 12 --delay 0.05   # a quick look
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import TypedDict

from bench.gates import ClassicGate
from skillopt_sleep import run_night
from skillopt_sleep.backends.registry import create_backend
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.night.demo import sample_tasks, write_sample_project
from skillopt_sleep.optimize.seams import Gate
from skillopt_sleep.settings import (
    BudgetSettings,
    NightSettings,
    RoleSettings,
    RolesSettings,
    Settings,
)
from skillopt_sleep.store import Store
from skillopt_sleep.testing import ModelServer
from skillopt_sleep.testing.night_model import simulated_night_responder

TARGET_RATIO = 8.0


def bench_tasks(project: Path, n: int) -> list[TaskRecord]:
    """``n`` tasks: the sample tasks, then copies of them from later sessions."""
    base = sample_tasks(project)
    out = list(base[:n])
    i = 0
    while len(out) < n:
        src = base[i % len(base)]
        out.append(src.model_copy(update={"id": "", "session_id": f"{src.session_id}-again-{i}"}))
        i += 1
    return [
        TaskRecord.model_validate(t.model_dump()) for t in out
    ]  # fresh ids from the new sessions


def settings_for(url: str, k: int, concurrency: int) -> Settings:
    role = RoleSettings(backend="openai", model="bench-model", base_url=url)
    return Settings(
        night=NightSettings(k=k, concurrency=concurrency),
        roles=RolesSettings(target=role, optimizer=role, judge=role),
        budget=BudgetSettings(max_calls=None, max_tokens=None, max_cost_usd=None),
    )


def timed_night(
    srv: ModelServer,
    project: Path,
    tasks: list[TaskRecord],
    settings: Settings,
    store: Store | None,
    gate: Gate | None = None,
) -> tuple[float, int, str]:
    """(wall seconds, model calls the server saw, decision) of one night."""
    backend = create_backend(settings.roles.target, {})
    srv.clear()
    start = time.perf_counter()
    summary = run_night(
        tasks, project, target=backend, settings=settings, store=store, gate=gate
    ).summary
    wall = time.perf_counter() - start
    return wall, len(srv.model_requests()), summary.decision


class Latency(TypedDict):
    """Wall time and calls of the same night concurrent, serial, again, and with the classic
    allocation."""

    tasks: int
    k: int
    delay_s: float
    concurrency: int
    wall_s_concurrent: float
    wall_s_serial: float
    ratio: float
    target_ratio: float
    target_met: bool
    calls_concurrent: int
    calls_serial: int
    same_calls: bool
    calls_second_night: int
    decision: str
    calls_classic: int
    wall_s_classic: float
    decision_classic: str
    calls_vs_classic: float | None


def measure(n_tasks: int, k: int, delay: float, concurrency: int | None) -> Latency:
    default = concurrency or NightSettings().concurrency
    with tempfile.TemporaryDirectory(prefix="night-latency-") as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        write_sample_project(project)
        tasks = bench_tasks(project, n_tasks)
        store = Store.open(root / "cache.db")
        with ModelServer(responder=simulated_night_responder(), delay=delay) as srv:
            fast = timed_night(srv, project, tasks, settings_for(srv.v1, k, default), store)
            again = timed_night(srv, project, tasks, settings_for(srv.v1, k, default), store)
            serial = timed_night(srv, project, tasks, settings_for(srv.v1, k, 1), None)
            classic = timed_night(
                srv, project, tasks, settings_for(srv.v1, k, default), None, ClassicGate.of(None)
            )
        store.close()
    ratio = serial[0] / fast[0]
    return {
        "tasks": n_tasks,
        "k": k,
        "delay_s": delay,
        "concurrency": default,
        "wall_s_concurrent": round(fast[0], 2),
        "wall_s_serial": round(serial[0], 2),
        "ratio": round(ratio, 2),
        "target_ratio": TARGET_RATIO,
        "target_met": ratio >= TARGET_RATIO,
        "calls_concurrent": fast[1],
        "calls_serial": serial[1],
        "same_calls": fast[1] == serial[1],
        "calls_second_night": again[1],
        "decision": fast[2],
        "calls_classic": classic[1],
        "wall_s_classic": round(classic[0], 2),
        "decision_classic": classic[2],
        "calls_vs_classic": round(fast[1] / classic[1], 3) if classic[1] else None,
    }


def report(r: Latency) -> str:
    met = "met" if r["target_met"] else "NOT met"
    return "\n".join(
        [
            (
                f"night_latency: {r['tasks']} tasks, K={r['k']}, every call answered after "
                f"{r['delay_s'] * 1000:.0f} ms (decision: {r['decision']})"
            ),
            f"  concurrency {r['concurrency']:<3} {r['wall_s_concurrent']:>8.2f} s  {r['calls_concurrent']} calls",
            f"  concurrency 1   {r['wall_s_serial']:>8.2f} s  {r['calls_serial']} calls",
            f"  ratio           {r['ratio']:>8.2f}x (target >= {r['target_ratio']:g}x: {met})",
            (
                f"  second night, unchanged skill and tasks: {r['calls_second_night']} calls "
                f"(first night: {r['calls_concurrent']}; the train replay cached, the tests fresh)"
            ),
            (
                f"  the gate's classic allocation, concurrency {r['concurrency']}: {r['wall_s_classic']:.2f} s, "
                f"{r['calls_classic']} calls (decision: {r['decision_classic']}); lean / classic calls "
                f"{r['calls_vs_classic']:.3f}"
            ),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tasks", type=int, default=40)
    p.add_argument("--k", type=int, default=4)
    p.add_argument("--delay", type=float, default=0.3, help="seconds before every answer")
    p.add_argument(
        "--concurrency",
        type=int,
        default=None,
        help="the concurrent run's limit (default: the night's default setting)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    result = measure(args.tasks, args.k, args.delay, args.concurrency)
    print(json.dumps(result) if args.json else report(result))
    return 0 if result["same_calls"] else 1


if __name__ == "__main__":
    sys.exit(main())
