"""`setup` with the real Copilot CLI, Gemini CLI, Pi and Qwen Code in a temp HOME: the agent's
session end then reaches the engine's `log` through the installed plugin, and `--uninstall`
gives the home back byte for byte. The engine's own installation is scripted (as in the other
setup tests); its command runs this checkout's engine."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest

from skillopt_sleep.doctor import DoctorInput
from skillopt_sleep.doctor.agent_plugins import checks as doctor_checks
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.setup.commands import Done, SubprocessCommands
from skillopt_sleep.store import Store
from skillopt_sleep.testing import (
    copilot_agent,
    gemini_agent,
    opencode_agent,
    pi_agent,
    qwen_agent,
)
from skillopt_sleep.testing.agents import run_agent
from skillopt_sleep.testing.replies import Text
from skillopt_sleep.testing.server import ModelServer

from .conftest import Machine

pytestmark = [pytest.mark.realbin, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]
TOOLS = REPO / ".tools" / "node_modules" / ".bin"
AGENT_BINS = {"copilot", "gemini", "pi", "qwen", "opencode"}
NONE_ELSE = {"claude": "no", "codex": "no", "schedule": "no"}


class RealAgents:
    """The scripted runner, except that the agents' own CLIs really run."""

    def __init__(self, fake) -> None:
        self.fake = fake
        self.real = SubprocessCommands()

    @property
    def calls(self) -> list[tuple[str, ...]]:
        return self.fake.calls

    def run(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: str | None = None,
        timeout: float = 600.0,
    ) -> Done:
        if Path(argv[0]).name in AGENT_BINS:
            self.fake.calls.append(tuple(argv))
            return self.real.run(argv, env=env, cwd=cwd, timeout=timeout)
        return self.fake.run(argv, env=env, cwd=cwd, timeout=timeout)


def _engine_venv(machine: Machine) -> Callable[[Sequence[str]], Done]:
    """`python -m venv DIR`: a venv whose command runs this checkout's engine."""

    def make(argv: Sequence[str]) -> Done:
        bin_dir = Path(argv[3]) / "bin"
        bin_dir.mkdir(parents=True)
        for exe in ("python", "skillopt-sleep"):
            script = bin_dir / exe
            script.write_text(
                f'#!/bin/sh\nPYTHONPATH="{REPO}" PYTHONDONTWRITEBYTECODE=1 '
                f'exec "{sys.executable}" -m skillopt_sleep "$@"\n'
            )
            script.chmod(0o755)
        return Done(0)

    return make


def _machine(home: Path, env: dict[str, str]) -> Machine:
    env = {**env, "PATH": f"{TOOLS}:{env.get('PATH', '')}", "SHELL": "/bin/bash"}
    machine = Machine(home, env)
    machine.on(lambda a: list(a[1:3]) == ["-m", "venv"], _engine_venv(machine))
    machine.commands = RealAgents(machine.commands)  # type: ignore[assignment]
    return machine


def _tree(root: Path) -> dict[str, bytes | str | None]:
    out: dict[str, bytes | str | None] = {}
    for p in sorted(root.rglob("*")):
        key = str(p.relative_to(root))
        if p.is_symlink():
            out[key] = "-> " + str(p.readlink())
        else:
            out[key] = None if p.is_dir() else p.read_bytes()
    return out


def _round_trip(machine: Machine, agent: str, cli) -> None:
    """Install, `doctor`, uninstall: the whole home (its .cache too) is what it was. Then the
    home as that install left it, put back (the same bytes, modes and links): the agent's own
    plugin command, already run for real by the install, is not run a second time for the same
    files."""
    before = _tree(machine.home)
    out = machine.install(**NONE_ELSE, agents=(agent,))
    assert "done: skillopt-sleep" in out
    installed = machine.home.with_name(machine.home.name + "-installed")
    shutil.copytree(machine.home, installed, symlinks=True)
    # The whole doctor, as a user runs it after the install: every agent CLI is on its PATH.
    doctor = cli("doctor", "--json", env=machine.env, cwd=machine.home)
    assert {c["name"]: c["status"] for c in doctor.json()["checks"]}[f"plugin: {agent}"] == "ok"
    machine.install(uninstall=True)
    after = _tree(machine.home)
    assert sorted(set(after) ^ set(before)) == []
    assert [k for k in before if before[k] != after[k]] == []
    shutil.rmtree(machine.home)
    installed.rename(machine.home)
    [check] = [c for c in doctor_checks(_doctor_input(machine)) if c.name == f"plugin: {agent}"]
    assert check.status == "ok", check


def _doctor_input(machine: Machine) -> DoctorInput:
    """What `doctor` reads for these checks: the environment and its PATH (no store, no config)."""
    env = machine.env
    return DoctorInput(
        env=env,
        paths=None,  # type: ignore[arg-type]
        settings=None,  # type: ignore[arg-type]
        project=machine.home,
        which=lambda name: shutil.which(name, path=env["PATH"]),
    )


def _logged(sleep_home: Path, ready, timeout: float = 90) -> list[TaskRecord]:
    """The store's tasks once ``ready(tasks)`` holds (the logger reads in the background)."""
    deadline = time.monotonic() + timeout
    found: list[TaskRecord] = []
    db = sleep_home / "data" / "skillopt-sleep.db"
    while time.monotonic() < deadline:
        if db.exists():
            store = Store.open(db)
            try:
                found = store.list_tasks()
            finally:
                store.close()
            if ready(found):
                return found
        time.sleep(0.25)
    raise AssertionError(f"the task log never got there: {[t.intent for t in found]}")


def _need(which: Callable[[], str | None], name: str) -> None:
    if which() is None:
        pytest.skip(f"{name} is not installed")


