"""Commands: config."""

from __future__ import annotations

from ._pending import register_pending


def register(sub, common) -> None:
    register_pending(sub, common, ['config'])
