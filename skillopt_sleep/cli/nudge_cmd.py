"""Command: nudge — the session-start hook: one line where the user works when a proposal waits
for the session's project, or when its last night failed; silent otherwise.

It runs before every agent session starts, so it must cost next to nothing and never fail:
* only the standard library (and :mod:`..paths`) is imported: the package's store and models
  load pydantic, whose import alone takes longer than the whole budget;
* the store is read with plain SQL over a read-only connection, never migrated or written;
* a hard budget (``BUDGET_MS``): past it nothing is printed, and a watchdog ends the process;
* a missing or corrupt store, an unreadable payload, a closed stdout: silence and exit 0;
* once a day per project at most, remembered in a small file in the state dir (written
  atomically), so a proposal left waiting is a reminder, not a banner on every session.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..paths import HOME_ENV, Paths, resolve_paths

if TYPE_CHECKING:
    from .context import Ctx

BUDGET_MS = 300
RECENT = timedelta(hours=48)  # a failure older than this is not "last night" any more
STATE_FILE = "nudges.json"
KEEP_DAYS = 7  # projects nudged longer ago than this are dropped from the state file
MAX_PAYLOAD = 1 << 20
MAX_REASON = 160
# How the user runs the CLI where the line is shown: the plugin's slash command in Claude Code,
# the skill in Codex, the command itself in a terminal.
AGENTS = {"claude-code": "/skillopt-sleep", "codex": "$skillopt-sleep", "text": "skillopt-sleep"}
# What the decision can fail on: each means "say nothing", never an error at session start.
QUIET_ERRORS = (OSError, sqlite3.Error, ValueError, KeyError, TypeError, AttributeError)


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "nudge",
        help="hook entry: one line at session start when a proposal waits (hook JSON on stdin)",
        description="Prints one line when a proposal waits for review in this project, or its "
        "last night failed; at most once a day per project, silent otherwise. As a hook it "
        "always exits 0.",
    )
    p.add_argument(
        "--for",
        dest="agent",
        choices=sorted(AGENTS),
        default="text",
        help="the agent whose session starts: the line's format and the command it names",
    )
    p.add_argument(
        "--budget-ms",
        type=int,
        default=BUDGET_MS,
        help=f"print nothing past this many milliseconds (default {BUDGET_MS})",
    )
    p.set_defaults(func=_handler, repair=False)  # it only reads, within its budget


def _handler(args: argparse.Namespace, ctx: Ctx) -> int:
    # Reached only for the argv the fast path declines (a flag spelt another way): same work.
    return run_hook(
        env=ctx.env,
        stdin=ctx.stdin,
        stdout=ctx.out,
        cwd=ctx.cwd,
        agent=args.agent,
        budget_ms=args.budget_ms,
    )


def hook_argv(argv: Sequence[str]) -> tuple[str, int] | None:
    """(agent, budget) when ``argv`` (after ``nudge``) is one the fast path takes, else None:
    the hook's own spellings; anything else goes through argparse for its help and errors."""
    agent, budget, rest = "text", BUDGET_MS, list(argv)
    while rest:
        flag = rest.pop(0)
        value = rest.pop(0) if rest else ""
        if flag == "--for" and value in AGENTS:
            agent = value
        elif flag == "--budget-ms" and value.isdigit():
            budget = int(value)
        else:
            return None
    return agent, budget


def arm_watchdog(argv: Sequence[str]) -> None:
    """End this process silently (status 0) once the budget is spent, whatever it is doing (a
    store locked by a night, a slow disk). Only at the process boundary: never in-process."""
    parsed = hook_argv(argv)
    if parsed is None:
        return
    timer = threading.Timer(parsed[1] / 1000, os._exit, args=(0,))
    timer.daemon = True
    timer.start()


@dataclass(frozen=True)
class Findings:
    """What there is to tell about one project."""

    pending_edits: int | None  # the edits of the proposal waiting for review; None: none waits
    failure: str | None  # what failed last night; None: nothing did
    cut_short: str | None = None  # "adopt" or "rollback" a crash left unfinished; None: none


