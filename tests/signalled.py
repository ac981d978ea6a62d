"""Ending a child with a signal, as a user's Ctrl-C or the system's SIGTERM would: and, when it does
not end, a failure that says where it was stuck, not a bare timeout.

The child must be started with ``PYTHONFAULTHANDLER=1`` in its environment (``faulting``): a child
still running after ``timeout`` is sent SIGABRT, on which Python prints every thread's stack to
stderr, and the failure shows that stack with the child's signal state from /proc."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping
from pathlib import Path


def faulting(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (the suite's own when None) with Python's fault handler on."""
    return {**(os.environ if env is None else env), "PYTHONFAULTHANDLER": "1"}


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
