"""Where the gate's fresh rollouts went tonight, part by part, and what early stops saved."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .allocation import PARTS
from .pool import Draw, Want

if TYPE_CHECKING:
    from ..rollouts.replay import Rollout


@dataclass
class Spend:
    """Rollouts asked for, by part (:data:`.allocation.PARTS`), and rollouts the tests' early stops
    did not need, by part (what the full course of every test started would have drawn more)."""

    drawn: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PARTS, 0))
    saved: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PARTS, 0))
    sampled: list[tuple[int, int]] = field(default_factory=list)  # harm checks: (replayed, others)

    def counting(self, draw: Draw, part: str | None = None):  # type: ignore[no-untyped-def]
        """``draw`` that counts what it asks for: under ``part``, or the part its caller names
        (``part=``, or ``parts=`` by task id)."""

        async def counted(
            wants: list[Want],
            files: dict[str, str],
            nonce: str,
            *,
            part: str | None = part,
            parts: Mapping[str, str] | None = None,
        ) -> dict[str, list[Rollout]]:
            for task, _, count in wants:
                where = (parts or {}).get(task.id, part or "efficacy")
                self.drawn[where] += count
            return await draw(wants, files, nonce)

        return counted

    def save(self, part: str, rollouts: int) -> None:
        self.saved[part] += max(0, rollouts)

    @property
    def total(self) -> int:
        return sum(self.drawn.values())
