"""The last nights of a project as ``run --estimate`` reads them: which nights, what the optimizer
is expected to propose, and the most edits a round."""

from __future__ import annotations

from collections.abc import Sequence

from ..models import NightSummary
from ..rules.workspace import Workspace
from ..settings import Settings
from ..store import Store
from .rehearsal import Proposals


def last_nights(ws: Workspace, store: Store | None, tested: bool = True) -> list[NightSummary]:
    """This project's last nights (with ``tested``, those that proposed and tested edits; a dry
    run does as a night does)."""
    nights = store.nights(project=str(ws.project), limit=5) if store else []
    return [n.summary for n in nights if n.summary.evidence or not tested]


def proposals(nights: Sequence[NightSummary]) -> Proposals:
    """What the optimizer is expected to propose, from this project's last nights (the defaults of
    :class:`Proposals` before any): the share of its rules that passed efficacy, and how often a
    round brought a rule that did not."""
    tested = [e for s in nights for e in s.evidence]
    if not tested:
        return Proposals()
    helped = sum(e.verdict not in ("no_effect", "worse", "inconclusive") for e in tested)
    rounds = sum(max(e.round for e in s.evidence) for s in nights)
    return Proposals(
        helpful=max(0.2, min(0.9, 2 * helped / len(tested))),
        off_target=min(1.0, (len(tested) - helped) / rounds / 2),
    )


def most_edits(settings: Settings, nights: Sequence[NightSummary]) -> int:
    """Edits a round at most: a rule for each case shown, and two more, or the most a last night
    tested."""
    cases = settings.night.reflect_tasks
    return max(cases + 2, *(len(s.evidence) for s in nights)) if nights else cases + 2
