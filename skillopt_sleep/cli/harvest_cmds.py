"""Commands: log (the agents' session-end hook entry) and harvest (read new sessions into the task log).

The harvest machinery is imported inside the handlers: ``log`` runs on every session end, and
its start-up time is the agent's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import skillopt_sleep

from ..errors import LockedError, SleepError, UsageError
from ..markers import REPLAY_ENV
from .common import add_project_flag
from .context import Ctx

if TYPE_CHECKING:
    from ..harvest.drain import DrainResult
    from ..harvest.llm_checks import LlmCheckMiner
    from ..harvest.run import HarvestPlan, SourceStats
    from ..harvest.turn_judge import ModelClassifier
    from ..settings import Settings

LOCK_WAIT_S = 120.0
SHOWN_PATHS = 20


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    log = sub.add_parser(
        "log",
        parents=[common],
        help="hook entry: log the agent session that just ended (hook JSON on stdin)",
        description="Reads an agent's session-end hook payload on stdin and stores the "
        "session's tasks. Returns at once (the transcript is read in the background) and always "
        "exits 0.",
    )
    log.add_argument(
        "--agent",
        metavar="NAME",
        help="the agent whose hook this is (default: the payload's `agent`, else claude-code)",
    )
    log.add_argument("--wait", action="store_true", help="store the tasks before returning")
    log.add_argument("--drain", action="store_true", help=argparse.SUPPRESS)
    log.set_defaults(func=log_cmd, repair=False)  # the drainer's `harvest` repairs

    # The agents named are the registry's (`log` loads it anyway): a new one is never left out.
    from ..harvest import agents

    registered = agents.agents()
    h = sub.add_parser(
        "harvest",
        parents=[common],
        help=f"read new agent sessions ({', '.join(a.label for a in registered)}) into the "
        "task log",
    )
    add_project_flag(h)
    h.add_argument("--all-projects", action="store_true", help="every project, not just this one")
    when = h.add_mutually_exclusive_group()
    when.add_argument(
        "--since",
        metavar="DATE",
        help="files changed since a date, date-time or duration (2026-11-01, 36h, 3d)",
    )
    when.add_argument(
        "--lookback",
        metavar="DAYS",
        type=float,
        help="files changed in the last DAYS days (default: harvest.lookback_days)",
    )
    h.add_argument(
        "--source",
        metavar="AGENT",
        action="append",
        help=f"only this agent (repeatable): {', '.join(a.name for a in registered)}",
    )
    h.set_defaults(func=harvest_cmd)


# -- log --------------------------------------------------------------------------------------


def log_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    """Never fails the agent: any error becomes a notice that ``status`` shows, and exit 0."""
    from ..harvest.agents.hook import read_payload
    from ..harvest.hook import MAX_PAYLOAD_BYTES, Spool, read_stdin

    try:
        if args.drain:
            _drain(ctx, wait_s=0.0)
            return 0
        if ctx.env.get(REPLAY_ENV):
            return 0  # a session our own replay ran: never a task
        raw = read_stdin(ctx.stdin)
        if len(raw) > MAX_PAYLOAD_BYTES:
            raise SleepError(
                "the hook JSON is larger than 1 MB", hint="is `log` on the right hook?"
            )
        payload = read_payload(raw, ctx.env, args.agent)
        Spool(_spool_dir(ctx)).put(payload)
        if args.wait:
            _drain(ctx, wait_s=LOCK_WAIT_S)
        elif not _drainer_running(ctx):
            _spawn_drainer(ctx)
    except Exception as exc:
        _hook_failure(ctx, exc)
    return 0


def _spool_dir(ctx: Ctx) -> Path:
    return ctx.paths.state_dir / "spool"


def _lock_path(ctx: Ctx) -> Path:
    return ctx.paths.state_dir / "harvest.lock"


def _drain(ctx: Ctx, wait_s: float) -> DrainResult:
    from ..harvest import problems
    from ..harvest.drain import drain
    from ..harvest.hook import Spool
    from ..harvest.run import Harvester
    from ..redact import redact

    result = drain(
        Spool(_spool_dir(ctx)), Harvester(ctx.store, ctx.clock), _lock_path(ctx), wait_s=wait_s
    )
    now = ctx.clock.now()
    for error in result.errors:
        ctx.store.add_notice("hook", redact(f"log: {error}"), now)
    problems.save(ctx.store, problems.summarise([result.stats], now), keep_clean=True)
    if result.payloads:
        s = result.stats
        skipped = ", ".join(f"{k} {v}" for k, v in sorted(s.lines_skipped.items())) or "none"
        _append_log(
            ctx,
            f"{now.isoformat()} log: {result.payloads} session(s), {s.tasks_new} new "
            f"and {s.tasks_updated} updated task(s), lines skipped: {skipped}",
        )
    return result


def _drainer_running(ctx: Ctx) -> bool:
    """Whether a drainer (or a harvest) holds the lock. Our payload is already spooled, and the
    holder looks at the spool again after releasing the lock, so it will read it: no need for
    another process (50 sessions ending at once start a few drainers, not 50)."""
    from ..harvest.lock import file_lock

    with file_lock(_lock_path(ctx)) as got:
        return not got


def _spawn_drainer(ctx: Ctx) -> None:
    """Read the spool in a detached process, so the hook returns at once."""
    python = ctx.env.get("SKILLOPT_SLEEP_PYTHON") or sys.executable
    env = dict(ctx.env)
    package_parent = str(Path(skillopt_sleep.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH", "")) if p)
    env.pop(REPLAY_ENV, None)
    ctx.paths.log_dir.mkdir(parents=True, exist_ok=True)
    detach: dict[str, Any] = (
        {"creationflags": subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP}  # type: ignore[attr-defined]
        if os.name == "nt"
        else {"start_new_session": True}
    )
    with open(ctx.paths.log_dir / "hook.log", "ab") as log:
        drainer = subprocess.Popen(  # our own interpreter and module, no shell
            [python, "-m", "skillopt_sleep", "log", "--drain", "--quiet"],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            env=env,
            cwd=str(ctx.paths.state_dir),
            close_fds=True,
            **detach,
        )
    # Reaped by a daemon thread once it ends, so a process that lives on (the CLI called in-process)
    # keeps no zombie and drops no running child; a hook process exits at once and never waits.
    threading.Thread(target=drainer.wait, name="drainer-reaper", daemon=True).start()


def _hook_failure(ctx: Ctx, exc: BaseException) -> None:
    from ..redact import redact
    from .hook_log import failure_line

    text = exc.one_line() if isinstance(exc, SleepError) else f"{type(exc).__name__}: {exc}"
    message = redact(f"log: {text}")
    try:
        ctx.store.add_notice("hook", message, ctx.clock.now())
    except Exception:  # a full disk, a store it may not write: status reads it from the log
        _append_log(ctx, failure_line(ctx.clock.now(), message))
    try:
        ctx.err.write(f"skillopt-sleep: error: {message}\n")
    except (OSError, ValueError):
        pass


def _append_log(ctx: Ctx, line: str) -> None:
    try:
        ctx.paths.log_dir.mkdir(parents=True, exist_ok=True)
        with open(ctx.paths.log_dir / "hook.log", "a", encoding="utf-8") as fh:
            fh.write(" ".join(line.split()) + "\n")
    except (OSError, SleepError):  # no home to log into: stderr has had the message
        pass


# -- harvest ----------------------------------------------------------------------------------


def harvest_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..harvest import problems
    from ..harvest.agents import agent_roots
    from ..harvest.lock import file_lock
    from ..harvest.run import Harvester, HarvestPlan
    from ..harvest.scan import parse_since, project_keys, since_lookback

    if args.project and args.all_projects:
        raise UsageError("--project and --all-projects exclude each other", hint="give one of them")
    project = ctx.project(args.project)
    settings = ctx.settings(project).settings
    hs = settings.harvest
    now = ctx.clock.now()
    since = (
        parse_since(args.since, now)
        if args.since
        else since_lookback(args.lookback if args.lookback is not None else hs.lookback_days, now)
    )
    all_projects = args.all_projects or (hs.all_projects and not args.project)
    chosen = args.source or hs.sources
    plan = HarvestPlan(
        roots=agent_roots(ctx.env, {"claude-code": hs.claude_config_dir, "codex": hs.codex_home}),
        since=since,
        projects=None if all_projects else project_keys(project),
        sources=tuple(dict.fromkeys(chosen)) if chosen else None,
    )
    plan.agents()  # an unknown --source or harvest.sources: one line listing the agents
    first_run = not ctx.store.has_cursors()
    if first_run and not args.since and args.lookback is None:
        ctx.say(
            f"first harvest: looking back {hs.lookback_days:g} days "
            "(--since or --lookback to go further)"
        )
    miner, classifier = _llm_helpers(settings, ctx)
    hooked = _drain(ctx, wait_s=LOCK_WAIT_S)
    with file_lock(_lock_path(ctx), wait_s=LOCK_WAIT_S) as got:
        if not got:
            raise LockedError(
                "another harvest is still running",
                hint="wait for it to finish, then run `harvest` again",
            )
        stats = Harvester(ctx.store, ctx.clock, miner=miner, classifier=classifier).run(plan)
    _drain(ctx, wait_s=LOCK_WAIT_S)  # sessions that ended while we held the lock
    summary = problems.summarise(stats.values(), ctx.clock.now())
    problems.save(ctx.store, summary)
    payload = _report(plan, stats, first_run, hooked, miner, str(project))
    payload["llm_classify_calls"] = classifier.calls if classifier else 0
    ctx.emit(payload, _text(payload))
    return 0


def _llm_helpers(
    settings: Settings, ctx: Ctx
) -> tuple[LlmCheckMiner | None, ModelClassifier | None]:
    """The model helpers a harvest may use, sharing one budget: a check miner (optimizer
    backend, ``llm_checks``) and a turn judge (judge backend, ``llm_classify``)."""
    from ..backends.budget import Budget
    from ..backends.registry import create_backend
    from ..harvest.llm_checks import LlmCheckMiner
    from ..harvest.turn_judge import ModelClassifier

    budget = Budget(settings.budget)
    hs, roles = settings.harvest, settings.roles
    miner = classifier = None
    if roles.optimizer.backend and hs.llm_checks > 0:
        miner = LlmCheckMiner(create_backend(roles.optimizer, ctx.env), budget, hs.llm_checks)
    if hs.llm_classify and roles.judge.backend and hs.llm_classify_calls > 0:
        classifier = ModelClassifier(
            create_backend(roles.judge, ctx.env), budget, hs.llm_classify_calls
        )
    return miner, classifier


def _report(
    plan: HarvestPlan,
    stats: dict[str, SourceStats],
    first_run: bool,
    hooked: DrainResult,
    miner: LlmCheckMiner | None,
    project: str,
) -> dict[str, Any]:
    keys = (
        "files_scanned",
        "files_read",
        "files_unchanged",
        "files_too_old",
        "files_other_projects",
        "files_skipped",
        "files_partly_read",
        "bytes_read",
        "lines_read",
        "sessions",
        "replay_sessions",
        "tasks_new",
        "tasks_updated",
    )
    totals: dict[str, Any] = {k: sum(getattr(s, k) for s in stats.values()) for k in keys}
    skipped: dict[str, int] = {}
    for s in stats.values():
        for reason, n in s.lines_skipped.items():
            skipped[reason] = skipped.get(reason, 0) + n
    totals["lines_skipped"] = dict(sorted(skipped.items()))
    from ..redact import redact

    return {
        "since": plan.since.isoformat(),
        "project": None if plan.projects is None else project,
        "all_projects": plan.projects is None,
        "first_run": first_run,
        "roots": {name: str(root) for name, root in plan.roots.items()},
        "sources": {name: s.to_json() for name, s in stats.items()},
        "totals": totals,
        "hook_sessions": hooked.payloads,
        "llm_check_calls": miner.calls if miner else 0,
        "errors": [redact(e) for s in stats.values() for e in s.errors] + hooked.errors,
    }


def _text(p: dict[str, Any]) -> str:
    t = p["totals"]
    scope = "all projects" if p["all_projects"] else p["project"]
    lines = [
        (
            f"harvested {scope} since {p['since'][:16].replace('T', ' ')} UTC: "
            f"{t['tasks_new']} new task(s), {t['tasks_updated']} updated"
        )
    ]
    for name, s in p["sources"].items():
        lines.append(
            f"  {name}: {s['files_read']} of {s['files_scanned']} file(s) read "
            f"({s['bytes_read'] / 1e6:.1f} MB), {s['sessions']} session(s), "
            f"{s['files_unchanged']} unchanged, {s['files_too_old']} older than the window"
        )
    if t["lines_skipped"]:
        lines.append(
            "  lines skipped: " + ", ".join(f"{k} {v}" for k, v in t["lines_skipped"].items())
        )
        bad = [(path, r) for s in p["sources"].values() for path, r in s["bad_lines"].items()]
        for path, reasons in bad[:SHOWN_PATHS]:
            lines.append(f"    {path}: " + ", ".join(f"{k} {v}" for k, v in reasons.items()))
        if len(bad) > SHOWN_PATHS:
            lines.append(f"    ... and {len(bad) - SHOWN_PATHS} more file(s) (see --json)")
    if t["files_partly_read"]:
        lines.append(
            f"  {t['files_partly_read']} large file(s) read in part; the next harvest goes on"
        )
    if t["replay_sessions"]:
        lines.append(f"  {t['replay_sessions']} replay session(s) ignored")
    lines.extend(f"  skipped {e}" for e in p["errors"][:SHOWN_PATHS])
    if len(p["errors"]) > SHOWN_PATHS:
        lines.append(f"  ... and {len(p['errors']) - SHOWN_PATHS} more skipped (see --json)")
    return "\n".join(lines)
