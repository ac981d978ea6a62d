"""`status` shows a night while it runs, `status --watch` follows it to its end, and a night
killed half way is shown as stopped, not running.

A real ``skillopt-sleep run`` in a child process, through the anthropic SDK against the loopback
model server answering as the simulated world does. The server answers the first few calls,
then holds every other one until the test lets the night go on: the night is caught mid-replay
however slow the machine is.
"""

from __future__ import annotations

import itertools
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from skillopt_sleep.night.demo import sample_tasks
from skillopt_sleep.testing import ModelCall, ModelServer, Reply
from skillopt_sleep.testing.night_model import simulated_night_responder
from tests.signalled import end_with, interruptible

from .sample_log import log_tasks, sample_root

FREE_CALLS = 5  # answered at once; the others wait for the gate


class Gate:
    """A responder that answers ``free`` model calls, then holds the rest until :meth:`open`."""

    def __init__(self, free: int) -> None:
        self.inner, self.free = simulated_night_responder(), free
        self.answered = itertools.count()
        self.opened = threading.Event()

    def __call__(self, call: ModelCall) -> Reply:
        if next(self.answered) >= self.free:
            self.opened.wait(120)
        return self.inner(call)

    def open(self) -> None:
        self.opened.set()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = sample_root(tmp_path)
    log_tasks(sample_tasks(root))
    return root


@pytest.fixture
def gate() -> Gate:
    return Gate(FREE_CALLS)


@pytest.fixture
def server(gate: Gate) -> Iterator[ModelServer]:
    with ModelServer(responder=gate) as srv:
        try:
            yield srv
        finally:
            gate.open()  # no request is left waiting when the server stops


@pytest.fixture
def start_night(project: Path, server: ModelServer, subprocess_env: dict[str, str]):
    """Start ``skillopt-sleep run`` for the project in a child process; killed at the end."""
    started: list[subprocess.Popen[str]] = []

    def start() -> subprocess.Popen[str]:
        argv = [sys.executable, "-m", "skillopt_sleep", "run", "--project", str(project)]
        argv += ["--backend", "anthropic", "--model", "claude-sonnet-4-6"]
        argv += ["--base-url", server.url, "--k", "2", "--concurrency", "1", "--quiet"]
        env = dict(subprocess_env, ANTHROPIC_API_KEY="sk-ant-test")
        proc = subprocess.Popen(
            argv, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        started.append(proc)
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def wait_for(cli, what: Callable[[dict], bool], project: Path, timeout: float = 60.0) -> dict:
    """``status --json`` once ``what`` holds of it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = cli("status", "--project", str(project), "--json")
        assert r.code == 0, r.err
        if what(r.json()):
            return r.json()
        time.sleep(0.05)
    raise AssertionError(f"status never showed it: {r.out}")


def replaying(status: dict) -> bool:
    night = status["running_night"]
    return night is not None and night["rollouts"] > 0


@pytest.mark.slow
def test_status_shows_the_running_night_and_watch_follows_it_to_its_end(
    cli, project, start_night, gate, subprocess_env
):
    night = start_night()
    status = wait_for(cli, replaying, project)
    running = status["running_night"]
    assert running["state"] == "running" and running["pid"] == night.pid
    assert running["project"] == str(project) and running["tasks"] == len(sample_tasks(project))
    assert running["phase"] == "replay train" and 0 < running["done"] <= running["total"]
    assert running["calls"] > 0 and running["cost_usd"] > 0

    text = cli("status", "--project", str(project)).out.splitlines()
    assert text[1].startswith(f"night running: pid {night.pid} for {project}, started ")
    assert text[2].startswith("  replay train ") and " calls, $" in text[2]

    # Ctrl-C stops the watcher, never the night
    watcher = subprocess.Popen(
        [sys.executable, "-m", "skillopt_sleep", "status", "--watch", "--interval", "0.1"],
        **interruptible(subprocess_env),
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert watcher.stdout is not None
    assert watcher.stdout.readline().startswith(f"night pid {night.pid}: ")
    out, err = end_with(watcher, signal.SIGINT, timeout=30)
    assert out == ""  # nothing changed while the night was held
    assert watcher.returncode == 0, err
    assert err == f"stopped watching; the night goes on (pid {night.pid})\n"
    assert night.poll() is None

    threading.Timer(0.5, gate.open).start()  # the night goes on once the watch has begun
    r = cli("status", "--watch", "--interval", "0.1")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert all(line.startswith(f"night pid {night.pid}: ") for line in lines[:-1]), lines
    shown = [re.search(r" (\d+)/(\d+); ", line) for line in lines[:-1]]
    assert all(m and int(m[1]) <= int(m[2]) for m in shown), lines  # concurrent draws add up
    assert any("test edits" in line for line in lines), lines
    assert lines[-1].startswith("the night ended: night "), lines
    assert night.wait(timeout=60) == 0
    assert cli("status", "--project", str(project), "--json").json()["running_night"] is None
    assert cli("status", "--watch").out == "no night is running\n"


@pytest.mark.slow
def test_a_night_killed_half_way_is_shown_stopped_not_running(cli, project, start_night):
    night = start_night()
    wait_for(cli, replaying, project)
    night.kill()
    night.wait(timeout=30)

    stopped = cli("status", "--project", str(project), "--json").json()["running_night"]
    assert stopped["state"] == "stopped" and stopped["pid"] == night.pid
    r = cli("status", "--project", str(project))
    assert r.code == 0, r.err
    [line] = [ln for ln in r.out.splitlines() if "night" in ln and "stopped" in ln]
    assert line.startswith(f"! a night stopped without finishing: pid {night.pid} for {project}")
    assert "last seen" in line and "`skillopt-sleep run` runs it again" in line
    assert "night running" not in r.out

    watch = cli("status", "--watch")
    assert watch.code == 0 and watch.out.splitlines() == ["no night is running", line]


def test_watch_with_no_night_says_so_once(cli):
    r = cli("status", "--watch")
    assert (r.code, r.out, r.err) == (0, "no night is running\n", "")
    r = cli("status", "--watch", "--json")
    assert r.code == 0 and r.json() == {"night": None, "state": "none", "summary": None}