def nudge_text(found: Findings, agent: str) -> str | None:
    """The one line for ``found``, naming the command to run where the user is; None: silence."""
    cli = AGENTS[agent]
    parts = []
    if found.cut_short is not None:  # the proposal is not waiting: its files are half written
        what = "an adoption" if found.cut_short == "adopt" else "a rollback"
        parts.append(
            f"skillopt-sleep: {what} was cut short and left the files half changed; "
            f"{cli} status puts them back"
        )
    elif found.pending_edits is not None:
        n = found.pending_edits
        what = f"{n} learned rule{'s' if n != 1 else ''} wait{'s' if n == 1 else ''}"
        parts.append(f"skillopt-sleep: {what} for review: {cli} review")
    if found.failure is not None:
        tail = f"last night failed ({found.failure}); see {cli} status"
        parts.append(f"and {tail}" if parts else f"skillopt-sleep: {tail}")
    return "; ".join(parts) if parts else None


def render(line: str, agent: str) -> str:
    """What the hook prints. Claude Code adds a SessionStart hook's plain stdout to the model's
    context, where the user never sees it; a JSON ``systemMessage`` is shown to the user (and
    not given to the model, which has nothing to do with it). Codex takes the same JSON."""
    if agent == "text":
        return line + "\n"
    return json.dumps({"systemMessage": line}) + "\n"


# -- reading ---------------------------------------------------------------------------------


def read_findings(db: Path, project: str, now: datetime, timeout_s: float) -> Findings:
    """What waits for ``project`` in the store at ``db``, read-only; raises QUIET_ERRORS."""
    conn = _connect_readonly(db, timeout_s)
    try:
        staged = conn.execute(
            "SELECT summary FROM nights WHERE project = ? AND state = 'staged' "
            "ORDER BY started_at DESC, id DESC LIMIT 1",
            (project,),
        ).fetchone()
        newest = conn.execute(
            "SELECT started_at, decision, summary FROM nights WHERE project = ? "
            "ORDER BY started_at DESC, id DESC LIMIT 1",
            (project,),
        ).fetchone()
        last_run = conn.execute("SELECT value FROM meta WHERE key = 'schedule.last_run'").fetchone()
    finally:
        conn.close()
    pending = len(json.loads(staged[0]).get("edits") or []) if staged else None
    failure = _run_failure(last_run[0] if last_run else "", project, now)
    if failure is None and newest and newest[1] == "outage" and _recent(newest[0], now):
        failure = "the model could not be reached: " + str(json.loads(newest[2]).get("reason", ""))
    return Findings(pending, _short(failure) if failure else None)


def cut_short(paths: Paths, project: str) -> str | None:
    """The operation ("adopt" or "rollback") whose journal ``project`` still has, or None: an
    adoption or rollback a kill or a full disk cut short, which the next command repairs (the
    hook only reads). The journal is read as plain JSON (review/journal.py writes it)."""
    for path in (paths.journal_file(project), paths.legacy_journal):
        try:
            journal = json.loads(path.read_bytes())
        except FileNotFoundError:
            continue
        except (OSError, ValueError):
            return "adopt"  # torn: whatever it was, the files may be half written
        if isinstance(journal, dict) and journal.get("project") == project:
            return "rollback" if journal.get("op") == "rollback" else "adopt"
    return None


def _connect_readonly(db: Path, timeout_s: float) -> sqlite3.Connection:
    """As :func:`..store.connect.connect_readonly` (which imports the store's models): ``mode=ro``,
    then ``immutable=1`` where the WAL index files cannot be made (a read-only directory)."""
    if not db.is_file():
        raise FileNotFoundError(db)
    uri = db.resolve().as_uri()
    last: sqlite3.Error | None = None
    for flags in ("mode=ro", "mode=ro&immutable=1"):
        try:
            conn = sqlite3.connect(f"{uri}?{flags}", uri=True, timeout=max(timeout_s, 0.001))
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.Error as exc:
            last = exc
    raise last or sqlite3.DatabaseError(str(db))


