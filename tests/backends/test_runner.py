"""The real subprocess runner: closed stdin, fed stdin, missing programs, timeouts that kill."""

from __future__ import annotations

import asyncio
import os
import sys
import time

import pytest

from skillopt_sleep.backends.runner import FakeRunner, RunResult, SubprocessRunner, run_sync

pytestmark = pytest.mark.skipif(os.name != "posix", reason="uses /bin/sh")
ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def run(argv, **kw):
    return asyncio.run(SubprocessRunner().run(argv, env=ENV, **kw))


def test_stdin_is_closed_unless_given(tmp_path):
    closed = run(["/bin/sh", "-c", "cat; echo rc=$?"], timeout=10)
    assert closed == RunResult(0, "rc=0\n", "")  # cat saw end of input at once: no hang
    fed = run(["/bin/sh", "-c", "cat; pwd >&2"], stdin="hello", cwd=str(tmp_path), timeout=10)
    assert fed.stdout == "hello" and fed.stderr.strip() == str(tmp_path)


def test_a_nonzero_exit_is_a_result_not_an_error():
    assert run(["/bin/sh", "-c", "echo oops >&2; exit 3"], timeout=10) == RunResult(3, "", "oops\n")


def test_a_missing_program_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        run([str(tmp_path / "no-such-cli")], timeout=10)


def test_a_timeout_kills_the_program_and_its_children(tmp_path):
    marker = tmp_path / "child-survived"
    script = f"(sleep 2; touch {marker}) & sleep 30"
    start = time.monotonic()
    with pytest.raises(TimeoutError, match=r"ran longer than 0\.5s"):
        run(["/bin/sh", "-c", script], timeout=0.5)
    assert time.monotonic() - start < 5
    time.sleep(2.5)
    assert not marker.exists()  # the whole process group went


def test_run_sync_works_inside_a_running_loop():
    runner = FakeRunner(default=RunResult(0, "ok"))

    async def inside() -> RunResult:
        return run_sync(runner, [sys.executable, "--version"], env=ENV)

    assert asyncio.run(inside()).stdout == "ok"
    assert run_sync(runner, ["x"], env=ENV).stdout == "ok"
