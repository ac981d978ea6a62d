"""Commands: tasks add | import | list | show | rm — TaskRecords by hand."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from ..errors import InputError
from .common import add_project_flag
from .context import Ctx

if TYPE_CHECKING:
    from ..harvest.hand_written import (
        Defaults,
    )
    from ..models import TaskRecord, TurnNote
    from ..store import Store
    from ..store.preferences import Preference


OUTCOMES = ("success", "failure", "mixed", "unknown")


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser("tasks", help="add, import, list, show or remove tasks by hand")
    tasks = p.add_subparsers(
        dest="tasks_command", metavar="ACTION", required=True, parser_class=type(p)
    )

    _add_parser(tasks, common)

    imp = tasks.add_parser(
        "import", parents=[common], help="import a JSON array, JSON lines or TOML file"
    )
    imp.add_argument("file", type=Path, metavar="FILE")
    add_project_flag(imp)
    imp.set_defaults(func=import_cmd)

    _list_parser(tasks, common)

    for name, func, help_text in (
        ("show", show_cmd, "show one task"),
        ("rm", rm_cmd, "remove one task"),
    ):
        q = tasks.add_parser(name, parents=[common], help=help_text)
        q.add_argument("id", metavar="ID", help="task id or a unique prefix of it")
        q.set_defaults(func=func)


def _add_parser(
    tasks: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    add = tasks.add_parser(
        "add", parents=[common], help="add one task (flags) or the tasks of a file"
    )
    add_project_flag(add)
    add.add_argument("--intent", help="what the user asked for")
    add.add_argument(
        "--check",
        action="append",
        default=[],
        metavar="KIND=VALUE",
        help="a check that scores a replay (repeatable): contains=, not_contains=, regex=, "
        "starts_with=, max_chars=N, json_valid, heading=, equals=, rubric=",
    )
    add.add_argument("--feedback", default="", help="what the user said about the answer")
    add.add_argument("--outcome", choices=OUTCOMES, default="unknown")
    add.add_argument("--context", default="", help="a short excerpt the replay needs")
    add.add_argument("--attempt", default="", help="what the agent answered")
    add.add_argument("--tag", action="append", default=[], help="a tag (repeatable)")
    add.add_argument(
        "--file", type=Path, metavar="FILE", help="a JSON or TOML file of tasks instead of flags"
    )
    add.set_defaults(func=add_cmd)


def _list_parser(
    tasks: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    ls = tasks.add_parser("list", parents=[common], help="list the tasks of a project")
    add_project_flag(ls)
    ls.add_argument("--all-projects", action="store_true", help="every project, not just this one")
    ls.add_argument(
        "-n",
        "--limit",
        type=_count,
        default=50,
        metavar="N",
        help="show N tasks (default 50; 0 for all)",
    )
    ls.add_argument(
        "--offset",
        type=_count,
        default=0,
        metavar="K",
        help="skip the first K tasks (oldest first)",
    )
    ls.set_defaults(func=list_cmd)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"needs a whole number of 0 or more, not {text!r}")
    return value


def _defaults(args: argparse.Namespace, ctx: Ctx, source: str) -> Defaults:
    # tasks of a project that does not exist would never run: refused before anything is stored
    from ..harvest.hand_written import Defaults

    project = ctx.existing_project(args.project)
    return Defaults(project=str(project), now=ctx.clock.now(), source=source)


def _store(records: list[TaskRecord], ctx: Ctx, what: str) -> int:
    for number, r in enumerate(records, start=1):
        held = ctx.store.get_task(r.id)
        if held is not None and held.project != r.project:
            raise InputError(
                f"{what}: record {number} has the id {r.id} of a task of {held.project}; "
                "storing it would move that task",
                hint="drop its `id` field, or import it with --project " + held.project,
            )
    new, updated = ctx.store.upsert_tasks(records, ctx.clock.now())
    lines = [f"{what}: {new} new, {updated} updated"]
    lines += [f"  {r.id}  {_short(r.intent)}" for r in records[:20]]
    if len(records) > 20:
        lines.append(f"  ... and {len(records) - 20} more")
    ctx.emit({"new": new, "updated": updated, "ids": [r.id for r in records]}, "\n".join(lines))
    return 0


def add_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..harvest.hand_written import make_record, parse_check, read_records, record_error
    from ..harvest.jsonl import without_surrogates

    if args.file is not None:
        if args.intent or args.check:
            raise InputError("give either --file or --intent/--check, not both")
        return _store(
            read_records(args.file, _defaults(args, ctx, "manual")), ctx, f"added from {args.file}"
        )
    if not args.intent or not args.intent.strip():
        raise InputError(
            "a task needs --intent", hint='for example: tasks add --intent "Write the README"'
        )
    checks = [parse_check(without_surrogates(spec)) for spec in args.check]
    fields = {
        "intent": args.intent,
        "checks": checks,
        "feedback": args.feedback,
        "outcome": args.outcome,
        "context": args.context,
        "attempt": args.attempt,
        "tags": args.tag,
    }
    try:
        record = make_record(fields, _defaults(args, ctx, "manual"))
    except ValidationError as exc:
        raise record_error("the task", exc) from exc
    return _store([record], ctx, "added")


def import_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..harvest.hand_written import read_records

    records = read_records(args.file, _defaults(args, ctx, "import"))
    return _store(records, ctx, f"imported {args.file}")


def _short(text: str, width: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _turn_line(t: TurnNote) -> str:
    kind = t.kind.replace("_", "-")
    if t.unsure:
        return f"    {kind + '?':<12}{_short(t.text, 80)}  (unsure: {t.reason})"
    return f"    {kind:<12}{_short(t.text, 88)}"


def _brief(r: TaskRecord) -> list[str]:
    from ..harvest.check_miner import plain

    head = f"{r.id}  {r.created_at:%Y-%m-%d %H:%M}  {r.source}  {r.outcome}"
    if "unsure-request" in r.tags:
        head += "  (unsure: read as a request without a clear cue)"
    lines = [head, f"  intent:   {_short(r.intent)}"]
    if r.turns:
        lines.append("  turns:")
        lines += [_turn_line(t) for t in r.turns]
    elif r.feedback:
        lines.append(f"  feedback: {_short(r.feedback)}")
    lines.append("  checks:   " + ("; ".join(plain(c) for c in r.checks) if r.checks else "none"))
    if r.occurrences > 1:
        last = r.last_seen_at or r.created_at
        lines.append(f"  seen:     {r.occurrences} times, last {last:%Y-%m-%d %H:%M}")
    return lines


def _preference_lines(prefs: list[Preference]) -> list[str]:
    """The corrections seen more than once: the user's standing preferences."""
    lines = [f"preferences (a correction made again strengthens one): {len(prefs)}"]
    for p in prefs:
        what = "; ".join(p.checks) if p.checks else "rubric from the words"
        lines.append(f"  x{p.count}  {_short(p.statement, 70)}")
        lines.append(
            f"       first {p.first_seen[:16].replace('T', ' ')}, last "
            f"{p.last_seen[:16].replace('T', ' ')}; {', '.join(p.sources)}; {what}"
        )
    return lines


