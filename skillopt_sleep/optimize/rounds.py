"""A night under the edit-by-edit gate: up to ``steps`` rounds of reflect -> test, then adopt.

Each round shows the optimizer cases it has not seen tonight (contrasts, failures, successes),
guards each proposed edit alone, merges duplicates, and tests every new edit on its own
(:mod:`.evidence.trials`). The accepted edits are checked together once, ranked by their
evidence, and capped by the night's edit budget. Only *conclusive* refusals (harm, worse, or no
effect ruled out with enough rollouts) are remembered as "already tried"; an inconclusive edit
keeps its evidence for a later night. An accepted edit its night could not check on unseen or
other tasks is marked unconfirmed and waits; the next night with that evidence retests it first
(:mod:`.waiting`). A waiting edit tonight cannot retest does not swallow a new phrasing of it: the
new one is tested on tonight's tasks (never on those the waiting one was written from), and shown to
help it takes the waiting one's place, so one rule reaches the files; one tonight could test no
better than the waiting one is merged into it, as before.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..evidence import Candidate, EvidencePolicy, Trials
from ..evidence.gate import EvidenceGate
from ..evidence.reserve import set_aside
from ..models import Edit, EditEvidence, TaskRecord, WaitingEdit
from ..rollouts.replay import Rollout
from ..rules.guards import edit_budget
from ..settings import NightSettings
from ..shorten import at_word
from .aggregate import similar
from .reflect import Case, pick_cases
from .seams import Drawer, Gate, Guard, Proposer
from .select import Selection
from .waiting import (
    NotTonight,
    carries,
    held_back,
    missing,
    over_budget,
    recounted,
    rephrasing_tested,
    retest_candidate,
    retest_note,
    still_missing,
    superseded_line,
    waiting_of,
)

CONCLUSIVE = ("harmful", "worse", "no_effect")


@dataclass(frozen=True)
class Tonight:
    """What the rounds work on: tonight's files and settings, and where the night stands in the series.

    ``stream`` names tonight's fresh rollout streams (new every night, the same on a rerun of it),
    ``rng`` is the tests' own generator, ``ledger`` the evidence carried from earlier nights by edit key,
    ``max_tested`` caps the edits a round tests (the proposer's order decides which; None: all).
    """

    files: Mapping[str, str]
    settings: NightSettings
    night_index: int = 0
    stream: str = "n0"
    rng: random.Random = field(default_factory=random.Random)
    ledger: Mapping[str, float] = field(default_factory=dict)
    max_tested: int | None = None  # edits of a round tested at most: the first that pass the guards
    waiting: Sequence[WaitingEdit] = ()  # unconfirmed edits of earlier nights, retested first
    known: Mapping[str, TaskRecord] = field(default_factory=dict)  # the tasks they came from


@dataclass
class RoundsResult:
    """What the rounds decided: every edit's evidence, the adopted edits and their files."""

    evidence: list[EditEvidence] = field(default_factory=list)
    adopted: list[Edit] = field(default_factory=list)
    files: dict[str, str] | None = None
    ledger: dict[str, float | None] = field(
        default_factory=dict
    )  # edit key -> log e (None: forget)
    saved: int = 0  # after-rollouts the tests' early stops did not draw
    parts: dict[str, int] = field(default_factory=dict)  # fresh rollouts by part of the gate
    saved_parts: dict[str, int] = field(default_factory=dict)
    waiting: list[WaitingEdit] = field(default_factory=list)  # unconfirmed edits after tonight
    retested: list[str] = field(default_factory=list)  # what the retests of waiting edits decided
    # waiting edits tonight's optimizer proposed again (in their words or others) and tonight
    # could test no better than their wait: merged into it, not tested
    proposed_again: list[WaitingEdit] = field(default_factory=list)
    harm_sampled: int = 0  # harm checks run on a sample of the other tasks
    before_reused: int = 0  # tasks whose before side was tonight's replay (.evidence.reserve)
    reused_rollouts: int = 0  # ... the replay's rollouts read that way, not drawn again


class Rounds:
    """Runs the rounds of one night through its collaborators: a proposer, a guard, a drawer of
    rollouts, and the gate that decides (the product's :class:`~.evidence.gate.EvidenceGate`
    unless the night was composed with another)."""

    def __init__(
        self,
        tonight: Tonight,
        *,
        proposer: Proposer,
        guard: Guard,
        drawer: Drawer,
        gate: Gate | None = None,
    ) -> None:
        self.tonight, self.proposer, self.guard, self.drawer = tonight, proposer, guard, drawer
        self.gate: Gate = gate or EvidenceGate()
        self.policy = EvidencePolicy.from_settings(tonight.settings)
        self.out = RoundsResult()
        self.candidates: dict[str, Candidate] = {}
        self.budget = edit_budget(tonight.settings, tonight.night_index)
        self.first: list[Candidate] = []  # waiting edits tonight has the evidence for
        self.retests: dict[str, WaitingEdit] = {}
        self.rephrases: dict[str, list[WaitingEdit]] = {}  # new edit -> waiting edits it rewords

    async def run(self, sel: Selection, train: dict[str, list[Rollout]]) -> RoundsResult:
        """Reflect on ``sel.train``'s replays (``train``), test each edit on tonight's tasks, adopt."""
        limit = self.tonight.settings.reflect_tasks
        trials = self.open([*sel.train, *sel.holdout], sel.older)
        shown_from = set_aside(trials, sel.train, train, limit * self.policy.steps)
        self._place_waiting(trials)
        accepted: list[Candidate] = []
        for step in range(1, self.policy.steps + 1) if self.budget > 0 else ():
            covered = frozenset(t.id for c in accepted for t in c.efficacy_tasks)
            cases = pick_cases(shown_from, train, limit, skip=covered | frozenset(trials.shown))
            cases = cases or pick_cases(shown_from, train, limit, skip=covered)
            if not cases:
                break
            passed = await self.step(trials, cases, accepted, step)
            if passed is None:
                break
            accepted += passed
        if self.first:  # no round ran to test them in
            accepted += await self._judge(trials, self._take_first(), self.budget - len(accepted))
        return await self.close(trials, accepted)

    def _place_waiting(self, trials: Trials) -> None:
        """The waiting edits tonight can retest, placed first; the others keep waiting."""
        for w in {w.edit.key(): w for w in reversed(self.tonight.waiting)}.values():
            if self.budget <= 0 or not self.gate.evidential:
                self.out.waiting.append(recounted(w, trials))
                continue
            cand = retest_candidate(w, trials, self.guard, self.tonight.known)
            if isinstance(cand, NotTonight) and cand.keeps_waiting:
                # said by its waiting line: what it still needs, counted on tonight's log
                self.out.waiting.append(recounted(w, trials))
            elif isinstance(cand, NotTonight):
                self.out.retested.append(
                    f"no longer waits: {at_word(w.edit.content, 80)!r}: {cand.why}"
                )
            elif cand.key not in self.candidates:
                self.candidates[cand.key], self.retests[cand.key] = cand, w
                self.first.append(cand)

    def _take_first(self) -> list[Candidate]:
        first, self.first = self.first, []
        return first

    def open(self, tasks: Sequence[TaskRecord], older: Sequence[TaskRecord] = ()) -> Trials:
        """The tests of tonight's edits, over ``tasks`` (every task an edit may be tested on), with
        the log's ``older`` tasks as unseen tasks of an edit's kind when tonight has none."""
        tn = self.tonight
        return Trials(
            self.drawer.draw,
            dict(tn.files),
            list(tasks),
            self.policy,
            tn.stream,
            tn.rng,
            dict(tn.ledger),
            allocation=self.gate.allocation,
            older=older,
        )

    async def step(
        self, trials: Trials, cases: Sequence[Case], accepted: Sequence[Candidate], step: int
    ) -> list[Candidate] | None:
        """One round: the proposer's edits for ``cases``, guarded alone, duplicates merged, each
        tested where it acts (and for harm, within the budget left after ``accepted``). The edits
        accepted this round; None when the proposer could not answer (the rounds stop)."""
        trials.shown |= {c.task.id for c in cases}
        edits = await self.proposer.propose(
            cases, [c.edit.content for c in accepted], self._refused_tonight(), step
        )
        if edits is None:
            return None
        cands = self._guarded(edits, step)
        for cand in cands:
            trials.place(cand, [c.task for c in cases])
        cands = [c for c in cands if self._tested(c, trials)]
        cands = [*self._take_first(), *cands]  # the waiting edits first, outside the family
        if not cands:
            return []
        return await self._judge(trials, cands, self.budget - len(accepted))

    async def close(self, trials: Trials, accepted: list[Candidate]) -> RoundsResult:
        """The accepted edits checked together, ranked, capped by the budget and adopted."""
        await self._adopt(trials, accepted)
        self.out.parts, self.out.saved_parts = dict(trials.spend.drawn), dict(trials.spend.saved)
        self.out.saved = sum(trials.spend.saved.values())
        self.out.harm_sampled = len(trials.spend.sampled)
        self.out.before_reused = len(trials.baseline.used)
        self.out.reused_rollouts = sum(trials.baseline.used.values())
        return self.out

    def _refused_tonight(self) -> list[Edit]:
        return [e.edit for e in self.out.evidence if e.verdict in CONCLUSIVE]

    def _guarded(self, edits: Sequence[Edit], step: int) -> list[Candidate]:
        """Each new edit guarded alone against tonight's files; duplicates of tonight's edits merged."""
        cands: list[Candidate] = []
        for edit in edits:
            if self.tonight.max_tested is not None and len(cands) >= self.tonight.max_tested:
                break
            known = [c.edit for c in self.candidates.values()]
            if edit.key() in self.candidates or any(similar(edit, e) for e in known):
                continue  # merged with an edit of tonight's (the training loop's aggregation), a
                # waiting edit tonight retests among them
            outcome = self.guard.guard([edit], budget=1)
            if outcome.applied:
                cand = Candidate(outcome.applied[0], outcome.files, step)
                self.candidates[cand.key] = cand
                cands.append(cand)
                # a waiting edit tonight cannot retest (the rest of out.waiting during the rounds)
                # does not swallow a new phrasing of it that tonight can test (see step)
                rewords = [w for w in self.out.waiting if similar(cand.edit, w.edit)]
                if rewords:
                    self.rephrases[cand.key] = rewords
        return cands

    def _tested(self, cand: Candidate, trials: Trials) -> bool:
        """Whether ``cand`` is tested tonight: not when it rewords waiting edits and tonight
        would show no more than they lack (:func:`.waiting.rephrasing_tested`)."""
        rewords = self.rephrases.get(cand.key)
        if not rewords or rephrasing_tested(cand, rewords, trials):
            return True
        del self.candidates[cand.key], self.rephrases[cand.key]
        again = {w.edit.key() for w in self.out.proposed_again}
        self.out.proposed_again += [w for w in rewords if w.edit.key() not in again]
        return False

    async def _judge(self, trials: Trials, cands: list[Candidate], room: int) -> list[Candidate]:
        """Efficacy for every edit of a round; harm, strongest first, for as many as the budget has room."""
        verdicts = await self.gate.judge(trials, cands)
        passed: list[Candidate] = []
        for cand in sorted(cands, key=lambda c: (verdicts[c.key].p_efficacy or 0.0, c.key)):
            ev = verdicts[cand.key]
            if ev.verdict == "accepted" and len(passed) >= room:
                ev = ev.model_copy(
                    update={
                        "verdict": "over_budget",
                        "reason": (
                            f"over tonight's edit budget of {self.budget} (its harm was not checked)"
                        ),
                    }
                )
            elif ev.verdict == "accepted":
                ev = await self.gate.confirm(trials, cand, ev)
            self.out.evidence.append(ev)
            if ev.verdict == "accepted":
                passed.append(cand)
        return passed

    async def _adopt(self, trials: Trials, accepted: list[Candidate]) -> None:
        """Check the accepted edits together once, rank them, cap by the edit budget, write the files."""
        by_key = {e.edit.key(): i for i, e in enumerate(self.out.evidence)}
        settled = await self.gate.settle(
            trials,
            accepted,
            {c.key: self.out.evidence[by_key[c.key]] for c in accepted},
            self._joint,
        )
        for key, ev in settled.items():
            self.out.evidence[by_key[key]] = ev
        accepted = [c for c in accepted if settled[c.key].verdict == "accepted"]
        kept = sorted(
            accepted, key=lambda c: (self.out.evidence[by_key[c.key]].p_efficacy or 0.0, c.key)
        )
        if kept:
            outcome = self.guard.combine([c.edit for c in kept], budget=self.budget)
            self.out.files, self.out.adopted = outcome.files, outcome.applied
            for edit in outcome.rejected:
                self._set(by_key[edit.key()], "conflict", edit.reason)
        self._unconfirmed(trials)
        for ev in self.out.evidence:
            key = ev.edit.key()
            keep = ev.verdict in ("inconclusive", "over_budget") and self.gate.evidential
            self.out.ledger[key] = trials.log_evidence(self.candidates[key]) if keep else None

    def _unconfirmed(self, trials: Trials) -> None:
        """Mark each accepted edit with the checks tonight could not run; those wait for them."""
        for i, ev in enumerate(self.out.evidence):
            w = self.retests.get(ev.edit.key())
            if ev.verdict == "over_budget" and self.gate.evidential:
                # shown to help, cut before its harm check: it waits, and is retested first
                self.out.waiting.append(w or over_budget(ev, trials))
                if w is not None:
                    self.out.retested.append(retest_note(w, ev))
                continue
            rewords = bool(self.rephrases.get(ev.edit.key()))
            if (
                ev.verdict == "inconclusive"
                and self.gate.evidential
                and carries(ev, w)
                and not rewords
            ):
                # short of evidence that keeps growing: it waits, and is retested first
                self.out.waiting.append(w or held_back(ev, trials, ["evidence"]))
                if w is not None:
                    self.out.retested.append(retest_note(w, ev))
                continue
            gaps = missing(ev) if w is None else still_missing(w, missing(ev))
            if ev.verdict == "accepted" and self.gate.evidential and gaps:
                ev = self.out.evidence[i] = ev.model_copy(update={"unconfirmed": gaps})
                self.out.waiting.append(
                    waiting_of(ev, trials)
                    if w is None
                    else recounted(w.model_copy(update={"missing": gaps}), trials)
                )
            if w is not None:
                self.out.retested.append(retest_note(w, ev))
        self._supersede()

    def _supersede(self) -> None:
        """A waiting edit whose new phrasing tonight showed to help (accepted, or waiting itself
        for the harm check the budget cut) stops waiting: one rule, never both, reaches the files.
        An inconclusive new phrasing leaves it waiting, and does not wait beside it."""
        verdicts = {e.edit.key(): e for e in self.out.evidence}
        for key, rewords in self.rephrases.items():
            ev = verdicts.get(key)
            if ev is None or ev.verdict not in ("accepted", "over_budget"):
                continue
            for w in rewords:
                if any(x is w for x in self.out.waiting):
                    self.out.waiting = [x for x in self.out.waiting if x is not w]
                    self.out.retested.append(superseded_line(w, ev))

    def _joint(self, cands: Sequence[Candidate]) -> dict[str, str]:
        return self.guard.combine([c.edit for c in cands], budget=len(cands)).files

    def _set(self, index: int, verdict: str, reason: str) -> None:
        self.out.evidence[index] = self.out.evidence[index].model_copy(
            update={"verdict": verdict, "reason": reason}
        )
