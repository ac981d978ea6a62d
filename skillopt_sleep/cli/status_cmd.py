"""Command: status — the running night, the nights so far, the pending proposal, and failures
to look at; ``status --watch`` follows a running night to its end."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from ..errors import ConfigError, StoreError
from ..harvest import problems as harvest_problems
from ..models import unconfirmed_words
from ..optimize.waiting import load_waiting, still_needs
from ..review.edit_choice import load_decisions, night_words
from ..review.rule_views import RuleView, flagged_lines, project_views
from ..schedule.attendance import last_night_line, slots, warnings
from ..schedule.state import load_installation, load_runs
from ..shorten import at_word
from ..store import NightRow, Notice, Store
from .common import add_project_flag
from .context import Ctx
from .heartbeat import heartbeat_file
from .hook_log import mark_shown, unshown_failures
from .running_night import Watch, current, night_lines, night_payload, summary_line

LAUNCHER_NOTICES = "launcher-notices.txt"  # written by plugins/*/skillopt-sleep (the launcher)


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser("status", parents=[common], help="nights so far, pending proposal, notices")
    add_project_flag(p)
    p.add_argument("--all-projects", action="store_true", help="every project, not just this one")
    p.add_argument(
        "-n", "--limit", type=int, default=10, help="how many nights to show (default 10)"
    )
    p.add_argument(
        "--watch",
        action="store_true",
        help="follow the running night until it ends (Ctrl-C stops watching, not the night)",
    )
    p.add_argument(
        "--interval",
        type=_seconds,
        default=1.0,
        metavar="S",
        help="seconds between refreshes under --watch (default 1)",
    )
    p.set_defaults(func=status, shows_repairs=True)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.05 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"needs seconds between 0.05 and 3600, not {text!r}")
    return value


def config_problem(ctx: Ctx, project: Path | None) -> str | None:
    """The config error a night of ``project`` would stop on, in one line (None: it loads)."""
    try:
        ctx.settings(project)
    except ConfigError as exc:
        return exc.one_line()
    return None


def _night_row(row: NightRow, words: str) -> str:
    """One night in the list; ``words`` is its state as review says it (``partly adopted ...``)."""
    s = row.summary
    edits = f"  edits {s.tally.line()}" if s.evidence else ""
    state = "" if row.state in ("none",) else f" [{words}]"
    saved = s.usage.saved_usd
    saving = f" (saved ${saved:.4f})" if saved > 0 else ""
    return (
        f"{row.started_at[:16].replace('T', ' ')}  {s.decision:<16} "
        f"{s.calls:>5} calls {s.tokens:>8} tok {s.spent_usd()}{saving}{state}{edits}"
    )


def _night_json(n: NightRow) -> dict[str, object]:
    return dict(
        n.summary.model_dump(mode="json"),
        state=n.state,
        saved_usd=round(n.summary.usage.saved_usd, 6),
    )


def _alerts(ctx: Ctx, project: Path | None, payload: dict[str, object]) -> list[str]:
    """What `status` says first: a broken config, and the night running (or stopped half way);
    added to ``payload`` as ``config_error`` and ``running_night``."""
    running = current(heartbeat_file(ctx.read_paths.state_dir))
    payload["running_night"] = None if running is None else night_payload(*running)
    payload["config_error"] = broken = config_problem(ctx, project)
    lines = [] if broken is None else [f"! config: {broken}"]
    return lines + ([] if running is None else night_lines(*running, ctx.clock.now()))


def _last_night(nights: list[NightRow], words: dict[str, str], now: datetime) -> list[str]:
    """When the last night ran and what came of it, in review's words when its state alone
    does not say it (``partly adopted (edit 2 of 3)``)."""
    if not nights:
        return []
    last = nights[0]
    said = words[last.id]
    return [last_night_line(nights, now, None if said == last.state.replace("_", " ") else said)]


def notice_line(n: Notice) -> str:
    return f"! {n.created_at[:16].replace('T', ' ')} {n.kind}: {n.message}"


def _waiting(
    store: Store, project: str | None, payload: dict[str, object], live: Sequence[RuleView] = ()
) -> list[str]:
    """The unconfirmed edits waiting for evidence, each with the tasks it still needs, counted on
    the log as it is now; added to ``payload`` as ``waiting`` (each with ``live``: adopted on the
    user's word, it is in the files). Those ``live`` (the project's adopted rules) holds are
    listed apart: a night does not retest a rule the files already have."""
    found = load_waiting(store, project) if project is not None else []
    if found:  # an edit rejected since is not retested: the next night leaves it out too
        refused = {e.key() for e in store.rejected_edits(str(project))}
        found = [w for w in found if w.edit.key() not in refused]
    tasks = store.list_tasks(project=project) if found else []
    rows = [(w, still_needs(w, tasks)) for w in found]
    adopted = {
        v.rule.edit.key()
        for v in live
        if v.rule.state == "adopted" and v.standing != "removed by hand"
    }
    payload["waiting"] = [
        w.model_dump(mode="json") | {"needs": needs, "live": w.edit.key() in adopted}
        for w, needs in rows
    ]
    lines = []
    waits = [(w, needs) for w, needs in rows if w.edit.key() not in adopted]
    if waits:
        lines.append(
            "waiting for evidence (unconfirmed edits; a night that has it retests them first):"
        )
    for w, needs in waits:
        more = f"a confirmed rule needs {needs}" if needs else "its evidence is logged now"
        lines.append(f"  {at_word(w.edit.content, 80)!r}: {unconfirmed_words(w.missing)}; {more}")
    early = [w for w, _ in rows if w.edit.key() in adopted]
    if early:
        lines.append(
            "adopted on your word before all checks ran (live; a night does not retest a rule "
            "the files have: `skillopt-sleep rules` shows how each does):"
        )
    lines += [f"  {at_word(w.edit.content, 80)!r}: {unconfirmed_words(w.missing)}" for w in early]
    return lines


def status(args: argparse.Namespace, ctx: Ctx) -> int:
    if args.watch:
        return Watch(ctx, heartbeat_file(ctx.read_paths.state_dir), args.interval).run()
    project_dir = None if args.all_projects else ctx.existing_project(args.project)
    project = None if project_dir is None else str(project_dir)
    _, unfinished = ctx.repaired  # an interrupted adoption: its notice is shown below
    store = ctx.read_store
    # only what is shown is read: a count, the nights listed, the one pending proposal
    nights = store.nights(project=project, limit=args.limit)
    pending = next(iter(store.nights(project=project, limit=1, state="staged")), None)
    notices = store.notices(unseen_only=True) + launcher_notices(ctx.read_paths.state_dir)
    notices += unshown_failures(ctx.read_paths.log_dir, store)
    tasks = store.count_tasks(project)
    payload: dict[str, object] = {
        "project": project,
        "tasks": tasks,
        "nights": [_night_json(n) for n in nights],
        "pending": None
        if pending is None
        else {
            "night_id": pending.id,
            "proposal_dir": pending.proposal_dir,
            "summary": pending.summary.model_dump(mode="json"),
        },
        "notices": [n.__dict__ for n in notices],
        "unfinished": unfinished,
    }
    alerts = _alerts(ctx, project_dir, payload)
    found = project_views(store, project) if project is not None else []
    now = ctx.clock.now()
    installed = load_installation(store)
    schedule = slots(installed, load_runs(store), now) if installed is not None else []
    words = {n.id: night_words(n, load_decisions(store, n.id)) for n in nights}
    attendance = _last_night(nights, words, now)
    attendance += warnings(nights, schedule)
    payload["schedule"] = [
        {"at": s.at.isoformat(), "status": s.status, "reason": s.reason} for s in schedule
    ]
    payload["rules"] = {"adopted": len(found), "flagged": [v.payload() for v in found if v.flagged]}
    harvest_skips = harvest_problems.load(store)
    payload["harvest_skips"] = harvest_skips
    lines = [f"project: {project or 'all'}  ({tasks} tasks logged)", *alerts]
    lines += [f"! {line}" for line in unfinished] + [notice_line(n) for n in notices]
    lines += harvest_problems.describe(harvest_skips)
    lines += flagged_lines(found, now)
    lines += [line for line in attendance if line]
    if nights:
        lines.append("nights (newest first):")
        lines += ["  " + _night_row(n, words[n.id]) for n in nights]
    else:
        lines.append("no nights yet: `skillopt-sleep run` (or `skillopt-sleep demo` to try it)")
    if pending is not None:
        lines.append(f"pending proposal: {summary_line(pending.summary)}")
        lines.append("  review it with `skillopt-sleep review`, then `adopt` or `reject`")
    lines += _waiting(store, project, payload, found)
    ctx.emit(payload, "\n".join(lines))
    if notices:
        _mark_seen(ctx, notices)
        _clear_launcher_notices(ctx.read_paths.state_dir)
    return 0


def launcher_notices(state_dir: Path) -> list[Notice]:
    """What the plugin launcher could not tell anyone at the time (it runs with no engine to
    write the store): one line each, ``<UTC time> <message>``."""
    try:
        lines = (state_dir / LAUNCHER_NOTICES).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    found = []
    for line in lines:
        stamp, _, message = line.partition(" ")
        if message.strip():
            found.append(Notice(-1, stamp, "launcher", message.strip(), False))
    return found


def _clear_launcher_notices(state_dir: Path) -> None:
    try:
        (state_dir / LAUNCHER_NOTICES).unlink()
    except OSError:
        pass  # a read-only sandbox: shown again next time


def _mark_seen(ctx: Ctx, shown: list[Notice]) -> None:
    """Shown notices are marked seen when the store may be written; a read-only sandbox keeps
    them for the next `status`, which is better than failing a command that only reads."""
    try:
        ctx.store.mark_notices_seen(n.id for n in shown if n.id >= 0)
        mark_shown(ctx.store, shown)
    except StoreError:
        pass
