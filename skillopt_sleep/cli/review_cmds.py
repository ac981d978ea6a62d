"""Commands: review, adopt, reject, rollback — the morning after a night."""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import UsageError
from ..review.adopt import Outcome, adopt, rollback
from ..review.diff import colorize, wants_colour
from ..review.proposals import find_night, load_staged, reject
from ..review.rebase import drift_lines
from ..review.rule_views import flagged_lines, project_views
from ..store import NightRow
from .common import add_project_flag
from .context import Ctx
from .render import evidence_lines
from .repair import repair_interrupted
from .rules_cmd import remove_cmd
from .terminal import printable


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    commands = (
        ("review", review_cmd, "show the pending proposal: its diff and its report"),
        ("adopt", adopt_cmd, "apply the pending proposal to the live files (with a backup)"),
        (
            "reject",
            reject_cmd,
            "discard the pending proposal; later nights will not retry its edits",
        ),
        ("rollback", rollback_cmd, "put the files back as they were before a night's adoption"),
    )
    for name, func, help_text in commands:
        p = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        p.add_argument(
            "night",
            nargs="?",
            metavar="NIGHT",
            help="night id or a unique prefix (default: the latest one that applies)",
        )
        add_project_flag(p)
        if name == "review":
            p.add_argument(
                "--color",
                choices=["auto", "always", "never"],
                default="auto",
                help="colour the diff (default: on a terminal)",
            )
        if name == "rollback":
            p.add_argument(
                "--force",
                action="store_true",
                help="restore even if a file changed after adoption (its current text is kept "
                "in the backup)",
            )
            p.add_argument(
                "--rule",
                metavar="ID",
                help="take out one adopted rule instead of a whole night (as `rules remove ID`)",
            )
        p.set_defaults(func=func)


def _project(args: argparse.Namespace, ctx: Ctx) -> str:
    return str(ctx.project(args.project))


def _row(args: argparse.Namespace, ctx: Ctx, states: tuple[str, ...], verb: str) -> NightRow:
    """The night the command is about, once an interrupted adoption was undone or finished."""
    repaired = repair_interrupted(ctx)
    if repaired:
        ctx.say(f"note: {repaired}")
    store = ctx.read_store if verb == "review" else ctx.store
    return find_night(store, args.night, project=_project(args, ctx), states=states, verb=verb)


def review_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    states = (
        ("staged",)
        if args.night is None
        else ("staged", "adopted", "rejected", "rolled_back", "superseded")
    )
    row = _row(args, ctx, states, "review")
    staged = load_staged(row)
    diffs = staged.diffs()
    report = staged.directory / "report.md"
    changed = drift_lines(staged) if row.state == "staged" else []
    payload = dict(
        row.summary.model_dump(mode="json"),
        state=row.state,
        diffs=diffs,
        report=str(report),
        report_html=str(staged.directory / "report.html"),
        live_changes=changed,
    )
    colour = wants_colour(ctx.out, ctx.env, args.color)
    scores = evidence_lines(row.summary)
    lines = [
        f"night {row.id} [{row.state}]  project {row.project}",
        *scores,
        f"decision: {row.summary.decision.upper()} — {row.summary.reason}",
        *(f"note: {line}" for line in changed),
    ]
    lines = [printable(line) for line in lines]
    for diff in diffs.values():
        shown = printable(diff)
        lines += ["", colorize(shown).rstrip("\n") if colour else shown.rstrip("\n")]
    lines += flagged_lines(project_views(ctx.read_store, row.project), ctx.clock.now())
    lines += ["", printable(f"report: {report}")]
    if row.state == "staged":
        lines.append(
            "adopt it with `skillopt-sleep adopt`, or discard it with `skillopt-sleep reject`"
        )
    ctx.emit(payload, "\n".join(lines), escaped=True)
    return 0


def _outcome_payload(outcome: Outcome) -> dict[str, Any]:
    return {
        "night_id": outcome.night_id,
        "project": outcome.project,
        "state": outcome.state,
        "backup_dir": outcome.backup_dir,
        "notes": outcome.notes,
        "files": [
            {"name": c.name, "live_path": c.live_path, "action": c.action} for c in outcome.files
        ],
    }


def adopt_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    row = _row(args, ctx, ("staged",), "adopt")
    outcome = adopt(ctx.store, ctx.paths, row, ctx.clock)
    lines = [f"adopted night {row.id}:"]
    lines += [f"  {c.action} {c.live_path}" for c in outcome.files]
    lines += [f"note: {note}" for note in outcome.notes]
    lines.append(f"backup: {outcome.backup_dir}  (undo with `skillopt-sleep rollback {row.id}`)")
    ctx.emit(_outcome_payload(outcome), "\n".join(lines))
    return 0


def reject_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    row = _row(args, ctx, ("staged",), "reject")
    edits = reject(ctx.store, row)
    payload = {
        "night_id": row.id,
        "project": row.project,
        "state": "rejected",
        "rejected_edits": [e.model_dump(mode="json") for e in edits],
    }
    text = (
        f"rejected night {row.id}: nothing live changed; its {len(edits)} edit(s) will be shown to "
        "later nights as already tried"
    )
    ctx.emit(payload, text)
    return 0


def rollback_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    if args.rule:
        if args.night:
            raise UsageError(
                "give a night or --rule, not both", hint="see `skillopt-sleep rollback --help`"
            )
        return remove_cmd(args, ctx)
    row = _row(args, ctx, ("adopted",), "rollback")
    outcome = rollback(ctx.store, ctx.paths, row, ctx.clock, force=args.force)
    lines = [f"rolled back night {row.id}:"]
    lines += [
        f"  {'restored' if c.action == 'updated' else 'removed'} {c.live_path}"
        for c in outcome.files
    ]
    ctx.emit(_outcome_payload(outcome), "\n".join(lines))
    return 0
