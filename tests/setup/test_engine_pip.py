"""Which pip fills the engine's private environment, on a scripted machine: the installing
Python's own from outside (`pip --python`, pip 22.3) when it has one, so the environment is made
without ensurepip's thousand files; else the environment's own, as before. An upgrade finds a pip
whichever way the environment was made."""

from __future__ import annotations

import sys

from skillopt_sleep.setup.commands import Done

NO_AGENTS = {"claude": "no", "codex": "no", "schedule": "no"}


def _pip_says(machine, python: str, answer: Done) -> None:
    machine.on(lambda a: list(a) == [python, "-m", "pip", "--version"], lambda a: answer)


def _installs(machine) -> list[tuple[str, ...]]:
    return [c for c in machine.calls(" install -q") if "pip" in c]


def test_a_recent_pip_fills_an_environment_made_without_one(machine):
    _pip_says(machine, sys.executable, Done(0, "pip 23.0.1 from /usr/lib/python3 (python 3.11)"))
    machine.install(**NO_AGENTS)
    venv = machine.layout.engine_venv
    py = str(venv / "bin" / "python")
    assert machine.calls("-m venv") == [(sys.executable, "-m", "venv", str(venv), "--without-pip")]
    [install] = _installs(machine)
    assert install[:7] == (sys.executable, "-m", "pip", "--python", py, "install", "-q")
    assert machine.calls("ensurepip") == []


def test_an_older_pip_leaves_the_environment_its_own(machine):
    _pip_says(machine, sys.executable, Done(0, "pip 22.2.2 from /usr/lib/python3 (python 3.10)"))
    machine.install(**NO_AGENTS)
    venv = machine.layout.engine_venv
    assert machine.calls("-m venv") == [(sys.executable, "-m", "venv", str(venv))]
    [install] = _installs(machine)
    assert install[:5] == (str(venv / "bin" / "python"), "-m", "pip", "install", "-q")


def _an_older_engine_without_pip(machine) -> str:
    """Installed once by a Python with a recent pip; the engine now says 0.0.9 and its
    environment has no pip of its own."""
    _pip_says(machine, sys.executable, Done(0, "pip 23.0.1 from /usr/lib/python3 (python 3.11)"))
    machine.install(**NO_AGENTS)
    py = str(machine.layout.engine_venv / "bin" / "python")
    machine.on(lambda a: "import skillopt_sleep as s" in " ".join(a), lambda a: Done(0, "0.0.9"))
    _pip_says(machine, py, Done(1, stderr=f"{py}: No module named pip"))
    machine.commands.calls.clear()
    return py


def test_an_upgrade_of_an_environment_without_pip_uses_the_installing_pythons(machine):
    py = _an_older_engine_without_pip(machine)
    out = machine.install(**NO_AGENTS)
    assert "engine: upgrading skillopt-sleep 0.0.9 to " in out
    outside = (sys.executable, "-m", "pip", "--python", py, "install", "-q")
    assert [c[:7] for c in _installs(machine)] == [outside, outside]
    assert "--force-reinstall" in _installs(machine)[0]
    assert machine.calls("ensurepip") == []


def test_an_upgrade_by_a_python_without_pip_gives_the_environment_one_first(machine):
    py = _an_older_engine_without_pip(machine)
    _pip_says(machine, sys.executable, Done(1, stderr="No module named pip"))
    machine.install(**NO_AGENTS)
    assert machine.calls("ensurepip") == [(py, "-m", "ensurepip", "-q")]
    assert [c[:5] for c in _installs(machine)] == [(py, "-m", "pip", "install", "-q")] * 2
