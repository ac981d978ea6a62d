"""The gates of a training run: the product's edit-by-edit evidence gate, or the validation mean.

``evidence`` is the night's gate (:class:`~skillopt_sleep.night.evidence.Trials`): each edit is
tested alone where it acts (the items it cites and unseen items of their kind, fresh rollouts
before and after, an exact stratified test), harm is checked on every other item, the edits
accepted together are checked once for conflicts, and an inconclusive edit keeps its e-value for
later gates. Its levels are the gate's share of the run's ``alpha`` (:mod:`.spending`).

``mean`` is the older rule, kept for comparison: apply the step's edits together and keep them
when the validation mean went up, by any amount.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from ..models import Edit, EditEvidence, EditVerdict, TaskRecord
from ..night.evidence import Candidate, EvidencePolicy, Trials
from ..night.evidence.trials import Draw
from ..night.guards import GuardLimits
from ..settings import NightSettings
from .config import TrainConfig
from .spending import GateLevels
from .update import SKILL, apply_mode

KEEP = ("inconclusive", "over_budget")  # verdicts whose evidence is carried to later gates


@dataclass
class GateOutcome:
    """What a gate decided: the skill after it, the applied edits and every edit's evidence."""

    skill: str
    applied: list[Edit] = field(default_factory=list)
    evidence: list[EditEvidence] = field(default_factory=list)
    ledger: dict[str, float | None] = field(
        default_factory=dict
    )  # edit key -> log e (None: forget)
    reason: str = ""


def candidates(
    config: TrainConfig,
    skill: str,
    edits: Sequence[Edit],
    limits: GuardLimits,
    gate: int,
    room: int,
) -> tuple[list[Candidate], list[Edit]]:
    """Up to ``room`` edits that pass the guards alone, each with the skill it makes; and the refused."""
    cands: list[Candidate] = []
    refused: list[Edit] = []
    for edit in edits:
        if len(cands) >= room:
            break
        outcome = apply_mode(config.mode, skill, [edit], budget=1, limits=limits)
        if outcome.applied:
            cands.append(Candidate(outcome.applied[0], outcome.files, gate))
        refused += outcome.rejected
    return cands, refused


def policy_for(config: TrainConfig, levels: GateLevels) -> EvidencePolicy:
    night = NightSettings(
        alpha=levels.alpha,
        steps=1,
        evidence_alpha=levels.evidence_alpha,
        efficacy_rollouts=config.efficacy_rollouts,
        harm_rollouts=config.harm_rollouts,
    )
    return EvidencePolicy.from_settings(night)


async def evidence_gate(
    config: TrainConfig,
    *,
    draw: Draw,
    skill: str,
    cands: list[Candidate],
    tasks: Sequence[TaskRecord],
    shown: Sequence[TaskRecord],
    levels: GateLevels,
    nonce: str,
    rng: random.Random,
    ledger: dict[str, float],
    budget: int,
    limits: GuardLimits,
) -> GateOutcome:
    """Every candidate judged alone (efficacy, then harm for as many as ``budget`` has room for),
    the accepted ones checked together, applied in the order of their evidence."""
    out = GateOutcome(skill)
    if not cands:
        return out
    trials = Trials(draw, {SKILL: skill}, tasks, policy_for(config, levels), nonce, rng, ledger)
    trials.shown |= {t.id for t in shown}
    for cand in cands:
        trials.place(cand, list(shown))
    verdicts = await trials.efficacy(cands, 1)
    passed: list[Candidate] = []
    for cand in sorted(cands, key=lambda c: (verdicts[c.key].p_efficacy or 0.0, c.key)):
        ev = verdicts[cand.key]
        if ev.verdict == "accepted" and len(passed) >= budget:
            ev = ev.model_copy(
                update={
                    "verdict": "over_budget",
                    "reason": f"over this step's edit budget of {budget}",
                }
            )
        elif ev.verdict == "accepted":
            ev = await trials.judge_harm(cand, ev)
        out.evidence.append(ev)
        if ev.verdict == "accepted":
            passed.append(cand)
    if len(passed) > 1:
        joint = apply_mode(
            config.mode, skill, [c.edit for c in passed], budget=len(passed), limits=limits
        )
        losers = await trials.conflicts(passed, joint.files)
        out.evidence = [
            e.model_copy(
                update={"verdict": "conflict", "reason": "conflicts with another edit accepted"}
            )
            if e.edit.key() in losers
            else e
            for e in out.evidence
        ]
        passed = [c for c in passed if c.key not in losers]
    if passed:
        done = apply_mode(
            config.mode, skill, [c.edit for c in passed], budget=budget, limits=limits
        )
        out.skill, out.applied = done.files[SKILL], done.applied
    by_key = {c.key: c for c in cands}
    out.ledger = {
        e.edit.key(): trials.log_evidence(by_key[e.edit.key()]) if e.verdict in KEEP else None
        for e in out.evidence
    }
    out.reason = f"{len(out.applied)} of {len(cands)} edits proven and applied"
    return out


Score = Callable[[str], Awaitable[float | None]]


async def mean_gate(
    config: TrainConfig,
    *,
    skill: str,
    cands: list[Candidate],
    val_score: Score,
    fresh_score: Score,
    budget: int,
    limits: GuardLimits,
) -> GateOutcome:
    """The step's edits together, kept when the validation mean went up (no test, no error control):
    the current skill's validation score against the candidate's, replayed fresh for this step."""
    out = GateOutcome(skill)
    if not cands:
        return out
    joint = apply_mode(config.mode, skill, [c.edit for c in cands], budget=budget, limits=limits)
    before, after = await val_score(skill), await fresh_score(joint.files[SKILL])
    up = before is not None and after is not None and after > before
    verdict: EditVerdict = "accepted" if up else "no_effect"
    reason = f"validation mean {before} -> {after}"
    out.evidence = [EditEvidence(edit=e, verdict=verdict, reason=reason) for e in joint.applied]
    if up:
        out.skill, out.applied = joint.files[SKILL], joint.applied
    out.reason = reason
    return out
