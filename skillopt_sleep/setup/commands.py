"""The subprocess seam of the installer: a real runner and a scripted fake.

The installer runs before the engine's dependencies exist, so it cannot use the backends'
asynchronous runner (its package imports pydantic); this is the same contract, synchronous:
``stdin`` is closed, a missing program raises ``FileNotFoundError``, a non-zero exit is in
``returncode`` and never raises.

The environment and the working directory those commands run in (:func:`child_env`,
:func:`neutral_dir`): the install scripts put the checkout on ``PYTHONPATH`` so the installer
runs from its sources, and a user runs them from inside the checkout. Passed on, either one shows
pip (and the engine's Python) the checkout instead of what is installed: after an editable
install, the checkout's ``skillopt_sleep.egg-info`` makes pip call the engine "already
satisfied" and install no command at all. So every command the installer starts gets the user's
environment without the variables that change which Python code runs, in a directory that holds
no Python package.
"""

from __future__ import annotations

import os
import subprocess
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

# Each one makes a Python started by pip, pipx, uv or the engine import, or find metadata in,
# something other than its own site-packages (the last two: macOS framework builds).
LEAKS = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONEXECUTABLE", "__PYVENV_LAUNCHER__")

# pip and uv must leave no self-check or cache files behind: uninstall restores the tree exactly.
QUIET_TOOLS = {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_CACHE_DIR": "1", "UV_NO_CACHE": "1"}


def child_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` as the installer's commands get it: no leak, and the tools kept quiet."""
    return {**{k: v for k, v in env.items() if k not in LEAKS}, **QUIET_TOOLS}


def neutral_dir() -> Path:
    """Where the commands run: the filesystem root, since `python -m` and `python -c` put their
    working directory first on ``sys.path`` (a checkout there is seen as installed)."""
    return Path(os.path.abspath(os.sep))


@dataclass(frozen=True)
class Done:
    """A finished command: its exit code and output."""

    returncode: int
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False  # stopped at its time limit, not ended by itself

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def last_line(self) -> str:
        lines = [ln for ln in (self.stderr + "\n" + self.stdout).splitlines() if ln.strip()]
        return lines[-1].strip() if lines else f"exit status {self.returncode}"


class Commands(Protocol):
    """Runs one program to completion (contract in the module docstring)."""

    def run(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: str | None = None,
        timeout: float = 600.0,
    ) -> Done: ...


class SubprocessCommands:
    """The real runner."""

    def run(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: str | None = None,
        timeout: float = 600.0,
    ) -> Done:
        try:
            proc = subprocess.run(
                list(argv),
                env=dict(env),
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise TimeoutError(f"{argv[0]} ran longer than {timeout:g}s") from exc
        return Done(proc.returncode, proc.stdout, proc.stderr)


Answer = Done | BaseException | Callable[[Sequence[str]], Done]


@dataclass(frozen=True)
class Run:
    """One command as the fake runner received it: what ran, with which environment, where,
    stopped after how many seconds."""

    argv: tuple[str, ...]
    env: dict[str, str]
    cwd: str | None
    timeout: float = 600.0


@dataclass
class FakeCommands:
    """A runner for tests: answers by the program's name (or ``default``), keeps every argv (and
    in ``runs``, the environment and directory each ran with)."""

    answers: dict[str, deque[Answer]] = field(default_factory=dict)
    default: Answer = field(default_factory=lambda: Done(0))
    calls: list[tuple[str, ...]] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)

    def enqueue(self, program: str, *answers: Answer) -> None:
        self.answers.setdefault(program, deque()).extend(answers)

    def run(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: str | None = None,
        timeout: float = 600.0,
    ) -> Done:
        self.calls.append(tuple(argv))
        self.runs.append(Run(tuple(argv), dict(env), cwd, timeout))
        queue = self.answers.get(_name(argv[0]))
        answer = queue.popleft() if queue else self.default
        if isinstance(answer, BaseException):
            raise answer
        return answer(argv) if callable(answer) else answer


def _name(program: str) -> str:
    return program.replace("\\", "/").rsplit("/", 1)[-1]
