"""The night lock, held by real processes: overlap refused, a dead holder's lock recovered."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.clock import FixedClock
from skillopt_sleep.errors import LockedError
from skillopt_sleep.lock import night_lock, read_holder

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and flock")

HOLDER = textwrap.dedent(
    """\
    import sys, time
    from pathlib import Path
    from skillopt_sleep.lock import night_lock
    with night_lock(Path(sys.argv[1]), share_with_children=sys.argv[2] == "share") as me:
        print("held", flush=True)
        if len(sys.argv) > 3:  # start a child that takes the lock itself, as `run` does
            import subprocess
            code = "import sys; from pathlib import Path; from skillopt_sleep.lock import night_lock\\n" \\
                   "with night_lock(Path(sys.argv[1])) as h: print('child got it from', h.pid)"
            done = subprocess.run([sys.executable, "-c", code, sys.argv[1]], capture_output=True, text=True)
            print(done.stdout.strip() or done.stderr.strip().splitlines()[-1], flush=True)
        else:
            time.sleep(60)
    """
)


@pytest.fixture
def start_holder(tmp_path: Path, subprocess_env, read_line):
    """Starts a process that takes the lock and says "held"; each is ended and its pipes closed
    after the test, whatever the test did with it."""
    started: list[subprocess.Popen] = []
    script = tmp_path / "holder.py"
    script.write_text(HOLDER)

    def start(lock: Path, *extra: str) -> subprocess.Popen:
        proc = subprocess.Popen(
            [sys.executable, str(script), str(lock), *extra],
            env=subprocess_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append(proc)
        assert read_line(proc.stdout).strip() == "held"
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=10)  # waits, and closes its pipes


def test_lock_is_held_for_the_block_and_says_who_holds_it(tmp_path):
    lock = tmp_path / "state" / "night.lock"
    clock = FixedClock(datetime(2026, 5, 1, 3, 17, tzinfo=timezone.utc))
    with night_lock(lock, clock=clock) as me:
        holder = read_holder(lock)
        assert holder is not None and holder.pid == os.getpid() == me.pid
        assert holder.started_at == "2026-05-01T03:17:00+00:00"
        # a second night in the same process is refused too
        with pytest.raises(LockedError), night_lock(lock, clock=clock):
            pass
    assert read_holder(lock) is None
    with night_lock(lock, clock=clock):  # free again
        pass


def test_a_second_night_is_refused_while_a_live_process_holds_the_lock(tmp_path, start_holder):
    lock = tmp_path / "night.lock"
    proc = start_holder(lock, "solo")
    with pytest.raises(LockedError) as info, night_lock(lock):
        pass
    assert info.value.exit_code == 9
    assert info.value.one_line().startswith(f"another night is running (pid {proc.pid} since ")
    assert "released when that process ends" in info.value.one_line()


def test_a_stale_lock_from_a_killed_process_is_recovered(tmp_path, start_holder):
    lock = tmp_path / "night.lock"
    proc = start_holder(lock, "solo")
    os.kill(proc.pid, signal.SIGKILL)  # dies without cleaning up
    proc.wait(timeout=10)
    assert json.loads(lock.read_text())["pid"] == proc.pid  # its note is still there
    with night_lock(lock) as me:
        assert me.pid == os.getpid()
        assert read_holder(lock).pid == os.getpid()


def test_a_holder_may_share_the_lock_with_its_child_only_when_it_says_so(
    tmp_path, start_holder, read_line
):
    lock = tmp_path / "night.lock"
    shared = start_holder(lock, "share", "child")
    assert read_line(shared.stdout).strip() == f"child got it from {shared.pid}"
    shared.wait(timeout=30)
    solo = start_holder(lock, "solo", "child")
    line = read_line(solo.stdout).strip()
    solo.wait(timeout=30)
    assert line.startswith(
        f"skillopt_sleep.errors.LockedError: another night is running (pid {solo.pid}"
    )
