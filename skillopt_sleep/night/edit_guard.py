"""Tonight's guards: edits applied to tonight's files under the night's limits, refusals recorded."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..models import Edit
from ..rules.guards import EditOutcome, GuardLimits, apply_edits


class EditGuard:
    """Applies edits to ``files`` under ``limits``; each refused edit is appended to ``refused``,
    once (an optimizer may propose the same edit in several rounds of a night)."""

    def __init__(self, files: Mapping[str, str], limits: GuardLimits, refused: list[Edit]) -> None:
        self.files, self._limits, self.refused = files, limits, refused

    def guard(self, edits: Sequence[Edit], *, budget: int) -> EditOutcome:
        outcome = apply_edits(self.files, edits, budget=budget, limits=self._limits)
        known = {e.key() for e in self.refused}
        for edit in outcome.rejected:
            if edit.key() not in known:
                known.add(edit.key())
                self.refused.append(edit)
        return outcome

    def combine(self, edits: Sequence[Edit], *, budget: int) -> EditOutcome:
        return apply_edits(self.files, edits, budget=budget, limits=self._limits)

    def limits(self) -> GuardLimits:
        return self._limits
