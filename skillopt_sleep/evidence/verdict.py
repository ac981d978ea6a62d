"""The efficacy verdict on one edit, from its counts and p-values (see :mod:`.trials`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..models import EditEvidence
from .exact import Stratum, rules_out_gain, stratified_p
from .policy import EvidencePolicy
from .pool import exp


@dataclass(frozen=True)
class Seen:
    """What an efficacy test saw of one edit: its strata where it acts, the rollouts that errored,
    the p-values (adjusted over the looks, and on the unseen tasks) and the level Holm held it to."""

    strata: Sequence[Stratum]
    errored: int
    p_adj: float
    p_unseen: float | None
    alpha_edit: float
    passed: bool  # Holm passed it tonight
    log_total: float  # log e-value over every night, tonight included
    carried: str = ""  # where an earlier night showed its efficacy (an unconfirmed edit retested)


def efficacy_verdict(ev: EditEvidence, seen: Seen, policy: EvidencePolicy) -> EditEvidence:
    """``ev`` with its verdict and reason: no evidence (too many errors), accepted, worse, no
    effect, or not enough evidence yet."""
    rollouts = sum(s.before_n + s.after_n for s in seen.strata) + seen.errored
    if not rollouts or seen.errored / rollouts > policy.max_error_rate:
        why = f"{seen.errored} of {rollouts} rollouts errored: no evidence"
        return _set(ev, why, "no_evidence")
    unseen_ok = seen.p_unseen is None or seen.p_unseen <= policy.unseen_alpha
    if seen.carried:
        return _retested(ev, seen, policy, unseen_ok)
    carried = policy.accumulated_enough(seen.log_total)
    if seen.passed or carried:
        return _helps(ev, seen, policy, unseen_ok)
    return _not_shown(ev, seen, policy)


def _helps(ev: EditEvidence, seen: Seen, policy: EvidencePolicy, unseen_ok: bool) -> EditEvidence:
    if not unseen_ok:
        return _set(
            ev,
            f"helps the cited tasks but not unseen tasks of their kind (p = {seen.p_unseen:.3g} > "
            f"{policy.unseen_alpha:g})",
        )
    how = (
        f"p = {seen.p_adj:.3g} <= {seen.alpha_edit:.3g}"
        if seen.passed
        else f"evidence over nights e = {exp(seen.log_total):.3g}"
    )
    return _set(ev, f"helps where it acts ({how})", "accepted")


def _retested(
    ev: EditEvidence, seen: Seen, policy: EvidencePolicy, unseen_ok: bool
) -> EditEvidence:
    """An edit an earlier night showed helps, retested for what that night could not check: it
    keeps its verdict unless tonight it conclusively loses where it acts, or its unseen tasks do
    not gain."""
    p_less = stratified_p(seen.strata, "less")
    if p_less <= policy.harm_conclusive:
        return _set(ev, f"fewer passes where it should help (p = {p_less:.3g})", "worse")
    if not unseen_ok:
        return _helps(ev, seen, policy, unseen_ok)
    unseen = "" if seen.p_unseen is None else f"; unseen tasks p = {seen.p_unseen:.3g}"
    return _set(ev, f"helps where it acts ({seen.carried}{unseen})", "accepted")


def _not_shown(ev: EditEvidence, seen: Seen, policy: EvidencePolicy) -> EditEvidence:
    p_less = stratified_p(seen.strata, "less")
    if p_less <= policy.harm_conclusive:
        return _set(ev, f"fewer passes where it should help (p = {p_less:.3g})", "worse")
    if rules_out_gain(seen.strata, policy.min_effect):
        why = f"no effect: a gain of {policy.min_effect:g} or more is ruled out"
        return _set(ev, why, "no_effect")
    if not seen.alpha_edit:  # judged by its evidence over nights alone
        return _set(
            ev, f"not enough evidence yet (evidence over nights e = {exp(seen.log_total):.3g})"
        )
    if seen.p_adj <= seen.alpha_edit:  # Holm stops at the first edit that fails its level
        return _set(
            ev,
            f"not enough evidence yet (p = {seen.p_adj:.3g}; Holm's step-down stopped at an edit "
            "with less)",
        )
    return _set(ev, f"not enough evidence yet (p = {seen.p_adj:.3g} > {seen.alpha_edit:.3g})")


def _set(ev: EditEvidence, reason: str, verdict: str = "inconclusive") -> EditEvidence:
    return ev.model_copy(update={"verdict": verdict, "reason": reason})
