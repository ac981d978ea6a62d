"""Registers commands that are not built yet, so the CLI lists them and says so plainly."""

from __future__ import annotations

import argparse

from ..errors import UsageError


def register_pending(sub: argparse._SubParsersAction, common: argparse.ArgumentParser,
                     names: list[str]) -> None:
    for name in names:
        p = sub.add_parser(name, parents=[common], help=f"{name} (not built yet)")
        p.add_argument("rest", nargs=argparse.REMAINDER)
        p.set_defaults(func=_pending(name))


def _pending(name: str):
    def handler(args, ctx) -> int:
        raise UsageError(f"`{name}` is not built yet in this version")
    return handler
