"""A night judged by the whole-holdout gate (:mod:`holdout_gate`), the baseline of ``bench/learning.py``.

It runs the product's night up to the candidate (replay, one reflection, the guards), then replays
the whole holdout before and after every edit together and lets :func:`holdout_gate.decide` accept
or refuse the lot. Pass ``holdout_night(policy)`` as ``make_night`` to ``run_project_night``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.holdout_gate import GatePolicy, GateResult, decide
from skillopt_sleep.night.pipeline import Night, NightResult
from skillopt_sleep.optimize.reflect import pick_cases
from skillopt_sleep.optimize.select import Selection
from skillopt_sleep.rollouts.replay import Rollout
from skillopt_sleep.rules.guards import EditOutcome, edit_budget


def _scores(rollouts: dict[str, list[Rollout]]) -> dict[str, list[float | None]]:
    return {tid: [r.score for r in rs] for tid, rs in rollouts.items()}


class HoldoutNight(Night):
    """The night with the whole-holdout gate in place of the edit-by-edit rounds."""

    policy = GatePolicy()

    async def _stages(self, sel: Selection, result: NightResult) -> None:
        need = self.policy.min_tasks
        if len(sel.holdout) < need:
            return self._finish(
                "no_evidence", f"not enough evidence: {len(sel.holdout)} holdout tasks, need {need}"
            )
        train = await self._replay("replay train", sel.train, self.ws.texts)
        if self._too_many_errors(train):
            return self._finish("no_evidence", "too many replays failed: no evidence tonight")
        cases = pick_cases(sel.train, train, self.s.night.reflect_tasks)
        edits = await self.proposer.propose(cases, (), (), 1) if cases else []
        if edits is None:
            return self._finish(
                "no_evidence", "the optimizer did not answer usably: no evidence tonight"
            )
        outcome = self.guard.guard(edits, budget=edit_budget(self.s.night, self.night_index))
        if not outcome.applied:
            why = "no edit passed the guards" if edits else "the optimizer proposed no edit"
            return self._finish("no_evidence", f"no candidate tonight: {why}")
        result.candidate = outcome.files
        before = await self._replay("holdout before", sel.holdout, self.ws.texts)
        after = await self._replay(
            "holdout after", sel.holdout, outcome.files, stop_on_budget=False
        )
        return self._record_gate(
            decide(_scores(before), _scores(after), self.policy, self.seeds.gate), outcome
        )

    def _record_gate(self, gate: GateResult, outcome: EditOutcome) -> None:
        s = self.summary
        s.errored_rollouts = gate.errored
        budget_hit = self.replayer.budget_hit
        if budget_hit is not None and gate.decision == "no_evidence":
            self._finish(
                "budget_exhausted", f"{budget_hit.one_line()}; the gate had too little evidence"
            )
        else:
            self._finish(gate.decision, gate.reason)
        if budget_hit is not None:
            s.skipped.append(
                f"{self.replayer.stats.skipped} rollouts skipped: {budget_hit.one_line()}"
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


def holdout_night(policy: GatePolicy) -> Callable[..., Night]:
    """A ``make_night`` for ``run_project_night``: nights judged by the holdout gate under ``policy``."""

    def make(*args: Any, **kwargs: Any) -> Night:
        night = HoldoutNight(*args, **kwargs)
        night.policy = policy
        return night

    return make
