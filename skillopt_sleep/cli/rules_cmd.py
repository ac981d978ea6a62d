"""Command: rules — the adopted rules, whether each helped, and removing one."""

from __future__ import annotations

import argparse

from ..review.ledger import find_rule
from ..review.rule_removal import Removal, remove_rule
from ..review.rule_views import project_views
from .common import add_project_flag
from .context import Ctx
from .terminal import printable

EPILOG = """examples:
  skillopt-sleep rules                 # every adopted rule of this project and whether it helped
  skillopt-sleep rules --json          # the same as one JSON document
  skillopt-sleep rules remove r1a2b    # take one rule out of every file it was written to
"""


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("rules", parents=[common], help="adopted rules, whether each helped; remove one",
                       description="The rules adopted so far: where each stands in its files, how often "
                                   "you corrected its kind of request before and since, and a verdict.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_project_flag(p)
    p.set_defaults(func=rules_cmd, rule_action=None)
    actions = p.add_subparsers(dest="rule_action", metavar="ACTION")
    rm = actions.add_parser("remove", parents=[common], help="remove one rule from every file it was written to")
    rm.add_argument("rule", metavar="ID", help="rule id or a unique prefix (see `skillopt-sleep rules`)")
    add_project_flag(rm)
    rm.set_defaults(func=remove_cmd)


def rules_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    project = str(ctx.project(args.project))
    found = project_views(ctx.read_store, project)
    payload = {"project": project, "rules": [v.payload() for v in found]}
    if not found:
        text = "no adopted rules yet: they appear here once you `skillopt-sleep adopt` a night"
    else:
        text = "\n".join([f"{len(found)} adopted rule(s) in {project}:", *(printable(v.line()) for v in found)])
    ctx.emit(payload, text)
    return 0


def removal_text(done: Removal) -> str:
    lines = [f"removed rule {done.rule.id} ({done.rule.text}):"]
    lines += [f"  updated {path}" for path in done.files]
    lines.append(f"backup: {done.backup_dir}  (later nights will not propose it again)")
    return "\n".join(lines)


def remove_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    project = str(ctx.project(args.project))
    rule = find_rule(ctx.store, project, args.rule)
    done = remove_rule(ctx.store, ctx.paths, rule, ctx.clock.now())
    ctx.emit({"removed": rule.id, "text": rule.text, "files": done.files, "backup_dir": done.backup_dir},
             printable(removal_text(done)))
    return 0
