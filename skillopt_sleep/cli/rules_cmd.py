"""Commands: rules — the adopted rules, whether each helped, and removing one; report — the
project's history as one page."""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import StoreError
from .common import add_project_flag
from .context import Ctx
from .terminal import printable

if TYPE_CHECKING:
    from ..review.rule_removal import Removal


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    register_report(sub, common)
    p = sub.add_parser(
        "rules",
        parents=[common],
        help="adopted rules, whether each helped; remove one",
        description="The rules adopted so far: where each stands in its files, how often "
        "you corrected its kind of request before and since, and a verdict.",
    )
    add_project_flag(p)
    p.set_defaults(func=rules_cmd, rule_action=None)
    actions = p.add_subparsers(dest="rule_action", metavar="ACTION")
    rm = actions.add_parser(
        "remove", parents=[common], help="remove one rule from every file it was written to"
    )
    rm.add_argument(
        "rule", metavar="ID", help="rule id or a unique prefix (see `skillopt-sleep rules`)"
    )
    add_project_flag(rm)
    rm.set_defaults(func=remove_cmd)


def register_report(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "report",
        parents=[common],
        help="the project's nights and adopted rules as one page",
        description="Write history.html: nights over time (edits proposed, accepted, cost) "
        "and each adopted rule's corrections per week before and after adoption.",
    )
    add_project_flag(p)
    p.add_argument(
        "--out", metavar="FILE", help="where to write the page (default: in the state directory)"
    )
    p.set_defaults(func=report_cmd)


def report_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..review.pages import render_history
    from ..review.rule_views import project_views
    from ..store import atomic_write_text

    project = str(ctx.project(args.project))
    store = ctx.read_store
    nights = store.nights(project=project, limit=1000)
    found = project_views(store, project)
    digest = hashlib.sha256(project.encode()).hexdigest()[:10]
    out = Path(args.out) if args.out else ctx.read_paths.state_dir / f"history-{digest}.html"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(out, render_history(project, nights, found))
    except OSError as exc:
        raise StoreError(
            f"cannot write {out}: {exc.strerror}", hint="pass --out with a writable path"
        ) from exc
    payload = {
        "project": project,
        "path": str(out),
        "nights": len(nights),
        "rules": [v.payload() for v in found],
    }
    ctx.emit(
        payload,
        f"history of {project}: {len(nights)} night(s), {len(found)} adopted rule(s)\nreport: {out}",
    )
    return 0


def _room(project: Path, ctx: Ctx) -> list[dict[str, object]]:
    """Each instruction file's learned rules and size against the limits the user set."""
    from ..rules.managed_block import block_lines
    from ..rules.workspace import load_workspace

    files = ctx.settings(project).settings.files
    ws = load_workspace(project, files)
    return [
        {
            "file": name,
            "path": str(ws.paths[name]),
            "rules": len(block_lines(text)),
            "max_rules": files.max_rules,
            "bytes": len(text.encode("utf-8")),
            "max_bytes": files.max_bytes.get(name),
        }
        for name, text in ws.texts.items()
        if ws.existed.get(name)
    ]


def rules_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..review.rule_views import project_views

    project = ctx.project(args.project)
    found = project_views(ctx.read_store, str(project))
    room = _room(project, ctx)
    payload = {"project": str(project), "rules": [v.payload() for v in found], "files": room}
    if not found:
        lines = ["no adopted rules yet: they appear here once you `skillopt-sleep adopt` a night"]
    else:
        lines = [
            f"{len(found)} adopted rule(s) in {project}:",
            *(printable(v.line()) for v in found),
        ]
    for f in room:
        cap = f" of {f['max_bytes']:,}" if f["max_bytes"] else ""
        lines.append(
            f"{f['file']}: {f['rules']} of {f['max_rules']} learned rules, {f['bytes']:,}{cap} bytes "
            "([files] max_rules / max_bytes)"
        )
    ctx.emit(payload, "\n".join(lines))
    return 0


def removal_text(done: Removal) -> str:
    lines = [f"removed rule {done.rule.id} ({done.rule.text}):"]
    lines += [f"  updated {path}" for path in done.files]
    lines.append(f"backup: {done.backup_dir}  (later nights will not propose it again)")
    return "\n".join(lines)


def remove_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..review.ledger import find_rule
    from ..review.rule_removal import remove_rule

    project = str(ctx.project(args.project))
    rule = find_rule(ctx.store, project, args.rule)
    done = remove_rule(ctx.store, ctx.paths, rule, ctx.clock.now())
    ctx.emit(
        {"removed": rule.id, "text": rule.text, "files": done.files, "backup_dir": done.backup_dir},
        printable(removal_text(done)),
    )
    return 0
