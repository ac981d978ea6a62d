"""Commands: review, adopt, reject, rollback — the morning after a night.

What only adopt, reject and rollback use (the adoption and its backup, recomposing a subset of
edits with the guards, rewording, rule removal) is imported by them: every command's help
needs none of it, and `review` only the recomposing, once edits were rejected.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ProposalError, UsageError
from ..models import unconfirmed_words
from ..review.diff import colorize, wants_colour
from ..review.edit_choice import (
    EditDecisions,
    choose,
    edit_words,
    edits_phrase,
    load_decisions,
    night_words,
    numbered,
    parse_numbers,
    pending,
)
from ..review.proposals import (
    Staged,
    find_night,
    load_staged,
    reach_lines,
    reach_payload,
    reject,
)
from ..review.rebase import drift_lines
from ..review.report import describe_edit
from ..review.rule_views import flagged_lines, project_views
from ..store import NightRow
from .common import add_project_flag
from .context import Ctx
from .render import evidence_lines
from .terminal import printable

if TYPE_CHECKING:
    from ..review.adopt import Outcome
    from ..review.recompose import Subset


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    commands = (
        ("review", review_cmd, "show the pending proposal: its diff and its report"),
        (
            "adopt",
            adopt_cmd,
            "apply the pending proposal, or some of its edits, to the live files (with a backup)",
        ),
        (
            "reject",
            reject_cmd,
            "discard the pending proposal, or some of its edits; later nights will not retry them",
        ),
        ("rollback", rollback_cmd, "put the files back as they were before a night's adoption"),
    )
    for name, func, help_text in commands:
        p = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        if name in ("adopt", "reject"):
            _add_edit_args(p, name)
        else:
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


def _add_edit_args(p: argparse.ArgumentParser, name: str) -> None:
    p.add_argument(
        "items",
        nargs="*",
        metavar="NIGHT_OR_EDIT",
        help="a night id or a unique prefix of one (default: the pending proposal), and the "
        f"numbers of the edits to {name} as `review` lists them (default: every staged edit)",
    )
    if name == "adopt":
        p.add_argument(
            "--except",
            dest="excepted",
            nargs="+",
            default=[],
            metavar="N",
            help="adopt every staged edit but these",
        )
        p.add_argument(
            "--edit",
            dest="reword",
            action="append",
            default=[],
            metavar="N",
            help="reword edit N in $EDITOR (else $VISUAL) before adopting it",
        )


def _night_and_numbers(args: argparse.Namespace) -> list[int]:
    """Split ``adopt``/``reject``'s words into the night (``args.night``) and edit numbers: a
    number of up to four digits is an edit, anything else the night."""
    nights = [w for w in args.items if not (w.isdigit() and len(w) <= 4)]
    if len(nights) > 1:
        raise UsageError(
            f"give one night, not {len(nights)} ({', '.join(nights)})",
            hint="edits are named by their numbers in `skillopt-sleep review`",
        )
    args.night = nights[0] if nights else None
    return parse_numbers([w for w in args.items if w not in nights])


def _project(args: argparse.Namespace, ctx: Ctx) -> str:
    return str(ctx.project(args.project))


def _row(args: argparse.Namespace, ctx: Ctx, states: tuple[str, ...], verb: str) -> NightRow:
    """The night the command is about, once an interrupted adoption was undone or finished."""
    ctx.finish_interrupted()  # said once: cli.main has done it before any command
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
    report = staged.directory / "report.md"
    changed = drift_lines(staged) if row.state == "staged" else []
    decisions = load_decisions(ctx.read_store, row.id)
    diffs, left_out = _diffs_to_adopt(ctx, row, staged, decisions)
    words = edit_words(row, decisions)
    payload = dict(
        row.summary.model_dump(mode="json"),
        state=row.state,
        review_state=night_words(row, decisions),
        numbered_edits=[
            {
                "number": n,
                "state": words[n - 1],
                "edit": e.model_dump(mode="json"),
                "reworded_as": decisions.reworded.get(n),
            }
            for n, e in numbered(row)
        ],
        diffs=diffs,
        report=str(report),
        report_html=str(staged.directory / "report.html"),
        live_changes=changed,
        reaches=reach_payload(staged.proposal.files),
    )
    colour = wants_colour(ctx.out, ctx.env, args.color)
    scores = evidence_lines(row.summary)
    lines = [
        f"night {row.id} [{night_words(row, decisions)}]  project {row.project}",
        *scores,
        f"decision: {row.summary.decision.upper()} — {row.summary.reason}",
        *reach_lines(staged.proposal.files),
        *_numbered_lines(row, words, decisions.reworded),
        *(f"note: {line}" for line in changed),
        *([f"note: {left_out}"] if left_out else []),
    ]
    lines = [printable(line) for line in lines]
    for diff in diffs.values():
        shown = printable(diff)
        lines += ["", colorize(shown).rstrip("\n") if colour else shown.rstrip("\n")]
    lines += flagged_lines(project_views(ctx.read_store, row.project), ctx.clock.now())
    lines += ["", printable(f"report: {report}")]
    if row.state == "staged":
        lines.append(
            "adopt it with `skillopt-sleep adopt`, or discard it with `skillopt-sleep reject`; "
            "`adopt 1 3`, `adopt --except 2`, `reject 2` and `adopt --edit 1` take single edits"
        )
    ctx.emit(payload, "\n".join(lines), escaped=True)
    return 0


def _diffs_to_adopt(
    ctx: Ctx, row: NightRow, staged: Staged, decisions: EditDecisions
) -> tuple[dict[str, str], str | None]:
    """The diffs of what ``adopt`` writes now, and a line saying what they leave out: the
    night's diffs, but once edits were rejected those of the edits still staged alone."""
    from ..review.recompose import subset_diffs

    kept = pending(row, decisions)
    if not decisions.rejected or not kept:
        return staged.diffs(), None
    gone = edits_phrase(sorted(decisions.rejected))
    try:
        files = ctx.settings(Path(row.project)).settings.files
        diffs = subset_diffs(staged, kept, files)
    except ProposalError as exc:
        return staged.diffs(), f"the diff is the night's, with {gone}: {exc.one_line()}"
    return diffs, f"the diff is what `adopt` writes now: without the rejected {gone}"