def test_copilot_session_end_reaches_log_after_setup(tmp_path, cli):
    _need(copilot_agent.which_copilot, "copilot")
    home, sleep = tmp_path / "home", Path(os.environ["SKILLOPT_SLEEP_HOME"])
    project = copilot_agent.make_project(tmp_path / "project")
    with ModelServer(copilot_agent.first_session(project)) as srv:
        # Copilot unpacks itself into ~/.cache/copilot on its first run: here, the install's.
        env = copilot_agent.copilot_env(home, srv.url, cache=home / ".cache")
        machine = _machine(home, {**env, "SKILLOPT_SLEEP_HOME": str(sleep)})
        _round_trip(machine, "copilot", cli)
        run = copilot_agent.run_copilot(copilot_agent.PROMPT, home=home, url=srv.url, cwd=project)
        assert run.code == 0, run.err
    [task] = _logged(sleep, lambda ts: len(ts) == 1)
    assert (task.source, task.intent) == ("copilot", copilot_agent.PROMPT)


def test_gemini_session_end_reaches_log_after_setup(tmp_path, cli):
    _need(gemini_agent.which_gemini, "gemini")
    home, sleep = tmp_path / "home", Path(os.environ["SKILLOPT_SLEEP_HOME"])
    project = gemini_agent.make_project(tmp_path / "project")
    gemini_agent.write_settings(home)  # a user who has run gemini before
    # ... installing from a shell of their own (the session below trusts its project)
    env = gemini_agent.gemini_env(home, "http://127.0.0.1:9", users_shell=True)
    machine = _machine(home, {**env, "SKILLOPT_SLEEP_HOME": str(sleep)})
    _round_trip(machine, "gemini", cli)
    request = "run the tests please"
    [run] = gemini_agent.converse(
        [(request, gemini_agent.scripted_session())], home=home, cwd=project
    )
    assert run.code == 0, run.err
    [task] = _logged(sleep, lambda ts: len(ts) == 1)
    assert (task.source, task.intent) == ("gemini", request)


def test_pi_session_end_reaches_log_after_setup(tmp_path, cli):
    _need(lambda: shutil.which("pi", path=str(TOOLS)), "pi")
    home, work = tmp_path / "home", tmp_path / "work"
    sleep = Path(os.environ["SKILLOPT_SLEEP_HOME"])
    pi_agent.make_project(work)
    with ModelServer(pi_agent.first_session()) as srv:
        env = pi_agent.pi_home(home, srv.url)  # models.json: a user who has set pi up
        machine = _machine(home, {**env, "SKILLOPT_SLEEP_HOME": str(sleep)})
        _round_trip(machine, "pi", cli)
        pi = str(TOOLS / "pi")
        argv = [pi, "-p", "--offline", "--provider", pi_agent.PROVIDER, "--model", pi_agent.MODEL]
        done = run_agent([*argv, pi_agent.REQUEST], {**env, "PATH": machine.env["PATH"]}, work)
        assert done.code == 0, done.err
    [task] = _logged(sleep, lambda ts: len(ts) == 1)
    assert (task.source, task.intent) == ("pi", pi_agent.REQUEST)


def test_qwen_stop_hook_reaches_log_after_setup(tmp_path, cli):
    _need(qwen_agent.which_qwen, "qwen")
    home, sleep = tmp_path / "home", Path(os.environ["SKILLOPT_SLEEP_HOME"])
    work = qwen_agent.calc_project(tmp_path / "work")
    # A plain answer: Stop fires after any answer, and a shell call would only add qwen's
    # seconds-long parser start (its commands are harvested in tests/harvest/test_qwen.py).
    with ModelServer([Text("The tests pass.")]) as srv:
        env = qwen_agent.qwen_env(home, srv.url)  # settings.json: a user who has run qwen
        machine = _machine(home, {**env, "SKILLOPT_SLEEP_HOME": str(sleep)})
        _round_trip(machine, "qwen", cli)
        request = "run the tests please"
        done = run_agent(
            [qwen_agent.which_qwen(), "-p", request, "--yolo", "--auth-type", "openai"],
            env,
            work,
            180,
        )
        assert done.code == 0, done.err
    [task] = _logged(sleep, lambda ts: len(ts) >= 1)
    assert (task.source, task.intent) == ("qwen", request)


def test_opencode_session_idle_reaches_log_after_setup(tmp_path, cli):
    _need(lambda: shutil.which("opencode", path=str(TOOLS)), "opencode")
    home, sleep = tmp_path / "home", Path(os.environ["SKILLOPT_SLEEP_HOME"])
    project = opencode_agent.make_project(tmp_path / "project")
    replies = [opencode_agent.bash("ls"), Text("Done.")]
    with ModelServer(responder=opencode_agent.scripted(replies)) as srv:
        env = opencode_agent.opencode_env(home, srv.url)  # opencode.json: a user who set it up
        # OpenCode started without the shell's PATH: no `skillopt-sleep` on it (not the test
        # run's own, from an active virtual environment either). The plugin runs the engine
        # setup recorded, through the launcher, as the other plugins do.
        dirs = env.get("PATH", os.environ.get("PATH", "")).split(os.pathsep)
        env["PATH"] = os.pathsep.join(d for d in dirs if not shutil.which("skillopt-sleep", path=d))
        machine = _machine(home, env)
        assert shutil.which("skillopt-sleep", path=machine.env["PATH"]) is None
        _round_trip(machine, "opencode", cli)
        argv = [str(TOOLS / "opencode"), "run", "run the tests please"]
        run_env = {**env, "PATH": machine.env["PATH"], "PWD": str(project)}
        done = run_agent(argv, run_env, project, 180)
        assert done.code == 0, done.err
    [task] = _logged(sleep, lambda ts: len(ts) >= 1)
    assert (task.source, task.intent) == ("opencode", "run the tests please")
