"""SIGTERM (and SIGHUP) end a command the way Ctrl-C does.

Python's default for SIGTERM is to die on the spot: no ``finally`` runs, so the agent CLIs a
night started (each in its own process group) would keep running, and their private homes
would stay on disk. Here SIGTERM is turned into the interrupt Ctrl-C sends: a running night's
event loop cancels its replays, the runner kills each child's process group, and every
temporary directory is removed on the way out. The exit code then says which signal it was.
"""

from __future__ import annotations

import signal
from types import FrameType

_received: list[int] = []


def _as_interrupt(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL, None):
        raise KeyboardInterrupt  # no Ctrl-C handler to defer to (a job started with it ignored)
    signal.raise_signal(
        signal.SIGINT
    )  # asyncio's own handler, while a night runs, cancels it cleanly


def end_on_signals() -> None:
    """Install the handlers (the console entry point does; an in-process caller keeps its own)."""
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None:
            signal.signal(sig, _as_interrupt)


def interrupted_exit_code() -> int:
    """128 + the signal that ended the command (SIGINT when none was recorded)."""
    return 128 + (_received[-1] if _received else int(signal.SIGINT))


def interrupted_message() -> str:
    if _received and _received[-1] != signal.SIGINT:
        return f"terminated by {signal.Signals(_received[-1]).name}; nothing was left running"
    return "interrupted"
