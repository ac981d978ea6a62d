"""Flags shared by several commands.

The backends are imported only to fill the backend flags' values: importing the ``backends``
package loads its registry and the settings, which `log` (and most commands' start) never need.
"""

from __future__ import annotations

import argparse
from typing import Any


def at_least_one(text: str) -> int:
    """An ``int`` flag value of 1 or more (argparse names the flag when it is not)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def add_project_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--project", "-p", metavar="DIR", help="project directory (default: current)"
    )


def add_backend_flags(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("backend (sets target, optimizer and judge at once)")
    g.add_argument(
        "--backend", metavar="NAME", help="simulated, anthropic, openai, claude-code, codex"
    )
    g.add_argument("--model", metavar="M", help="model name for all roles")
    g.add_argument(
        "--base-url", metavar="URL", help="server URL (OpenAI-compatible servers, proxies)"
    )


def backend_flags(args: argparse.Namespace) -> dict[str, Any]:
    """``--backend/--model/--base-url`` as dotted settings keys for every role."""
    from ..backends.base import ROLES

    flags: dict[str, Any] = {}
    for role in ROLES:
        flags[f"roles.{role}.backend"] = getattr(args, "backend", None)
        flags[f"roles.{role}.model"] = getattr(args, "model", None)
        flags[f"roles.{role}.base_url"] = getattr(args, "base_url", None)
    return flags
