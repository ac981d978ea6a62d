"""Exact tests on pass counts, stratified by task, and the e-values that carry evidence across nights.

Each task is a *stratum*: its rollouts before an edit and after it, each a pass or a fail. Under
"the edit changes nothing on this task", before and after rollouts of a task are draws with the
same pass rate, so given how many passed in all, the number that passed *after* follows a
hypergeometric law whatever that rate is. The statistic is the total number of passes after the
edit over the strata; its null law is the convolution of the strata's hypergeometrics, computed
exactly (a stratified exact test, the exact form of the Cochran-Mantel-Haenszel test). Nothing
is approximated and nothing is resampled, so the p-values are valid on a night with one task.

The e-value of a night is a likelihood ratio against Fisher's noncentral hypergeometric with a
fixed odds ratio ``psi``: ``prod_i psi**a_i / E0[psi**A_i]``. Its expectation under the null is
exactly 1, so the product over nights of independent fresh rollouts is a test martingale, and
by Ville's inequality it ever reaches ``1/alpha`` with probability at most ``alpha``: evidence
may accumulate over any number of nights and be looked at every night.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

Alternative = Literal["greater", "less"]


@dataclass(frozen=True)
class Stratum:
    """One task's pass counts: ``before_pass`` of ``before_n`` rollouts, ``after_pass`` of ``after_n``."""

    before_pass: int
    before_n: int
    after_pass: int
    after_n: int

    def __post_init__(self) -> None:
        if not (0 <= self.before_pass <= self.before_n and 0 <= self.after_pass <= self.after_n):
            raise ValueError(f"impossible counts: {self}")

    @property
    def informative(self) -> bool:
        """Both sides were scored and the passes do not fix the table (some pass, some fail)."""
        total = self.before_pass + self.after_pass
        return self.before_n > 0 and self.after_n > 0 and 0 < total < self.before_n + self.after_n


def _hypergeom(stratum: Stratum) -> tuple[int, list[float]]:
    """(lowest possible after-passes, their null probabilities) for one stratum."""
    na, nb = stratum.after_n, stratum.before_n
    total = stratum.before_pass + stratum.after_pass
    low, high = max(0, total - nb), min(total, na)
    denom = math.comb(na + nb, total)
    return low, [math.comb(na, a) * math.comb(nb, total - a) / denom for a in range(low, high + 1)]


def null_distribution(strata: Sequence[Stratum], psi: float = 1.0) -> tuple[int, list[float]]:
    """(offset, probabilities) of the total after-passes, by convolution: under the null, or with
    every stratum at odds ratio ``psi`` (Fisher's noncentral hypergeometric)."""
    offset, dist = 0, [1.0]
    for stratum in strata:
        low, probs = _hypergeom(stratum)
        if psi != 1.0:
            tilted = [p * psi**j for j, p in enumerate(probs)]
            norm = math.fsum(tilted) or 1.0
            probs = [q / norm for q in tilted]
        out = [0.0] * (len(dist) + len(probs) - 1)
        for i, p in enumerate(dist):
            if p:
                for j, q in enumerate(probs):
                    out[i + j] += p * q
        offset, dist = offset + low, out
    return offset, dist


def stratified_p(
    strata: Sequence[Stratum], alternative: Alternative = "greater", psi: float = 1.0
) -> float:
    """Exact one-sided p-value: more passes after the edit ("greater") or fewer ("less"), than
    under the null (``psi`` 1) or under a common odds ratio ``psi`` (:func:`p_odds_at_most`).

    Strata with nothing scored on a side carry no information and are left out; with no
    informative stratum at all the p-value is 1 (no evidence either way).
    """
    used = [s for s in strata if s.before_n > 0 and s.after_n > 0]
    if not any(s.informative for s in used):
        return 1.0
    offset, dist = null_distribution(used, psi)
    observed = sum(s.after_pass for s in used) - offset
    tail = dist[observed:] if alternative == "greater" else dist[: observed + 1]
    return min(1.0, math.fsum(tail))


def p_odds_at_most(strata: Sequence[Stratum], psi: float) -> float:
    """Exact p-value of "the odds of a pass after are at most ``psi`` times those before, on every
    task" against more passes after: the chance, under Fisher's noncentral hypergeometric with odds
    ratio ``psi`` in every stratum, of at least the observed after-passes. Small when the data rule
    out a cut of the odds by ``1/psi`` or more (for ``psi`` < 1: no such harm). Stochastically
    increasing in the odds ratio, so it is valid (conservative) for every ratio below ``psi``."""
    if psi <= 0:
        raise ValueError("psi must be positive")
    return stratified_p(strata, "greater", psi)


def log_e_value(strata: Sequence[Stratum], psi: float) -> float:
    """Log of the night's e-value for "the edit raises the pass rate" at odds ratio ``psi`` > 1."""
    if psi <= 1:
        raise ValueError("psi must be above 1")
    log_psi = math.log(psi)
    total = 0.0
    for s in strata:
        if s.before_n == 0 or s.after_n == 0:
            continue
        low, probs = _hypergeom(s)
        # E0[psi**A], in logs to stay finite for large strata
        terms = [math.log(p) + (low + j) * log_psi for j, p in enumerate(probs) if p > 0]
        top = max(terms)
        log_mean = top + math.log(math.fsum(math.exp(t - top) for t in terms))
        total += s.after_pass * log_psi - log_mean
    return total


def holm_levels(p_values: Mapping[str, float], alpha: float) -> dict[str, float]:
    """The level Holm's step-down holds each key's p-value to: ``alpha / (m - rank)``."""
    order = sorted(p_values, key=lambda k: (p_values[k], k))
    return {key: alpha / (len(order) - rank) for rank, key in enumerate(order)}


def holm(p_values: Mapping[str, float], alpha: float) -> set[str]:
    """Holm's step-down: the keys whose hypothesis is rejected, family-wise error at most ``alpha``."""
    levels = holm_levels(p_values, alpha)
    rejected: set[str] = set()
    for key in sorted(p_values, key=lambda k: (p_values[k], k)):
        if p_values[key] > levels[key]:
            break
        rejected.add(key)
    return rejected


def rules_out_gain(strata: Sequence[Stratum], min_effect: float, z: float = 1.645) -> bool:
    """Whether the data rule out a gain of ``min_effect`` or more (one-sided, 95% by default).

    A conservative bound on the pooled difference of pass rates (each rate shrunk by half a
    pass towards 1/2), used only to call a refused edit *conclusively* useless.
    """
    bn = sum(s.before_n for s in strata)
    an = sum(s.after_n for s in strata)
    if not bn or not an:
        return False
    b = (sum(s.before_pass for s in strata) + 0.5) / (bn + 1)
    a = (sum(s.after_pass for s in strata) + 0.5) / (an + 1)
    se = math.sqrt(a * (1 - a) / an + b * (1 - b) / bn)
    return (a - b) + z * se < min_effect
