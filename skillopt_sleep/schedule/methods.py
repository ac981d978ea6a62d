"""The OS schedulers by name, and which one to use on this machine."""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ScheduleError
from .crontab import CrontabInstaller
from .launchd import LaunchdInstaller
from .plan import METHODS, Host, Installer, Method
from .schtasks import SchtasksInstaller
from .systemd import SystemdInstaller

# Best first: systemd and launchd catch up a night the machine slept through; cron does not.
PREFERENCE: tuple[Method, ...] = ("launchd", "schtasks", "systemd", "crontab")
LOOP_HINT = "run `skillopt-sleep schedule run` under tmux, a container entrypoint or a supervisor"


def installer(method: Method, host: Host) -> Installer:
    classes: dict[str, Callable[[Host], Installer]] = {
        "crontab": CrontabInstaller,
        "systemd": SystemdInstaller,
        "launchd": LaunchdInstaller,
        "schtasks": SchtasksInstaller,
    }
    return classes[method](host)


def choose(host: Host, wanted: str, *, only_render: bool = False) -> Installer:
    """The installer for ``wanted`` (a method name or ``auto``); a ScheduleError when unusable.

    ``only_render``: a named method is returned even where it cannot run, to show its files."""
    if wanted == "loop":
        raise ScheduleError(
            "the built-in loop is not installed into an OS scheduler", hint=LOOP_HINT
        )
    if wanted != "auto":
        if wanted not in METHODS:
            raise ScheduleError(
                f"unknown scheduling method {wanted!r}", hint=f"choose one of: {', '.join(METHODS)}"
            )
        chosen = installer(wanted, host)
        reason = None if only_render else chosen.unavailable()
        if reason:
            raise ScheduleError(
                f"cannot schedule with {wanted}: {reason}",
                hint="choose another --method, or " + LOOP_HINT,
            )
        return chosen
    reasons = []
    for method in PREFERENCE:
        candidate = installer(method, host)
        reason = candidate.unavailable()
        if reason is None:
            return candidate
        reasons.append(f"{method}: {reason}")
    raise ScheduleError(
        "no OS scheduler is usable here (" + "; ".join(reasons) + ")", hint=LOOP_HINT
    )