def _numbered_lines(row: NightRow, words: list[str], reworded: dict[int, str]) -> list[str]:
    """The night's edits by number, each with what became of it."""
    if not row.summary.edits:
        return []
    lines = ["edits:"]
    for n, edit in numbered(row):
        held = unconfirmed_words(row.summary.unconfirmed(edit))
        lines.append(printable(f"  {n}. [{words[n - 1]}] {describe_edit(edit)}"))
        lines += (
            [f"     {held}: not auto-adopted; adopt it yourself if you want it"] if held else []
        )
        if n in reworded:
            lines.append(printable(f"     in your words: {reworded[n]}"))
    return lines


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


def _subset(args: argparse.Namespace, ctx: Ctx, row: NightRow, wanted: list[int]) -> Subset | None:
    """The edits ``adopt`` takes (None: the whole night as staged), reworded where asked."""
    from ..review.recompose import recompose
    from .reword import reworded_text

    decisions = load_decisions(ctx.store, row.id)
    excepted, reword = parse_numbers(args.excepted), parse_numbers(args.reword)
    if not (wanted or excepted or reword or decisions.rejected):
        return None
    numbers = choose(row, decisions, wanted, excepted)
    for n in reword:
        choose(row, decisions, [n], ())  # a number that is no staged edit is named
        if n not in numbers:
            raise UsageError(
                f"edit {n} is not one of the edits to adopt ({', '.join(map(str, numbers))})",
                hint=f"add it: `skillopt-sleep adopt {' '.join(map(str, [*numbers, n]))} --edit {n}`",
            )
    reworded = {n: reworded_text(ctx, row, n) for n in dict.fromkeys(reword)}
    files = ctx.settings(Path(row.project)).settings.files
    return recompose(load_staged(row), numbers, reworded, files)


