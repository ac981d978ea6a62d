"""What a night leaves behind, kept in one place: the stages report their decision, the rounds'
results and the rollouts to a :class:`Recorder`, which accounts for what the night spent and
writes the night's artifacts, its proposal and its rows (its own, and those later nights read).

A stage never writes the summary's counts or a file of its own, so a stage a benchmark composes
is accounted for and leaves the same artifacts as the product's. A project's night hands the
Recorder the night's ending (:meth:`Recorder.keep`, :meth:`Recorder.stage`); ``train stage``
stages a run's best skill through a Recorder too, so a proposal is written one way.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..backends.budget import Budget
from ..clock import Clock
from ..counting import Usage
from ..errors import BudgetExhausted
from ..evidence.reserve import reuse_notes
from ..models import EditEvidence, NightSummary, Proposal
from ..optimize.rounds import CONCLUSIVE, RoundsResult
from ..optimize.waiting import aged, proposed_again_line, save_waiting, waiting_line
from ..review.rule_views import project_views
from ..rollouts.replay import Replayer, Rollout
from ..rules.workspace import Workspace
from ..store import Store, atomic_write_text
from .stage import write_proposal


@dataclass
class NightResult:
    """What a night produced: its summary, and the candidate texts if it made one."""

    summary: NightSummary
    workspace: Workspace
    candidate: dict[str, str] | None = None
    rollouts: dict[str, dict[str, list[Rollout]]] = field(default_factory=dict)
    ledger: dict[str, float | None] = field(
        default_factory=dict
    )  # evidence carried to later nights


def tally_line(evidence: Sequence[EditEvidence], adopted: int) -> str:
    """One line: how many edits were proven (to be staged: adoption is the user's), and why the
    others were not."""
    counts: dict[str, int] = {}
    for e in evidence:
        if e.verdict != "accepted":
            counts[e.verdict] = counts.get(e.verdict, 0) + 1
    words = {"over_budget": "over the edit budget"}
    others = ", ".join(
        f"{n} {words.get(v, v.replace('_', ' '))}" for v, n in sorted(counts.items())
    )
    head = f"{adopted} of {len(evidence)} edits proven"
    unconfirmed = sum(e.verdict == "accepted" and bool(e.unconfirmed) for e in evidence)
    if unconfirmed:
        head += (
            f" ({unconfirmed} unconfirmed: held back from auto-adopt, retested when evidence comes)"
        )
    return head + (f"; {others}" if others else "")


class Recorder:
    """One night's result (its summary, the rollouts it replayed by phase, its candidate) and its
    artifacts directory (None: nothing is written)."""

    def __init__(self, result: NightResult, artifacts: Path | None, clock: Clock) -> None:
        self.result, self.summary = result, result.summary
        self.artifacts, self.clock = artifacts, clock

    def finish(self, decision: str, reason: str) -> None:
        """End the night's stages with ``decision`` and the one line that says why."""
        self.summary.decision = decision  # type: ignore[assignment]
        self.summary.reason = reason
        self.summary.finished_at = self.clock.now()

    def replayed(self, phase: str, rollouts: dict[str, list[Rollout]]) -> None:
        """Keep a phase's rollouts for ``rollouts.jsonl``."""
        self.result.rollouts[phase] = rollouts

    def save(self, name: str, payload: object) -> None:
        """One JSON artifact (the optimizer's reflections, the evidence, the summary)."""
        if self.artifacts is not None:
            atomic_write_text(
                self.artifacts / name, json.dumps(payload, indent=2, sort_keys=True, default=str)
            )

    def rounds(
        self, rounds: RoundsResult, budget_hit: BudgetExhausted | None, skipped: int
    ) -> None:
        """The rounds' evidence, what waits, what was refused for good, and the night's decision."""
        s, result = self.summary, self.result
        s.evidence, result.ledger, s.saved_rollouts = rounds.evidence, rounds.ledger, rounds.saved
        s.gate_rollouts, s.gate_saved = rounds.parts, rounds.saved_parts
        s.errored_rollouts = sum(e.errored for e in rounds.evidence)
        waiting, stopped = aged(rounds.waiting, [e.edit.key() for e in rounds.evidence])
        s.waiting = [w if w.since else w.model_copy(update={"since": s.night_id}) for w in waiting]
        s.retested, s.harm_sampled = [*rounds.retested, *stopped], rounds.harm_sampled
        s.before_reused = rounds.before_reused
        s.notes += [*s.retested, *map(waiting_line, s.waiting), *reuse_notes(rounds)]
        waits = {w.edit.key() for w in s.waiting}
        again = [w for w in rounds.proposed_again if w.edit.key() in waits]
        if again and rounds.evidence:
            s.notes.append(proposed_again_line(again))
        refused = [
            e.edit.model_copy(update={"status": "rejected", "reason": e.reason})
            for e in rounds.evidence
            if e.verdict in CONCLUSIVE
        ]
        s.rejected_edits += refused
        if budget_hit is not None:
            s.skipped.append(f"{skipped} rollouts skipped: {budget_hit.one_line()}")
        if rounds.adopted:
            result.candidate, s.edits = rounds.files, rounds.adopted
            return self.finish("accept", tally_line(rounds.evidence, len(rounds.adopted)))
        if budget_hit is not None:
            return self.finish(
                "budget_exhausted", f"{budget_hit.one_line()}; no edit was proven tonight"
            )
        if not rounds.evidence:
            why = (
                proposed_again_line(again)
                if again
                else "no edit passed the guards"
                if s.rejected_edits
                else "the optimizer proposed no edit"
            )
            return self.finish("no_evidence", f"no candidate tonight: {why}")
        decision = "reject" if refused else "no_evidence"
        return self.finish(decision, tally_line(rounds.evidence, 0))

    def account(self, budget: Budget, replayer: Replayer) -> None:
        """What the night spent (calls, tokens, money, by role), and why some of it went unseen."""
        s, total = self.summary, budget.total
        s.usage_by_role = {role: Usage(**u.model_dump()) for role, u in budget.by_role.items()}
        s.calls, s.tokens = total.calls, total.tokens
        s.unpriced_models = sorted(budget.unpriced_models)
        s.cost_usd = None if s.unpriced_models else round(total.cost_usd, 6)
        s.errored_rollouts = max(s.errored_rollouts, replayer.stats.errored)
        if replayer.agents is not None:  # why some tasks were replayed as text
            s.skipped += [n for n in replayer.agents.notes if n not in s.skipped]
            s.agent_models = replayer.agents.ran_on()
        if budget.unpriced_models:  # a notice: the calls ran, only their money is unknown
            s.notes.append(
                "cost unknown for models "
                + ", ".join(s.unpriced_models)
                + f': add [budget.prices."{s.unpriced_models[0]}"] input = ..., output = ... '
                "(USD per million tokens) to the config"
            )
        s.finished_at = s.finished_at or self.clock.now()

    def write(self) -> None:
        """The night's artifacts: every rollout, the evidence, the candidate and the summary."""
        if self.artifacts is None:
            return
        lines = [
            json.dumps({"phase": phase, **r.as_json()}, sort_keys=True)
            for phase, by_task in self.result.rollouts.items()
            for rs in by_task.values()
            for r in rs
        ]
        atomic_write_text(
            self.artifacts / "rollouts.jsonl", "\n".join(lines) + ("\n" if lines else "")
        )
        if self.summary.evidence:
            self.save("evidence.json", [e.model_dump(mode="json") for e in self.summary.evidence])
        for name, text in (self.result.candidate or {}).items():
            atomic_write_text(self.artifacts / "candidate" / name, text)
        self.save("summary.json", self.summary.model_dump(mode="json"))

    def revise(self, result: NightResult) -> None:
        """Keep ``result`` in place of the night's own: its stages done, a project's night may
        add to what it proposes (the removal of a contradicted rule)."""
        self.result, self.summary = result, result.summary

    @property
    def proposes(self) -> bool:
        """The night proved a candidate: :meth:`stage` writes it for the morning."""
        return self.summary.decision == "accept" and self.result.candidate is not None

    def keep(self, store: Store, *, dry_run: bool) -> None:
        """The night's rows: a dry run's row alone (it changes nothing later nights read); else
        the edits refused for good, the evidence carried by edit key and the edits that wait for
        a retest, and the night's own row unless it :attr:`proposes` (:meth:`stage` writes it)."""
        s, result = self.summary, self.result
        s.dry_run = dry_run
        if dry_run:
            store.save_night(s, "dry-run")
            return
        if s.rejected_edits:
            store.add_rejected_edits(s.project, s.night_id, s.rejected_edits)
        store.update_edit_evidence(s.project, s.night_id, result.ledger)
        save_waiting(store, s.project, s.waiting)
        if not self.proposes:
            store.save_night(s, "none")

    def stage(self, store: Store, directory: Path) -> Proposal:
        """The night's candidate staged in ``directory`` (nothing live changes), the project's
        older pending proposals marked superseded, and the night recorded as staged."""
        s = self.summary
        proposal = write_proposal(
            directory,
            s,
            self.result.workspace,
            self.result.candidate or {},
            project_views(store, s.project),
        )
        for row in store.nights(project=s.project):
            if row.state == "staged" and row.id != s.night_id:
                store.set_night_state(row.id, "superseded")
        store.save_night(s, "staged")
        return proposal
