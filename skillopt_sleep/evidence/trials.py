"""The edit-by-edit gate: each edit judged alone, where it acts, with harm checked everywhere else.

A rule acts on the tasks of its kind, a few of a night's tasks; a test over a whole holdout drowns
it in noise. So, for every edit that passed the guards:

1. **Efficacy** where it should act: the tasks it cites (plus shown cases its words plainly
   address), and unseen tasks of the same kind (never shown to the optimizer). Fresh rollouts
   before and after, in the looks the gate's allocation sets; a decided comparison stops early. The
   p-value is the stratified exact test, Bonferroni-adjusted over the looks, and the edits of a
   round share the round's ``alpha`` by Holm's step-down. Where unseen tasks of the kind exist,
   they must show a gain of their own (``unseen_alpha``), so that a rule that only memorises its
   own task does not pass. An edit refused for lack of evidence keeps its e-value: the product
   over nights (a test martingale) accepts it once it reaches ``1/evidence_alpha``.
2. **Harm** on all the other tasks (fresh rollouts, about ``harm_rollouts`` per side, more where
   the pass rate fell): an edit with significantly fewer passes there is refused.
3. The edits accepted tonight are checked **together** once; an edit that a joint replay shows in
   conflict is dropped.

Every rollout here is fresh (never from the cache) and an errored one is excluded and counted,
never a fail. Draws go through an injected ``draw`` function, so this module runs no model itself.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..counting import Counts
from ..models import Edit, EditEvidence, TaskRecord
from ..rollouts.replay import Rollout
from .allocation import LEAN, Allocation
from .exact import Stratum, holm, holm_levels, log_e_value, stratified_p
from .examples import example_of
from .harm_sample import KindPlan, stratified_sample
from .kinds import kin, relevance
from .policy import EvidencePolicy
from .pool import Draw, Pool, Want
from .pool import counts as _counts
from .pool import exp as _exp
from .pool import rate as _rate
from .pool import total as _total
from .spend import Spend
from .verdict import Seen, efficacy_verdict

__all__ = ["Candidate", "Draw", "Pool", "Trials", "Want"]
RELEVANT = 0.5  # share of a rule's words in a shown case that makes the case one it addresses
UNRELATED = 0.25  # ... and below which a cited case is taken for a slip, when another case matches


@dataclass
class Candidate:
    """An edit that passed the guards, the files it makes, and where it is tested."""

    edit: Edit
    files: dict[str, str]
    round: int
    addressed: list[TaskRecord] = field(default_factory=list)
    unseen: list[TaskRecord] = field(default_factory=list)
    schedule: dict[str, tuple[int, ...]] = field(
        default_factory=dict
    )  # rollouts per side by each look, by task
    after: dict[str, list[Rollout]] = field(default_factory=dict)
    log_e: float = 0.0
    p_looks: list[float] = field(default_factory=list)
    looks: int = 0
    stopped: bool = False
    carried: str = ""  # where an earlier night showed its efficacy: see :meth:`Trials.efficacy`
    by_evidence: bool = False  # judged by its e-value over nights alone, out of the family

    @property
    def efficacy_tasks(self) -> list[TaskRecord]:
        return self.addressed + self.unseen

    @property
    def key(self) -> str:
        return self.edit.key()

    def drawn_at(self, task_id: str, look: int) -> int:
        """After-rollouts of ``task_id`` drawn by the end of look ``look`` (0: none)."""
        return self.schedule[task_id][look - 1] if look else 0


class Trials:
    """Tonight's tests of edits against the night's files (``base``), over tonight's ``tasks``."""

    def __init__(
        self,
        draw: Draw,
        base: dict[str, str],
        tasks: Sequence[TaskRecord],
        policy: EvidencePolicy,
        nonce: str,
        rng: random.Random,
        ledger: Mapping[str, float] | None = None,
        allocation: Allocation = LEAN,
        older: Sequence[TaskRecord] = (),
    ) -> None:
        self.tasks, self.policy, self.nonce, self.rng = list(tasks), policy, nonce, rng
        # logged tasks tonight did not select: unseen tasks of an edit's kind when tonight has none
        self.older = list(older)
        self.allocation = allocation  # how the tests spend their rollouts (the gate's)
        self.spend = Spend()
        self.draw = self.spend.counting(draw)
        self.ledger = dict(ledger or {})  # edit key -> log e-value carried from earlier nights
        self.baseline = Pool(self.spend.counting(draw, "baseline"), base, f"{nonce}:base")
        self.shown: set[str] = set()
        self.plans: dict[frozenset[str], KindPlan] = {}  # sampled harm checks' designs, by tasks

    # -- where an edit is tested ---------------------------------------------------------------

    def place(self, cand: Candidate, shown_now: Sequence[TaskRecord]) -> None:
        """The tasks the edit addresses and the unseen tasks of their kind (no outcome is looked at)."""
        by_id = {t.id: t for t in self.tasks}
        rule = cand.edit.content
        cited = [by_id[i] for i in cand.edit.cites if i in by_id]
        plain = [t for t in shown_now if relevance(rule, t) >= RELEVANT]
        # a citation the rule's words do not touch, while other shown cases plainly match, is a slip
        addressed = [t for t in cited if not plain or relevance(rule, t) >= UNRELATED]
        addressed += [t for t in plain if t not in addressed]
        if not addressed:  # cites nothing usable: it answers the cases it was shown with
            addressed = list(shown_now)
        unseen = kin(addressed, [t for t in self.tasks if t.id not in self.shown])
        # none tonight: the log's older tasks of the kind, which no reflection tonight was shown,
        # check the same thing (the rule is not a memory of its own task) tonight, not a night later
        unseen = unseen or kin(addressed, self.older)
        room = max(0, self.policy.max_efficacy_tasks - len(addressed))
        if len(unseen) > room:
            unseen = self.rng.sample(sorted(unseen, key=lambda t: t.id), room)
        cand.addressed, cand.unseen = addressed, unseen
        cand.schedule = self.allocation.efficacy_schedule(
            self.policy, [t.id for t in addressed], [t.id for t in unseen]
        )

    # -- efficacy ---------------------------------------------------------------------------------

    async def efficacy(self, cands: Sequence[Candidate], step: int = 1) -> dict[str, EditEvidence]:
        """Test a round's edits where they act; Holm over the round. Returns evidence by edit key.
        An edit an earlier night showed helps (``carried``: an unconfirmed edit retested) stays out
        of the family, its level spent on its own night: it must show only what it lacked there; so
        does one ``by_evidence``, which passes only once its e-value over nights is high enough."""
        p = self.policy
        alpha = p.round_alpha(step)
        looks = len(self.allocation.efficacy_steps)
        for look in range(1, looks + 1):
            active = [c for c in cands if not c.stopped]
            if not active:
                break
            await self._look(active, look)
            decided = self._decided(cands, alpha)
            for c in active:
                futile = self.allocation.futile(_total(self._strata(c, c.efficacy_tasks)), look)
                if c.key in decided or (look < looks and futile):
                    c.stopped = True  # decided: a clear pass, or no sign of a gain
        for c in cands:
            unseen = {t.id for t in c.unseen}
            for t in c.efficacy_tasks:
                self.spend.save(
                    "unseen" if t.id in unseen else "efficacy",
                    c.drawn_at(t.id, looks) - c.drawn_at(t.id, c.looks),
                )
        adjusted = {c.key: self._adjusted(c) for c in cands}
        family = {c.key: adjusted[c.key] for c in cands if not (c.carried or c.by_evidence)}
        passed = holm(family, alpha) | {c.key for c in cands if c.carried}
        lv = {c.key: 1.0 if c.carried else 0.0 for c in cands} | holm_levels(family, alpha)
        return {
            c.key: self._efficacy_evidence(c, adjusted[c.key], lv[c.key], c.key in passed)
            for c in cands
        }

    def _decided(self, cands: Sequence[Candidate], alpha: float) -> set[str]:
        """Keys of the edits whose efficacy is decided a pass at this look (the allocation says
        when: :meth:`.allocation.Allocation.passes_early`)."""
        adjusted = {c.key: self._adjusted(c) for c in cands if not (c.carried or c.by_evidence)}
        shows = {c.key: self._unseen_shows(c) for c in cands}
        carried = {c.key for c in cands if c.carried and shows[c.key]}
        return carried | self.allocation.passes_early(adjusted, alpha, shows.__getitem__)

    def _unseen_shows(self, c: Candidate) -> bool:
        return not c.unseen or stratified_p(self._strata(c, c.unseen)) <= self.policy.unseen_alpha

    async def _look(self, cands: Sequence[Candidate], look: int) -> None:
        p = self.policy
        wants: dict[str, tuple[TaskRecord, int]] = {}
        for c in cands:
            for t in c.efficacy_tasks:
                wants[t.id] = (t, max(wants.get(t.id, (t, 0))[1], c.drawn_at(t.id, look)))
        await self.baseline.ensure(wants)

        async def one(c: Candidate) -> None:
            spans = {
                t.id: (c.drawn_at(t.id, look - 1), c.drawn_at(t.id, look)) for t in c.efficacy_tasks
            }
            unseen = {t.id for t in c.unseen}
            wants = [(t, spans[t.id][0], spans[t.id][1] - spans[t.id][0]) for t in c.efficacy_tasks]
            got = await self.draw(
                wants,
                c.files,
                f"{self.nonce}:{c.key}",
                parts={t.id: "unseen" if t.id in unseen else "efficacy" for t in c.efficacy_tasks},
            )
            increments = []
            for t in c.efficacy_tasks:
                new = got.get(t.id, [])
                c.after.setdefault(t.id, []).extend(new)
                increments.append(_counts(self.baseline.take(t.id, *spans[t.id]), new)[0])
            c.log_e += log_e_value(increments, p.evidence_odds)
            c.looks = look
            c.p_looks.append(stratified_p(self._strata(c, c.efficacy_tasks)))

        await asyncio.gather(*(one(c) for c in cands))

    def _counted(self, c: Candidate, tasks: Sequence[TaskRecord]) -> list[tuple[Stratum, int]]:
        """(stratum, errored rollouts) of each of ``tasks`` for ``c``: before from the baseline pool,
        after from ``c``'s draws."""
        return [
            _counts(self.baseline.take(t.id, 0, c.drawn_at(t.id, c.looks)), c.after.get(t.id, []))
            for t in tasks
        ]

    def _strata(self, c: Candidate, tasks: Sequence[TaskRecord]) -> list[Stratum]:
        return [stratum for stratum, _ in self._counted(c, tasks)]

    def log_evidence(self, c: Candidate) -> float:
        """The log e-value of ``c`` over every night it was tested, tonight included."""
        return self.ledger.get(c.key, 0.0) + c.log_e

    def _adjusted(self, c: Candidate) -> float:
        """The efficacy p-value, weighted-Bonferroni over the looks (valid whenever it stops)."""
        weights = self.allocation.efficacy_weights
        return min([1.0, *(p / w for p, w in zip(c.p_looks, weights, strict=False))])

    def _efficacy_evidence(
        self, c: Candidate, p_adj: float, alpha_edit: float, passed: bool
    ) -> EditEvidence:
        counted = self._counted(c, c.efficacy_tasks)
        strata, errored = [s for s, _ in counted], sum(e for _, e in counted)
        unseen = self._strata(c, c.unseen)
        p_unseen = stratified_p(unseen) if c.unseen else None
        log_total = self.log_evidence(c)
        ev = EditEvidence(
            edit=c.edit,
            round=c.round,
            verdict="inconclusive",
            cited=[t.id for t in c.addressed],
            unseen=[t.id for t in c.unseen],
            efficacy=_total(strata),
            unseen_counts=_total(unseen),
            p_efficacy=p_adj,
            p_unseen=p_unseen,
            alpha=alpha_edit,
            e_value=_exp(c.log_e),
            e_total=_exp(log_total),
            looks=c.looks,
            errored=errored,
            example=example_of(c.addressed, self.baseline.rollouts, c.after),
        )
        seen = Seen(strata, errored, p_adj, p_unseen, alpha_edit, passed, log_total, c.carried)
        return efficacy_verdict(ev, seen, self.policy)

    # -- harm -------------------------------------------------------------------------------------

    def harm_set(self, tasks_tested: Sequence[TaskRecord]) -> list[TaskRecord]:
        """The tasks a harm check replays: every task outside ``tasks_tested``, or, when there are
        more than its first look needs, a sample with each kind tested alone (:mod:`.harm_sample`)."""
        ids = {t.id for t in tasks_tested}
        others = sorted((t for t in self.tasks if t.id not in ids), key=lambda t: t.id)
        p, need = self.policy, self.allocation.harm_steps(self.policy, 1)[0]
        if len(others) > need:
            sample, plan = stratified_sample(
                others, need, p.harm_alpha, p.harm_kind_power, self.rng, self.baseline.reused
            )
            self.plans[frozenset(plan.first)] = plan
            self.spend.sampled.append((len(sample), len(others)))
            return sample
        if len(others) > p.harm_max_tasks:
            others = sorted(self.rng.sample(others, p.harm_max_tasks), key=lambda t: t.id)
        return others

    async def harm(
        self,
        files: dict[str, str],
        tasks: Sequence[TaskRecord],
        stream: str,
        looks: int | None = None,
    ) -> tuple[Counts, float | None]:
        """Fresh rollouts on ``tasks`` under ``files`` against the baseline; (counts, one-sided p of fewer
        passes, Bonferroni-adjusted over the looks), the looks spread evenly over the tasks as the
        allocation sets them; another look follows, up to ``harm_looks``, while harm is neither
        conclusive nor ruled out (:meth:`.allocation.Allocation.looks_again`)."""
        if not tasks:
            return Counts(), None
        p, order = self.policy, sorted(tasks, key=lambda t: t.id)
        steps = self.allocation.harm_steps(p, len(order))
        weights = self.allocation.harm_weights(p)[:looks]
        plan = self.plans.get(frozenset(t.id for t in order))
        first = dict(plan.first) if plan else self._spread(order, steps[0])
        steps = [s * sum(first.values()) // steps[0] for s in steps]
        pooled = 1.0 - plan.share if plan else 1.0  # the pooled test's share of the level
        after: dict[str, list[Rollout]] = {}
        drawn = dict.fromkeys(first, 0)
        p_adj = 1.0
        part = "joint" if stream.startswith("joint") else "harm"
        for look, weight in enumerate(weights, 1):
            step = steps[look - 1]
            upto = (
                {k: n * step // steps[0] for k, n in first.items()}
                if step % steps[0] == 0
                else self._spread(order, step)
            )
            await self.baseline.ensure({t.id: (t, upto[t.id]) for t in order})
            got = await self.draw(
                [(t, drawn[t.id], upto[t.id] - drawn[t.id]) for t in order],
                files,
                f"{self.nonce}:{stream}",
                part=part,
            )
            for t in order:
                after.setdefault(t.id, []).extend(got.get(t.id, []))
            drawn = upto
            strata = [
                _counts(self.baseline.take(t.id, 0, upto[t.id]), after[t.id])[0] for t in order
            ]
            p_adj, counts = (
                min(p_adj, stratified_p(strata, "less") / (weight * pooled)),
                _total(strata),
            )
            if plan and look == 1:  # each kind alone, where the plan sized it
                p_adj = min(
                    p_adj,
                    plan.p_kinds({t.id: s for t, s in zip(order, strata, strict=True)})
                    / plan.share,
                )
            if p_adj <= p.harm_conclusive or not self.allocation.looks_again(
                p, strata, counts, len(weights)
            ):
                break  # decided: conclusive harm, or harm ruled out (classic: no sign of any)
        self.spend.save(part, steps[len(weights) - 1] - sum(drawn.values()))
        return counts, min(1.0, p_adj)

    def _spread(self, order: Sequence[TaskRecord], total: int) -> dict[str, int]:
        """``total`` rollouts spread evenly over ``order``, the remainder on tasks drawn at random."""
        extra = {t.id for t in self.rng.sample(list(order), total % len(order))}
        return {t.id: total // len(order) + (t.id in extra) for t in order}

    async def judge_harm(self, cand: Candidate, ev: EditEvidence) -> EditEvidence:
        """Harm of an edit that passed efficacy, on every task outside its efficacy set."""
        tasks = self.harm_set(cand.efficacy_tasks)
        counts, p_less = await self.harm(cand.files, tasks, f"harm:{cand.key}")
        return self.harm_verdict(ev, tasks, counts, p_less)

    def harm_verdict(
        self, ev: EditEvidence, tasks: Sequence[TaskRecord], counts: Counts, p_less: float | None
    ) -> EditEvidence:
        """``ev`` with the harm check's counts and verdict: refused where the pass rate fell."""
        ev = ev.model_copy(
            update={"harm_tasks": [t.id for t in tasks], "harm": counts, "p_harm": p_less}
        )
        if p_less is None or p_less > self.policy.harm_alpha:
            return ev
        drop = f"{_rate(counts.before_rate)} -> {_rate(counts.after_rate)} (p = {p_less:.3g})"
        if p_less <= self.policy.harm_conclusive:
            return ev.model_copy(
                update={"verdict": "harmful", "reason": f"fewer passes on the other tasks: {drop}"}
            )
        return ev.model_copy(
            update={
                "verdict": "inconclusive",
                "reason": (
                    f"may harm the other tasks: {drop}; refused tonight, may be tested again"
                ),
            }
        )

    # -- together -----------------------------------------------------------------------------------

    async def conflicts(self, accepted: Sequence[Candidate], joint: dict[str, str]) -> set[str]:
        """Keys of accepted edits that lose, in the joint files, what they showed alone."""
        losers: set[str] = set()
        for c in accepted:
            tasks = c.efficacy_tasks
            got = await self.draw(
                [(t, 0, len(c.after.get(t.id, []))) for t in tasks],
                joint,
                f"{self.nonce}:joint:{c.key}",
                part="joint",
            )
            strata = [_counts(c.after.get(t.id, []), got.get(t.id, []))[0] for t in tasks]
            # the alone rollouts are those that passed efficacy, a lucky draw on average (the
            # winner's curse): only a conclusive loss counts as a conflict
            if stratified_p(strata, "less") <= self.policy.harm_conclusive:
                losers.add(c.key)
        acting = {t.id: t for c in accepted for t in c.efficacy_tasks}
        # each edit was checked for harm alone; together, one look is enough to see a clash
        _, p_less = await self.harm(joint, self.harm_set(list(acting.values())), "joint", looks=1)
        if p_less is not None and p_less <= self.policy.harm_alpha and not losers:
            losers.add(max(accepted, key=lambda c: (self._adjusted(c), c.key)).key)
        return losers
