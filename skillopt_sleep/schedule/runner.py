"""The seam through which the installers run OS programs (crontab, systemctl, launchctl, schtasks).

``SubprocessRunner`` runs real programs found on the ``PATH`` of the environment it is given (the
CLI's snapshot, so a test can put a fake ``crontab`` first on it). ``FakeRunner`` answers from a
script and records every call, for the schedulers a test machine does not have.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..errors import ScheduleError

COMMAND_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class RunResult:
    """What a program did: exit code and its output."""

    code: int
    out: str = ""
    err: str = ""


class Runner(Protocol):
    """Runs an OS program. ``run`` never raises for a non-zero exit; it raises ScheduleError only
    when the program cannot be started at all. ``which`` finds a program on the runner's PATH."""

    def run(self, argv: Sequence[str], *, input: str | None = None) -> RunResult: ...

    def which(self, name: str) -> str | None: ...


class SubprocessRunner:
    """Runs real programs with the given environment."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = dict(env)

    def which(self, name: str) -> str | None:
        return shutil.which(name, path=self.env.get("PATH"))

    def run(self, argv: Sequence[str], *, input: str | None = None) -> RunResult:
        exe = self.which(argv[0]) or argv[0]
        try:
            proc = subprocess.run(
                [exe, *argv[1:]],
                input=input,
                env=self.env,
                capture_output=True,
                text=True,
                timeout=COMMAND_TIMEOUT_S,
                check=False,
            )
        except FileNotFoundError as exc:
            raise ScheduleError(
                f"`{argv[0]}` is not installed or not on PATH", hint="choose another --method"
            ) from exc
        except subprocess.TimeoutExpired as exc:
            raise ScheduleError(
                f"`{' '.join(argv)}` did not finish in {COMMAND_TIMEOUT_S:.0f} s",
                hint="check the scheduler service and retry",
            ) from exc
        except OSError as exc:
            raise ScheduleError(f"cannot run `{argv[0]}`: {exc.strerror}") from exc
        return RunResult(proc.returncode, proc.stdout, proc.stderr)


Responder = Callable[[Sequence[str], "str | None"], RunResult]


@dataclass
class FakeRunner:
    """A scripted runner: ``programs`` maps a program name to a responder; calls are recorded."""

    programs: dict[str, Responder] = field(default_factory=dict)
    calls: list[list[str]] = field(default_factory=list)

    def which(self, name: str) -> str | None:
        return f"/fake/bin/{name}" if name in self.programs else None

    def run(self, argv: Sequence[str], *, input: str | None = None) -> RunResult:
        self.calls.append(list(argv))
        responder = self.programs.get(argv[0])
        if responder is None:
            raise ScheduleError(
                f"`{argv[0]}` is not installed or not on PATH", hint="choose another --method"
            )
        return responder(argv, input)


def ok(_argv: Sequence[str] = (), _input: str | None = None) -> RunResult:
    """A responder that always succeeds silently."""
    return RunResult(0)


def checked(runner: Runner, argv: Sequence[str], *, input: str | None = None) -> RunResult:
    """Run and raise ScheduleError naming the program's own message on a non-zero exit."""
    result = runner.run(argv, input=input)
    if result.code != 0:
        said = (result.err or result.out).strip().splitlines()
        detail = said[-1] if said else f"exit code {result.code}"
        raise ScheduleError(
            f"`{' '.join(argv)}` failed: {detail}",
            hint="fix the scheduler's problem above, or choose another --method",
        )
    return result
