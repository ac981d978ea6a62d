"""One scheduled run: lock, check every backend's auth before spending anything, run the night for
each project, log it, record the result and leave a notice for anything that went wrong.

Nothing here fails silently: every way a run can go wrong ends in the run's log, in the
``last run`` record that ``schedule status`` shows, and in a store notice that ``status``,
``schedule status`` and ``/skillopt-sleep`` show until it is seen.

Each run's log (:class:`RunLog`) is one file per run, the newest ``KEEP_RUN_LOGS`` kept, secrets
redacted. The scheduler's own capture of the job's output (``job-output.log``) is rotated by
size, since the OS scheduler, not the job, holds it open.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..backends.base import ROLES, Backend
from ..backends.registry import create_backend
from ..clock import Clock
from ..errors import AuthError, ConfigError, LockedError, SleepError
from ..lock import night_lock
from ..models import NightSummary
from ..paths import Paths
from ..redact import redact
from ..settings import RoleSettings, Settings
from ..store import Store
from .state import NOTICE_KIND, LastRun, ProjectResult, RunStatus, save_run

KEEP_RUN_LOGS = 30
OUTPUT_LOG_MAX_BYTES = 1_000_000
OUTPUT_LOG_KEEP = 3
PREFIX = "night-"


@dataclass(frozen=True)
class NightOutcome:
    """How one project's night ended. ``exit_code`` is the CLI's (0 when ok)."""

    status: RunStatus
    summary: NightSummary | None = None
    message: str = ""
    exit_code: int = 0
    output: str = ""  # what the night printed on stderr, for the run's log


# (project, flags for `run`, environment) -> outcome. The real one runs `skillopt-sleep run`.
NightRunner = Callable[[Path, Sequence[str], Mapping[str, str]], NightOutcome]
BackendFactory = Callable[[RoleSettings, Mapping[str, str]], Backend]


@dataclass
class JobDeps:
    """Everything a run touches, passed in once."""

    store: Store
    paths: Paths
    clock: Clock
    env: Mapping[str, str]
    settings_for: Callable[[Path], Settings]
    night: NightRunner
    flags: Sequence[str] = ()
    backend_factory: BackendFactory = field(default=create_backend)
    expect_config: Path | None = None


@dataclass(frozen=True)
class JobResult:
    record: LastRun
    exit_code: int


def run_job(
    projects: Sequence[Path],
    deps: JobDeps,
    *,
    trigger: Literal["scheduled", "loop", "once"] = "scheduled",
) -> JobResult:
    """Run tonight's nights for ``projects`` under the night lock; never raises a SleepError."""
    started = deps.clock.now()
    log = RunLog(deps.paths.log_dir, deps.clock)
    log.write(f"{trigger} run started for {len(projects)} project(s)")
    try:
        with night_lock(deps.paths.lock_file, clock=deps.clock, share_with_children=True):
            results = [_one_project(p, deps, log) for p in projects]
    except LockedError as exc:
        results = []
        record = LastRun(
            started_at=started,
            finished_at=deps.clock.now(),
            trigger=trigger,
            status="skipped",
            message=exc.one_line(),
            log_file=str(log.path),
        )
        _fail(deps, log, f"scheduled night skipped: {exc.one_line()}")
        save_run(deps.store, record)
        return JobResult(record, exc.exit_code)
    failed = [(r, code) for r, code in results if r.status != "ok"]
    status: RunStatus = "ok" if not failed else failed[0][0].status
    record = LastRun(
        started_at=started,
        finished_at=deps.clock.now(),
        trigger=trigger,
        status=status,
        message="" if not failed else failed[0][0].message,
        projects=[r for r, _ in results],
        log_file=str(log.path),
    )
    log.write(f"{trigger} run finished: {status}")
    save_run(deps.store, record)
    return JobResult(record, 0 if not failed else failed[0][1])


