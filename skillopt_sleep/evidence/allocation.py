"""How the edit-by-edit gate spends its rollouts: a strategy, chosen by ``night.allocation``.

Both strategies run the same tests at the same levels (:mod:`.trials`); they differ only in how
many fresh rollouts each look draws and where harm is checked.

- ``classic``: each efficacy test at ``efficacy_looks`` equal looks; every edit that passes
  efficacy checked for harm alone (``harm_rollouts`` per side and look, up to three looks while
  the pass rate fell), then the accepted edits together once (one harm look, and each edit's
  efficacy tasks redrawn in full under the joint files).
- ``lean``: efficacy looks that start small and grow (most comparisons are decided, one way or the
  other, by their first rollouts; a pass is decided as soon as Holm passes it on the looks so far
  and its unseen tasks show the gain); harm checked once, on the accepted edits *together* (the
  files the night would stage), on every task outside their efficacy sets; when that joint check
  sees harm and more than one edit is in it, each edit is checked alone (group testing: harm is
  rare, so one test usually clears all). A harm check's looks start at half a classic look and
  grow, and it stops once harm is *ruled out* rather than once the pass rate did not fall: an
  exact test of "the edit cuts the odds of a pass by ``harm_odds`` or more" rejected at
  ``harm_beta`` (:func:`.exact.p_odds_at_most`), so an edit that harms that much stops the check
  early with chance at most ``harm_beta``; one neither shown harmful nor ruled out by the last
  look (six times the first) is adopted, as under ``classic``. A check where nothing varies (each
  task passed, or failed, on both sides) stops at its first look, as ``classic`` does. Conflicts
  between accepted edits are looked for in two looks, the second only while the pass rate fell.

Every look's level is fixed in advance (weighted Bonferroni), so the tests stay exact whenever
they stop.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..counting import Counts
from .exact import Stratum, p_odds_at_most
from .policy import EvidencePolicy
from .pool import fell

Name = Literal["lean", "classic"]
PARTS = ("baseline", "efficacy", "unseen", "harm", "joint")  # where a night's fresh rollouts go


@dataclass(frozen=True)
class Allocation:
    """One way to spend the gate's rollouts (see the module docstring)."""

    name: Name
    efficacy_steps: tuple[int, ...]  # cumulative multiples of a task's unit, look by look
    efficacy_weights: tuple[float, ...]  # the share of the test's level each look spends
    pooled_harm: bool  # harm checked on the accepted edits together, singly only when it shows

    def efficacy_schedule(
        self, policy: EvidencePolicy, addressed: Sequence[str], unseen: Sequence[str]
    ) -> dict[str, tuple[int, ...]]:
        """Rollouts per side each task has by the end of each look (cumulative), so the looks
        together reach ``efficacy_rollouts`` per side over the efficacy tasks and at least
        ``unseen_rollouts`` over the unseen ones (whose test is their own). Fixed before any
        rollout is drawn, so every look's exact test is valid."""
        n, last = len(addressed) + len(unseen), self.efficacy_steps[-1]
        if self.name == "classic":
            unit = max(1, math.ceil(policy.efficacy_rollouts / (last * max(1, n))))
            m_unseen = max(unit, math.ceil(policy.unseen_rollouts / (last * max(1, len(unseen)))))
            return {
                t: tuple((m_unseen if t in unseen else unit) * s for s in self.efficacy_steps)
                for t in [*addressed, *unseen]
            }
        # lean: the looks' totals spread evenly over the tasks, the addressed ones first
        full = max(policy.efficacy_rollouts, n)
        totals = [max(len(addressed), math.ceil(full * s / last)) for s in self.efficacy_steps]
        order = [*addressed, *unseen]
        plan = {t: [total // n + (i < total % n) for total in totals] for i, t in enumerate(order)}
        # the unseen tasks carry their own test: raised, look by look, to reach unseen_rollouts
        each = math.ceil(policy.unseen_rollouts / max(1, len(unseen)))
        for t in unseen:
            plan[t] = [
                max(c, math.ceil(each * s / last))
                for c, s in zip(plan[t], self.efficacy_steps, strict=True)
            ]
        return {t: tuple(counts) for t, counts in plan.items()}

    def harm_steps(self, policy: EvidencePolicy, tasks: int) -> list[int]:
        """Cumulative rollouts per side over ``tasks`` tasks at each look of a harm check: classic,
        ``harm_rollouts`` a look (at least one a task) for up to three looks; lean, looks that start
        at half that and grow (1, 2, 3, 4, 6 times), as many as ``harm_looks`` allows."""
        if self.name == "classic":
            full = max(policy.harm_rollouts, tasks)
            return [full * look for look in range(1, min(policy.harm_looks, 3) + 1)]
        unit = max(math.ceil(policy.harm_rollouts / 2), tasks)
        return [unit * m for m in HARM_MULTIPLES[: policy.harm_looks]]

    def looks_again(
        self, policy: EvidencePolicy, strata: Sequence[Stratum], counts: Counts, looks: int
    ) -> bool:
        """Whether a harm check that is not yet conclusive, having seen ``strata`` (``counts`` in
        all), takes another look. Classic: while the pass rate fell. Lean: until harm is ruled
        out, i.e. until the data reject "the edit cuts the odds of a pass by ``harm_odds`` or more
        on every task" at ``harm_beta`` (Bonferroni over the ``looks``): the chance of clearing
        such an edit is then at most ``harm_beta``, whatever look it stops at. Where nothing
        varies (each task passed, or failed, on both sides) no harm shows and none can be measured
        as a cut of the odds: another look would not change that."""
        if self.name == "classic":
            return fell(counts)
        if not any(s.informative for s in strata):
            return False
        return p_odds_at_most(strata, 1 / policy.harm_odds) > policy.harm_beta / looks

    def harm_weights(self, policy: EvidencePolicy) -> list[float]:
        """The share of ``harm_alpha`` each harm look spends (the number of looks does not depend
        on the tasks)."""
        looks = len(self.harm_steps(policy, 1))
        return [1 / looks] * looks


HARM_MULTIPLES = (1, 2, 3, 4, 6)  # the lean harm check's looks, in units of a first look
CLASSIC = Allocation("classic", (1, 2, 3), (0.125, 0.125, 0.75), pooled_harm=False)
LEAN = Allocation("lean", (1, 2, 4, 6), (0.05, 0.2, 0.3, 0.45), pooled_harm=True)
ALLOCATIONS: dict[str, Allocation] = {a.name: a for a in (LEAN, CLASSIC)}


def allocation_for(policy: EvidencePolicy) -> Allocation:
    """The allocation ``policy`` names; classic keeps the looks the policy sets."""
    if policy.allocation == "classic":
        looks = policy.efficacy_looks
        return Allocation(
            "classic", tuple(range(1, looks + 1)), tuple(policy.look_weights()), pooled_harm=False
        )
    return ALLOCATIONS[policy.allocation]
