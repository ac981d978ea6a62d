"""Ending a child with a signal, as a user's Ctrl-C or the system's SIGTERM would: and, when it does
not end, a failure that says where it was stuck, not a bare timeout.

The child must be started with ``interruptible(env)``: with ``PYTHONFAULTHANDLER=1`` in its
environment, so that a child still running after ``timeout`` is sent SIGABRT, on which Python prints
every thread's stack to stderr, and the failure shows that stack with the child's signal state from
/proc; and with SIGINT and SIGQUIT as a terminal gives them. A suite started in the background by a
shell without job control (``pytest ... &`` in a script, as CI runners and nohup do) inherits both
ignored, and an ignored SIGINT is inherited through exec: Python then installs no KeyboardInterrupt
handler, and a Ctrl-C test would wait out its timeout on a child that never saw the key."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def interruptible(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``Popen`` keywords for a child a test will signal: ``env`` (the suite's own when None) with
    Python's fault handler on, and Ctrl-C's signals at their defaults, as in a terminal."""
    return {
        "env": {**(os.environ if env is None else env), "PYTHONFAULTHANDLER": "1"},
        "preexec_fn": _as_in_a_terminal,
    }


def _as_in_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def end_with(proc: subprocess.Popen[str], sig: int, timeout: float) -> tuple[str, str]:
    """Send ``sig`` and return the child's (stdout, stderr) once it has exited."""
    proc.send_signal(sig)
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        state = _signal_state(proc.pid)
        proc.send_signal(signal.SIGABRT)
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        raise AssertionError(
            f"{signal.Signals(sig).name} did not end pid {proc.pid} within {timeout:g} s "
            f"({state}); its stack and output:\n{err[-6000:]}\n{out[-2000:]}"
        ) from None


def _signal_state(pid: int) -> str:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return "no /proc status"
    keep = ("State", "SigBlk", "SigIgn", "SigCgt")
    return ", ".join(" ".join(line.split()) for line in lines if line.startswith(keep))