def _run_failure(raw: str, project: str, now: datetime) -> str | None:
    """The failure of ``project`` in the last scheduled run (``schedule.last_run``), if recent."""
    if not raw:
        return None
    run = json.loads(raw)
    if not _recent(str(run.get("started_at", "")), now):
        return None
    for result in run.get("projects") or []:
        if result.get("project") == project and result.get("status") == "failed":
            return str(result.get("message") or "the night did not finish")
    return None


def _recent(stamp: str, now: datetime) -> bool:
    when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return now - when <= RECENT


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 1] + "…"


# -- once a day ------------------------------------------------------------------------------


def nudged_today(state: Mapping[str, str], project: str, today: date) -> bool:
    return state.get(project) == today.isoformat()


def remembered(state: Mapping[str, str], project: str, today: date) -> dict[str, str]:
    """``state`` with ``project`` nudged ``today``, and days older than KEEP_DAYS dropped."""
    oldest = (today - timedelta(days=KEEP_DAYS)).isoformat()
    kept = {p: d for p, d in state.items() if isinstance(d, str) and d >= oldest}
    kept[project] = today.isoformat()
    return kept


def load_state(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # none yet, or torn by a crash: at worst one nudge too many
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def save_state(path: Path, state: Mapping[str, str]) -> None:
    """Atomically (a temp file renamed over it): a reader sees the old file or the new one. No
    fsync: a file lost to a crash costs one nudge too many, an fsync costs every session start."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(state, fh, sort_keys=True)
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
        raise


# -- the hook --------------------------------------------------------------------------------


def hook_project(env: Mapping[str, str], stdin: TextIO, cwd: Path) -> str:
    """The session's project: the payload's ``cwd``, else Claude Code's CLAUDE_PROJECT_DIR, else
    the current directory; absolute and resolved, as `status` and `review` name it."""
    payload: object = {}
    if not stdin.isatty():  # typed by hand in a terminal: nothing to wait for
        text = stdin.read(MAX_PAYLOAD)
        payload = json.loads(text) if text.strip() else {}
    given = payload.get("cwd") if isinstance(payload, dict) else None
    raw = given if isinstance(given, str) and given else env.get("CLAUDE_PROJECT_DIR") or str(cwd)
    return str(Path(raw).expanduser().resolve())


def run_hook(
    *,
    env: Mapping[str, str],
    stdin: TextIO,
    stdout: TextIO,
    cwd: Path,
    agent: str = "text",
    budget_ms: int = BUDGET_MS,
    now: Callable[[], datetime] = lambda: datetime.now(timezone.utc),
    monotonic: Callable[[], float] = time.monotonic,
) -> int:
    """Print the nudge for the session's project, if any and not yet today; always returns 0."""
    deadline = monotonic() + budget_ms / 1000
    try:
        project = hook_project(env, stdin, cwd)
        paths = resolve_paths(env.get(HOME_ENV))
        moment = now()
        found = read_findings(paths.db, project, moment, deadline - monotonic())
        found = replace(found, cut_short=cut_short(paths, project))
        line = nudge_text(found, agent)
        if line is None:
            return 0
        state_path = paths.state_dir / STATE_FILE
        state = load_state(state_path)
        today = moment.astimezone().date()  # the user's day, not UTC's
        if nudged_today(state, project, today) or monotonic() > deadline:
            return 0
        save_state(state_path, remembered(state, project, today))  # unremembered: unsaid
    except QUIET_ERRORS:
        return 0
    _write(stdout, render(line, agent))
    return 0


def _write(stdout: TextIO, text: str) -> None:
    """Write and flush; a reader gone away is silence, and the interpreter's flush at exit must
    not fail on it again (status 120), so stdout then points at the null device."""
    try:
        stdout.write(text)
        stdout.flush()
    except (OSError, ValueError):
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