def _one_project(project: Path, deps: JobDeps, log: RunLog) -> tuple[ProjectResult, int]:
    log.write(f"project {project}")
    try:
        _check_config(deps)
        if not project.is_dir():
            raise ConfigError(
                f"the project {project} does not exist any more",
                hint="schedule again with the right --project",
            )
        settings = deps.settings_for(project)
        problems = check_auth(settings, deps.env, deps.backend_factory)
        if problems:
            raise AuthError(
                "; ".join(problems), hint="nothing was spent; fix it and the next night runs"
            )
    except SleepError as exc:
        _fail(deps, log, f"scheduled night for {project} did not start: {exc.one_line()}")
        return ProjectResult(
            project=str(project), status="failed", message=exc.one_line()
        ), exc.exit_code
    log.write("backends answered their auth check; starting the night")
    outcome = deps.night(project, deps.flags, deps.env)
    if outcome.output.strip():
        log.write(outcome.output.rstrip())
    summary = outcome.summary
    result = ProjectResult(
        project=str(project),
        status=outcome.status,
        message=outcome.message,
        decision=summary.decision if summary else None,
        night_id=summary.night_id if summary else None,
    )
    if outcome.status == "ok":
        log.write(
            _describe(summary) if summary else f"nothing to do: {outcome.message or 'no night'}"
        )
    elif outcome.status == "interrupted":
        log.write(f"night for {project} interrupted: {outcome.message}")
    else:
        _fail(deps, log, f"scheduled night for {project} failed: {outcome.message}")
    return result, outcome.exit_code


def check_auth(settings: Settings, env: Mapping[str, str], factory: BackendFactory) -> list[str]:
    """One cheap authenticated probe per distinct backend the roles use; the problems found."""
    problems: list[str] = []
    seen: set[str] = set()
    for role in ROLES:
        role_settings: RoleSettings = getattr(settings.roles, role)
        key = role_settings.model_dump_json(include={"backend", "model", "base_url", "api_key_env"})
        if key in seen:
            continue
        seen.add(key)
        try:
            backend = factory(role_settings, env)
            health = asyncio.run(backend.check())
        except SleepError as exc:
            problems.append(f"{role} backend: {exc.one_line()}")
            continue
        except ImportError as exc:
            problems.append(
                f"{role} backend {role_settings.backend!r} is not available here: {exc}"
            )
            continue
        if not health.ok:
            fix = f" ({health.fix})" if health.fix else ""
            problems.append(
                f"{role} backend {backend.name} ({backend.model}): {health.detail}{fix}"
            )
    return problems


def _check_config(deps: JobDeps) -> None:
    if deps.expect_config is not None and deps.paths.config_file != deps.expect_config:
        raise ConfigError(
            f"the job finds its config at {deps.paths.config_file}, but was scheduled with "
            f"{deps.expect_config}",
            hint="run `skillopt-sleep schedule` again from the environment you use",
        )


def _fail(deps: JobDeps, log: RunLog, message: str) -> None:
    log.write(message)
    deps.store.add_notice(NOTICE_KIND, message, deps.clock.now())


def _describe(summary: NightSummary) -> str:
    text = f"night {summary.night_id}: {summary.decision}"
    if summary.evidence:
        text += f", edits {summary.tally.line()}"
    if summary.proposal_dir:
        text += f", staged in {summary.proposal_dir}"
    return text + f" ({summary.calls} calls, {summary.spent_usd()})"


class RunLog:
    """A log file for one run. ``write`` stamps, redacts and flushes every line."""

    def __init__(self, log_dir: Path, clock: Clock, *, keep: int = KEEP_RUN_LOGS) -> None:
        self.clock = clock
        log_dir.mkdir(parents=True, exist_ok=True)
        stamp = clock.now().strftime("%Y%m%d-%H%M%S")
        self.path = _unique(log_dir / f"{PREFIX}{stamp}.log")
        self.path.touch()
        prune_runs(log_dir, keep)
        rotate_by_size(log_dir / "job-output.log")

    def write(self, text: str) -> None:
        stamp = self.clock.now().isoformat(timespec="seconds")
        lines = "".join(f"{stamp} {line}\n" for line in redact(text).splitlines() or [""])
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(lines)


def _unique(path: Path) -> Path:
    n = 1
    candidate = path
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
    return candidate


def run_logs(log_dir: Path) -> list[Path]:
    """Run logs, oldest first (their names sort by the time they were started)."""
    return sorted(log_dir.glob(f"{PREFIX}*.log"))


def prune_runs(log_dir: Path, keep: int) -> None:
    for old in run_logs(log_dir)[:-keep] if keep > 0 else []:
        old.unlink(missing_ok=True)


def rotate_by_size(
    path: Path, max_bytes: int = OUTPUT_LOG_MAX_BYTES, keep: int = OUTPUT_LOG_KEEP
) -> bool:
    """``path`` -> ``path.1`` -> ... -> ``path.<keep>`` when it grew past ``max_bytes``."""
    try:
        if path.stat().st_size <= max_bytes:
            return False
    except FileNotFoundError:
        return False
    for n in range(keep - 1, 0, -1):
        older = path.with_name(f"{path.name}.{n}")
        if older.exists():
            older.replace(path.with_name(f"{path.name}.{n + 1}"))
    path.replace(path.with_name(f"{path.name}.1"))
    return True