def adopt_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..review.adopt import adopt

    wanted = _night_and_numbers(args)
    row = _row(args, ctx, ("staged",), "adopt")
    subset = _subset(args, ctx, row, wanted)
    outcome = adopt(ctx.store, ctx.paths, row, ctx.clock, subset=subset)
    count = len(row.summary.edits)
    taken = subset.numbers if subset else [n for n, _ in numbered(row)]
    head = f"{edits_phrase(taken)} of night {row.id}" if subset else f"night {row.id}"
    lines = [f"adopted {head}:"]
    lines += [f"  {c.action} {c.live_path}" for c in outcome.files]
    for n, text in (subset.reworded if subset else {}).items():
        lines.append(f"edit {n} in your words: {text}")
    left = [n for n in pending(row, load_decisions(ctx.store, row.id)) if n not in taken]
    if left:
        lines.append(
            f"left out: {edits_phrase(left)} (not refused: a later night may propose "
            f"{'them' if len(left) > 1 else 'it'} again)"
        )
    lines += [f"note: {note}" for note in outcome.notes]
    lines += [
        f"note: edit {n} was {held}; adopted on your word (`skillopt-sleep rollback` undoes it)"
        for n, e in numbered(row)
        if n in taken and (held := unconfirmed_words(row.summary.unconfirmed(e)))
    ]
    lines.append(f"backup: {outcome.backup_dir}  (undo with `skillopt-sleep rollback {row.id}`)")
    payload = _outcome_payload(outcome) | {
        "edits": taken,
        "not_adopted": [n for n in range(1, count + 1) if n not in taken],
        "reworded": {str(n): t for n, t in (subset.reworded if subset else {}).items()},
        "unconfirmed": {
            str(n): gaps
            for n, e in numbered(row)
            if n in taken and (gaps := row.summary.unconfirmed(e))
        },
    }
    ctx.emit(payload, "\n".join(lines))
    return 0


def reject_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..review.pages import refresh_page

    wanted = _night_and_numbers(args)
    row = _row(args, ctx, ("staged",), "reject")
    decisions = load_decisions(ctx.store, row.id)
    numbers = choose(row, decisions, wanted, ()) if wanted else None
    edits = reject(ctx.store, row, numbers)
    note = refresh_page(ctx.store, row.id, ctx.settings(Path(row.project)).settings.files)
    fresh = ctx.store.night(row.id) or row
    still = pending(fresh, load_decisions(ctx.store, row.id))
    payload = {
        "night_id": row.id,
        "project": row.project,
        "state": fresh.state,
        "rejected_edits": [e.model_dump(mode="json") for e in edits],
        "rejected": numbers or [],
        "staged": still,
    }
    if numbers is None or not still:
        text = (
            f"rejected night {row.id}: nothing live changed; its {len(edits)} edit(s) will be "
            "shown to later nights as already tried"
        )
    else:
        text = (
            f"rejected {edits_phrase(numbers)} of night {row.id}: nothing live changed; later "
            f"nights will not propose {'them' if len(numbers) > 1 else 'it'} again\n"
            f"still staged: {edits_phrase(still)} (adopt with `skillopt-sleep adopt`)"
        )
    ctx.emit(payload, text + (f"\nnote: {note}" if note else ""))
    return 0


def rollback_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..review.adopt import rollback

    if args.rule:
        from .rules_cmd import remove_cmd

        if args.night:
            raise UsageError(
                "give a night or --rule, not both", hint="see `skillopt-sleep rollback --help`"
            )
        return remove_cmd(args, ctx)
    row = _row(args, ctx, ("adopted",), "rollback")
    files = ctx.settings(Path(row.project)).settings.files
    outcome = rollback(ctx.store, ctx.paths, row, ctx.clock, force=args.force, files=files)
    lines = [f"rolled back night {row.id}:"]
    lines += [
        f"  {'restored' if c.action == 'updated' else 'removed'} {c.live_path}"
        for c in outcome.files
    ]
    lines += [f"note: {note}" for note in outcome.notes]
    ctx.emit(_outcome_payload(outcome), "\n".join(lines))
    return 0
