"""How the edit-by-edit gate spends its rollouts: a strategy the gate carries (:class:`Allocation`).

The product ships one, ``lean``. A benchmark's gate may carry another (``bench/gates.py`` keeps the
``classic`` one, every look full and harm checked edit by edit, as the baseline of its calls): it
runs the same tests at the same levels (:mod:`.trials`), differing only in how many fresh rollouts
each look draws and where harm is checked.

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
  look (six times the first) is adopted. A check where nothing varies (each
  task passed, or failed, on both sides) stops at its first look. Conflicts
  between accepted edits are looked for in two looks, the second only while the pass rate fell.
  On a reserve of train tasks set aside by id before the replay (never shown to the optimizer),
  the night's own replay is the "before" side of these tests (:mod:`.reserve`).

Every look's level is fixed in advance (weighted Bonferroni), so the tests stay exact whenever
they stop.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..counting import Counts
from .exact import Stratum, holm, p_odds_at_most
from .policy import EvidencePolicy
from .pool import fell, gained

PARTS = ("baseline", "efficacy", "unseen", "harm", "joint")  # where a night's fresh rollouts go


@dataclass(frozen=True)
class Allocation:
    """One way to spend the gate's rollouts: the lean one (see the module docstring). Another
    allocation overrides the methods that say where the rollouts go; the tests stay the same."""

    name: str
    efficacy_steps: tuple[int, ...]  # cumulative multiples of a task's unit, look by look
    efficacy_weights: tuple[float, ...]  # the share of the test's level each look spends
    pooled_harm: bool  # harm checked on the accepted edits together, singly only when it shows
    same_night_before: bool = True  # tonight's replay as the before side on a reserve: .reserve
    first_ties_go_on: bool = False  # a tie at the first look takes the next look: :meth:`futile`

    def efficacy_schedule(
        self, policy: EvidencePolicy, addressed: Sequence[str], unseen: Sequence[str]
    ) -> dict[str, tuple[int, ...]]:
        """Rollouts per side each task has by the end of each look (cumulative), so the looks
        together reach ``efficacy_rollouts`` per side over the efficacy tasks and at least
        ``unseen_rollouts`` over the unseen ones (whose test is their own). Fixed before any
        rollout is drawn, so every look's exact test is valid."""
        n, last = len(addressed) + len(unseen), self.efficacy_steps[-1]
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

    def futile(self, counts: Counts, look: int) -> bool:
        """Whether an efficacy comparison not yet passed stops early for want of a gain: the pass
        rate after is not above the rate before. With ``first_ties_go_on``, the first look stops
        only when it is below: its few rollouts (four a side on a one-task edit) tie often by
        chance, and a good rule that tied there was refused with no real evidence either way."""
        if look == 1 and self.first_ties_go_on:
            return fell(counts)
        return not gained(counts)

    def harm_steps(self, policy: EvidencePolicy, tasks: int) -> list[int]:
        """Cumulative rollouts per side over ``tasks`` tasks at each look of a harm check: looks that
        start at half ``harm_rollouts`` (at least one a task) and grow (1, 2, 3, 4, 6 times), as many
        as ``harm_looks`` allows."""
        unit = max(math.ceil(policy.harm_rollouts / 2), tasks)
        return [unit * m for m in HARM_MULTIPLES[: policy.harm_looks]]

    def looks_again(
        self, policy: EvidencePolicy, strata: Sequence[Stratum], counts: Counts, looks: int
    ) -> bool:
        """Whether a harm check that is not yet conclusive, having seen ``strata`` (``counts`` in
        all), takes another look: until harm is ruled out, i.e. until the data reject "the edit
        cuts the odds of a pass by ``harm_odds`` or more on every task" at ``harm_beta``
        (Bonferroni over the ``looks``): the chance of clearing such an edit is then at most
        ``harm_beta``, whatever look it stops at. Where nothing varies (each task passed, or
        failed, on both sides) no harm shows and none can be measured as a cut of the odds:
        another look would not change that."""
        if not any(s.informative for s in strata):
            return False
        return p_odds_at_most(strata, 1 / policy.harm_odds) > policy.harm_beta / looks

    def harm_weights(self, policy: EvidencePolicy) -> list[float]:
        """The share of ``harm_alpha`` each harm look spends (the number of looks does not depend
        on the tasks)."""
        looks = len(self.harm_steps(policy, 1))
        return [1 / looks] * looks

    def passes_early(
        self, adjusted: Mapping[str, float], alpha: float, unseen_shows: Callable[[str], bool]
    ) -> set[str]:
        """Keys of the edits whose efficacy is decided a pass at this look, from their ``adjusted``
        p-values so far: what Holm passes at ``alpha`` (it stays passed: a p-value only falls with
        more looks, and Holm passes a superset when p-values fall), once the unseen tasks, whose
        test is their own, show the gain too (``unseen_shows``)."""
        return {key for key in holm(dict(adjusted), alpha) if unseen_shows(key)}


HARM_MULTIPLES = (1, 2, 3, 4, 6)  # the lean harm check's looks, in units of a first look
LEAN = Allocation(
    "lean", (1, 2, 4, 6), (0.05, 0.2, 0.3, 0.45), pooled_harm=True, first_ties_go_on=True
)
