"""The subprocess seam of the CLI backends: a real async runner and a scripted fake.

The ``claude-code`` and ``codex`` backends never call :mod:`subprocess` themselves; they hand an
argv, an environment and a working directory to a :class:`Runner`. Tests pass a
:class:`FakeRunner` (answers from a queue, calls kept in ``calls``); the real night uses
:class:`SubprocessRunner`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class RunResult:
    """What a finished process left: its exit code and its output, decoded as UTF-8."""

    returncode: int
    stdout: str = ""
    stderr: str = ""


@dataclass(frozen=True)
class RunCall:
    """One call a runner was asked to make (kept by :class:`FakeRunner`)."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    cwd: str | None
    stdin: str | None
    timeout: float


class Runner(Protocol):
    """Runs one program to completion.

    Contract: ``stdin=None`` means the child's stdin is closed (``/dev/null``). Raises
    ``FileNotFoundError`` when the program does not exist and ``TimeoutError`` when it ran longer
    than ``timeout`` seconds (the child and its process group are killed first). Never raises for
    a non-zero exit: that is in :attr:`RunResult.returncode`.
    """

    async def run(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: str | None = None,
        stdin: str | None = None,
        timeout: float = 120.0,
    ) -> RunResult: ...


class SubprocessRunner:
    """The real runner: :func:`asyncio.create_subprocess_exec`, killed as a group on timeout."""

    async def run(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: str | None = None,
        stdin: str | None = None,
        timeout: float = 120.0,
    ) -> RunResult:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            env=dict(env),
            cwd=cwd,
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=os.name == "posix",  # so a timeout kills the CLI's children too
        )
        data = None if stdin is None else stdin.encode("utf-8")
        try:
            out, err = await asyncio.wait_for(proc.communicate(data), timeout)
        except (asyncio.TimeoutError, asyncio.CancelledError) as exc:
            _kill(proc)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(proc.wait(), 5)
            if isinstance(exc, asyncio.TimeoutError):  # a distinct class before Python 3.11
                raise TimeoutError(f"{argv[0]} ran longer than {timeout:g}s") from exc
            raise
        return RunResult(
            proc.returncode or 0, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
        )


def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows
            proc.kill()


Answer = RunResult | BaseException | Callable[[RunCall], RunResult]


@dataclass
class FakeRunner:
    """A runner for tests: answers from a queue (or ``default``), and records every call.

    An enqueued exception (``FileNotFoundError``, ``TimeoutError``) is raised instead.
    """

    answers: deque[Answer] = field(default_factory=deque)
    default: Answer | None = None
    calls: list[RunCall] = field(default_factory=list)

    def enqueue(self, *answers: Answer) -> None:
        self.answers.extend(answers)

    async def run(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: str | None = None,
        stdin: str | None = None,
        timeout: float = 120.0,
    ) -> RunResult:
        call = RunCall(tuple(argv), dict(env), cwd, stdin, timeout)
        self.calls.append(call)
        answer = self.answers.popleft() if self.answers else self.default
        if answer is None:
            raise AssertionError(f"FakeRunner: no answer enqueued for {argv[:2]}")
        if isinstance(answer, BaseException):
            raise answer
        if callable(answer):
            return answer(call)
        return answer


def run_sync(
    runner: Runner, argv: Sequence[str], *, env: Mapping[str, str], timeout: float = 20.0
) -> RunResult:
    """Run through ``runner`` from synchronous code (auto-detection, ``usable``).

    Works inside a running event loop too, by running in a helper thread.
    """

    def go() -> RunResult:
        return asyncio.run(runner.run(argv, env=env, timeout=timeout))

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return go()
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(go).result()
