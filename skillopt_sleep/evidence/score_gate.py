"""The evidence gate with its efficacy decided on scores: partial credit's power, the exactness kept.

The rollouts are drawn as the product's gate draws them (the same tasks, and looks of
:meth:`.trials.Trials._look`), each with its pass and its ``score``; a look follows while the
scores after are above those before and the edit is not yet decided. Where the edit should act,
the p-value of each look is then the stratified permutation test on the scores
(:mod:`.permutation`) over the rollouts that look had drawn, weighted-Bonferroni over the looks
taken (valid however the looks stopped: the schedule is fixed before any outcome), and the
round's edits share its level by Holm's step-down, as on passes. The unseen tasks of the kind
must show a gain of their own scores. Harm, conflicts and the evidence carried across nights stay
on the passes (:class:`.gate.EvidenceGate`), which is valid whatever the scores do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..models import EditEvidence, TaskRecord
from .exact import holm, holm_levels
from .gate import EvidenceGate
from .permutation import ScoreStratum, score_p
from .trials import Candidate, Trials
from .verdict import Seen, efficacy_verdict


@dataclass(frozen=True)
class ScoreGate(EvidenceGate):
    """:class:`.gate.EvidenceGate` whose efficacy test is on the rollouts' scores, not passes."""

    async def judge(self, trials: Trials, cands: Sequence[Candidate]) -> dict[str, EditEvidence]:
        """Each edit's efficacy where it acts, by its scores, at the round's level: looks taken
        while the scores after are above those before and the edit is not yet decided a pass."""
        alpha = trials.policy.round_alpha(cands[0].round)
        looks = len(trials.allocation.efficacy_steps)
        for look in range(1, looks + 1):
            active = [c for c in cands if not c.stopped]
            if not active:
                break
            await trials._look(active, look)
            decided = trials.allocation.passes_early(
                {c.key: _adjusted(trials, c) for c in cands},
                alpha,
                lambda key: _unseen_ok(trials, next(c for c in cands if c.key == key)),
            )
            for c in active:
                if c.key in decided or (look < looks and not _gained(trials, c)):
                    c.stopped = True  # decided: a clear pass, or no sign of a gain
        _save_unneeded(trials, cands, looks)
        adjusted = {c.key: _adjusted(trials, c) for c in cands}
        passed, levels = holm(adjusted, alpha), holm_levels(adjusted, alpha)
        return {
            c.key: _evidence(trials, c, adjusted[c.key], levels[c.key], c.key in passed)
            for c in cands
        }


def _evidence(
    trials: Trials, c: Candidate, p_adj: float, level: float, passed: bool
) -> EditEvidence:
    """``c``'s evidence as the product's gate writes it (counts of passes, e-values), its p-values
    and verdict from the scores."""
    ev = trials._efficacy_evidence(c, p_adj, level, passed)
    counted = trials._counted(c, c.efficacy_tasks)
    p_unseen = score_p(_scores(trials, c, c.unseen, c.looks)) if c.unseen else None
    seen = Seen(
        [s for s, _ in counted],
        sum(e for _, e in counted),
        p_adj,
        p_unseen,
        level,
        passed,
        trials.log_evidence(c),
    )
    return efficacy_verdict(ev.model_copy(update={"p_unseen": p_unseen}), seen, trials.policy)


def _gained(trials: Trials, c: Candidate) -> bool:
    """Whether the mean score after is above the mean before, where the edit acts."""
    strata = [(b, a) for b, a in _scores(trials, c, c.efficacy_tasks, c.looks) if b and a]
    before = [x for b, _ in strata for x in b]
    after = [x for _, a in strata for x in a]
    return bool(before and after) and sum(after) * len(before) > sum(before) * len(after)


def _unseen_ok(trials: Trials, c: Candidate) -> bool:
    """The unseen tasks of the kind show a gain of their own (or there are none)."""
    return not c.unseen or (
        score_p(_scores(trials, c, c.unseen, c.looks)) <= trials.policy.unseen_alpha
    )


def _save_unneeded(trials: Trials, cands: Sequence[Candidate], looks: int) -> None:
    """The after-rollouts the looks not taken would have drawn, counted as saved."""
    for c in cands:
        unseen = {t.id for t in c.unseen}
        for t in c.efficacy_tasks:
            trials.spend.save(
                "unseen" if t.id in unseen else "efficacy",
                c.drawn_at(t.id, looks) - c.drawn_at(t.id, c.looks),
            )


def _scores(
    trials: Trials, c: Candidate, tasks: Sequence[TaskRecord], look: int
) -> list[ScoreStratum]:
    """Each task's scores before and after ``c`` as drawn by the end of look ``look`` (errored
    rollouts left out: an outage is no evidence)."""
    out: list[ScoreStratum] = []
    for t in tasks:
        upto = c.drawn_at(t.id, look)
        before = trials.baseline.take(t.id, 0, upto)
        after = [r for r in c.after.get(t.id, []) if r.sample < upto]
        out.append(
            (
                [r.score for r in before if r.score is not None],
                [r.score for r in after if r.score is not None],
            )
        )
    return out


def _adjusted(trials: Trials, c: Candidate) -> float:
    """The efficacy p-value on scores, weighted-Bonferroni over the looks ``c`` took."""
    weights = trials.allocation.efficacy_weights
    looks = [
        score_p(_scores(trials, c, c.efficacy_tasks, look)) / weights[look - 1]
        for look in range(1, c.looks + 1)
    ]
    return min([1.0, *looks])