def list_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    """One page of tasks (oldest first): only that page is read from the store."""
    project = None if args.all_projects else str(ctx.project(args.project))
    store = ctx.read_store
    total = store.count_tasks(project)
    records = store.list_tasks(project=project, limit=args.limit or None, offset=args.offset)
    where = "any project" if project is None else project
    if not total:
        text = f"no tasks for {where}: add one with `skillopt-sleep tasks add --intent ...`"
    elif not records:
        text = f"no tasks past {args.offset}: {total} task(s) for {where}"
    else:
        text = "\n".join(line for r in records for line in _brief(r))
        first, last = args.offset + 1, args.offset + len(records)
        shown = f"{total} task(s)" if len(records) == total else f"tasks {first}-{last} of {total}"
        text += f"\n{shown}" + ("" if project is None else f" for {project}")
        if last < total:
            text += f"; next page: --offset {last}"
        prefs = [p for p in store.preferences(project) if p.count > 1]
        if prefs:
            text += "\n" + "\n".join(_preference_lines(prefs))
    ctx.emit(records, text)
    return 0


def find_task(store: Store, prefix: str) -> TaskRecord:
    """The task whose id is ``prefix`` or starts with it."""
    exact = store.get_task(prefix)
    if exact is not None:
        return exact
    matches = store.tasks_with_prefix(prefix) if prefix else []
    if not matches:
        raise InputError(
            f"no task {prefix!r}", hint="see `skillopt-sleep tasks list --all-projects`"
        )
    if len(matches) > 1:
        raise InputError(f"{prefix!r} matches more than one task", hint="give more of the id")
    return matches[0]


def show_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..harvest.check_miner import plain

    r = find_task(ctx.read_store, args.id)
    lines = [
        f"id:        {r.id}",
        f"project:   {r.project}",
        f"source:    {r.source} (session {r.session_id})",
        f"created:   {r.created_at.isoformat()}",
        f"outcome:   {r.outcome}",
        f"intent:    {r.intent}",
    ]
    for label, value in (("context", r.context), ("attempt", r.attempt), ("feedback", r.feedback)):
        if value:
            lines.append(f"{label + ':':<10} {value}")
    if r.turns:
        lines.append("turns:")
        lines += [_turn_line(t) for t in r.turns]
    lines.append("checks:" + ("" if r.checks else "    none"))
    lines += [
        f"  - {plain(c)}"
        + ("" if c.weight == 1 else f" (weight {c.weight:g})")
        + (f" (held against the user's example: {c.held_against})" if c.held_against else "")
        for c in r.checks
    ]
    for label, items in (("tags", r.tags), ("skills", r.skills_used), ("tools", r.tools_used)):
        if items:
            lines.append(f"{label + ':':<10} {', '.join(items)}")
    ctx.emit(r, "\n".join(lines))
    return 0


def rm_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    r = find_task(ctx.store, args.id)
    ctx.store.delete_task(r.id)
    ctx.emit({"removed": r.id}, f"removed {r.id}  {_short(r.intent)}")
    return 0
