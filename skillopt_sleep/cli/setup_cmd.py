"""Command: setup — install (or uninstall) the engine, the agent plugins and the schedule."""

from __future__ import annotations

import argparse
import textwrap
from typing import TYPE_CHECKING

from .context import Ctx

if TYPE_CHECKING:
    pass


EXAMPLE = (
    "example:\n  skillopt-sleep setup --dry-run --no-schedule\n"
    "  skillopt-sleep setup --uninstall --dry-run"
)


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    from ..setup.options import DESCRIPTION, add_options

    p = sub.add_parser(
        "setup",
        help="install or uninstall the engine, plugins and schedule",
        description=textwrap.fill(DESCRIPTION, 78),
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_options(p)
    p.set_defaults(func=setup)


def setup(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..setup.main import run
    from ..setup.options import options_from

    return run(options_from(args), env=ctx.env, out=ctx.out)
