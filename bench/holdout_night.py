"""A night judged by the whole-holdout gate (:mod:`holdout_gate`), the baseline of ``bench/learning.py``.

It runs the product's night up to the candidate (replay, one reflection, the guards), then replays
the whole holdout before and after every edit together and lets :func:`holdout_gate.decide` accept
or refuse the lot. Pass ``holdout_night(policy)`` as ``stages`` to ``run_project_night``: it is
composed of the night's public pieces, nothing of the night is overridden.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.holdout_gate import GatePolicy, GateResult, decide
from skillopt_sleep.night.pipeline import Night, Stages
from skillopt_sleep.night.recorder import NightResult
from skillopt_sleep.optimize.reflect import pick_cases
from skillopt_sleep.optimize.select import Selection
from skillopt_sleep.rollouts.replay import Rollout
from skillopt_sleep.rules.guards import EditOutcome, edit_budget


def _scores(rollouts: dict[str, list[Rollout]]) -> dict[str, list[float | None]]:
    return {tid: [r.score for r in rs] for tid, rs in rollouts.items()}


@dataclass(frozen=True)
class HoldoutStages:
    """The night's stages with the whole-holdout gate in place of the edit-by-edit rounds."""

    policy: GatePolicy

    async def __call__(self, night: Night, sel: Selection, result: NightResult) -> None:
        need = self.policy.min_tasks
        if len(sel.holdout) < need:
            return night.record.finish(
                "no_evidence", f"not enough evidence: {len(sel.holdout)} holdout tasks, need {need}"
            )
        texts = night.ws.texts
        train = await night.replay("replay train", sel.train, texts)
        if night.too_many_errors(train):
            return night.record.finish(
                "no_evidence", "too many replays failed: no evidence tonight"
            )
        cases = pick_cases(sel.train, train, night.s.night.reflect_tasks)
        edits = await night.proposer.propose(cases, (), (), 1) if cases else []
        if edits is None:
            return night.record.finish(
                "no_evidence", "the optimizer did not answer usably: no evidence tonight"
            )
        outcome = night.guard.guard(
            edits, budget=edit_budget(night.s.night, night.plan.night_index)
        )
        if not outcome.applied:
            why = "no edit passed the guards" if edits else "the optimizer proposed no edit"
            return night.record.finish("no_evidence", f"no candidate tonight: {why}")
        result.candidate = outcome.files
        before = await night.replay("holdout before", sel.holdout, texts)
        after = await night.replay(
            "holdout after", sel.holdout, outcome.files, stop_on_budget=False
        )
        gate = decide(_scores(before), _scores(after), self.policy, night.seeds.gate)
        return _record_gate(night, gate, outcome)


def _record_gate(night: Night, gate: GateResult, outcome: EditOutcome) -> None:
    s = night.summary
    s.errored_rollouts = gate.errored
    budget_hit = night.replayer.budget_hit
    if budget_hit is not None and gate.decision == "no_evidence":
        night.record.finish(
            "budget_exhausted", f"{budget_hit.one_line()}; the gate had too little evidence"
        )
    else:
        night.record.finish(gate.decision, gate.reason)
    if budget_hit is not None:
        s.skipped.append(
            f"{night.replayer.stats.skipped} rollouts skipped: {budget_hit.one_line()}"
        )
    if s.decision == "accept":
        s.edits = outcome.applied
    else:
        why = f"the gate did not accept the candidate: {s.reason}"
        s.edits = [
            e.model_copy(update={"status": "rejected", "reason": why}) for e in outcome.applied
        ]
        if s.decision == "reject":
            s.rejected_edits += s.edits


def holdout_night(policy: GatePolicy) -> Stages:
    """The ``stages`` for ``run_project_night``: nights judged by the holdout gate under ``policy``."""
    return HoldoutStages(policy)
