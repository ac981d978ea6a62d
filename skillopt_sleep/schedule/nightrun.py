"""The real night runner: ``python -m skillopt_sleep run --project P --quiet --json`` in a child
process, so a crash or a hang of one night cannot take the scheduler down with it."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import ValidationError

from ..models import NightSummary
from ..redact import redact
from .job import NightOutcome, NightRunner
from .jobspec import needs_pythonpath, package_root

NIGHT_TIMEOUT_S = 8 * 3600.0
POLL_S = 0.5
STOP_GRACE_S = 10.0


def subprocess_night(
    python: str, *, stop: threading.Event | None = None, timeout_s: float = NIGHT_TIMEOUT_S
) -> NightRunner:
    """A NightRunner running ``run`` with ``python``; ``stop`` ends a night early (SIGTERM)."""

    def run(project: Path, flags: Sequence[str], env: Mapping[str, str]) -> NightOutcome:
        argv = [
            python,
            "-m",
            "skillopt_sleep",
            "run",
            "--project",
            str(project),
            "--quiet",
            "--json",
            *flags,
        ]
        try:
            proc = subprocess.Popen(
                argv,
                env=child_env(env),
                cwd=str(project),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
            )
        except OSError as exc:
            return NightOutcome(
                "failed", message=f"cannot start {python}: {exc.strerror}", exit_code=1
            )
        out, err, why = _wait(proc, stop, timeout_s)
        if why:
            return NightOutcome(
                "interrupted" if why == "stopped" else "failed",
                message=f"night {why}",
                exit_code=proc.returncode or 1,
                output=err,
            )
        summary, nothing_to_do = _parse(out)
        if proc.returncode != 0:
            lines = [ln for ln in err.splitlines() if ln.strip()]
            said = redact(lines[-1]) if lines else f"`run` exited with code {proc.returncode}"
            return NightOutcome("failed", summary, said, proc.returncode, output=err)
        if summary is None and nothing_to_do is None:
            return NightOutcome(
                "failed", message="`run --json` printed no night summary", exit_code=1, output=err
            )
        return NightOutcome("ok", summary, message=nothing_to_do or "", output=err)

    return run


def child_env(env: Mapping[str, str]) -> dict[str, str]:
    """The job's environment, with this package importable in the child."""
    out = dict(env)
    root = package_root()
    if needs_pythonpath(root):
        parts = [p for p in out.get("PYTHONPATH", "").split(os.pathsep) if p]
        if str(root) not in parts:
            out["PYTHONPATH"] = os.pathsep.join([str(root), *parts])
    return out


def _wait(
    proc: subprocess.Popen[str], stop: threading.Event | None, timeout_s: float
) -> tuple[str, str, str]:
    """(stdout, stderr, why it was ended early or "")."""
    waited = 0.0
    while True:
        try:
            out, err = proc.communicate(timeout=POLL_S)
            return out, err, ""
        except subprocess.TimeoutExpired:
            waited += POLL_S
        if stop is not None and stop.is_set():
            why = "stopped"
        elif waited >= timeout_s:
            why = f"took longer than {timeout_s / 3600:.1f} h and was stopped"
        else:
            continue
        proc.terminate()
        try:
            out, err = proc.communicate(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        return out, err, why


def _parse(out: str) -> tuple[NightSummary | None, str | None]:
    """The night's summary; or, when ``run`` had nothing to do (no tasks yet), its reason."""
    try:
        return NightSummary.model_validate_json(out), None
    except ValidationError:
        pass
    try:
        data = json.loads(out)
    except ValueError:
        return None, None
    if isinstance(data, dict) and data.get("decision") is None and data.get("reason"):
        return None, str(data["reason"])
    return None, None
