"""The training loop: epochs of steps over a task set, each step one unit of the run directory.

A step: a seeded batch of training items is rolled out K times under the current skill; the
analysts reflect on it in minibatches (:mod:`.analysts`); similar edits are merged and ranked
(:mod:`.aggregate`); the best-ranked ones, up to the step's scheduled edit budget, that pass the
guards alone go to the gate (:mod:`.gate`); what it accepts is applied (:mod:`.update`) and the
next step starts from there. After each epoch: the slow update and the meta skill
(:mod:`.epoch`). The best skill is the one with the best validation score; the test split is
scored only at the end (:mod:`.report`).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from ..backends.budget import Budget
from ..counting import Usage
from ..errors import BackendOutage, BudgetExhausted
from ..models import Edit
from ..optimize.analysts import Context, sort_cases
from ..optimize.optimizer import Optimizer
from ..optimize.prompts import Prompts
from ..optimize.reflect import Case
from ..optimize.rounds import CONCLUSIVE
from ..rollouts.replay import Replayer, Rollout
from ..rules.guards import GuardLimits
from ..rules.lint import urls_in
from ..store import sha256_text
from . import epoch, report
from .batches import stratified
from .config import StepRecord, TrainConfig, TrainSummary
from .data import TaskSet
from .gate import GateOutcome
from .merging import Stages
from .metric import MetricDrawer, mean_metric
from .rundir import RunDir, RunState
from .seed_artifacts import final_selection_eval, seed_artifacts, selection_eval
from .spending import gate_levels, spent, step_budget
from .step import AnalystProposer, SkillGuard, carry, step_artifacts
from .step_gate import EvidenceStepGate, StepGate, StepInput

Progress = Callable[[str], None]
MAX_SKILL_BYTES = 64 * 1024


def derive(seed: int, *parts: object) -> int:
    """A seed for one purpose of one unit: every draw of a run is a function of (seed, unit, purpose)."""
    return int(hashlib.sha256("\x00".join(map(str, (seed, *parts))).encode()).hexdigest()[:16], 16)


@dataclass(frozen=True)
class Unit:
    kind: str  # "step" or "slow_update"
    epoch: int
    step: int  # the step's number in the whole run, from 0 (a slow update: its epoch's last)

    def name(self, index: int) -> str:
        what = f"s{self.step + 1}" if self.kind == "step" else "slow"
        return f"{index + 1:04d}-e{self.epoch}-{what}"


def units(config: TrainConfig) -> list[Unit]:
    out = []
    for e in range(1, config.epochs + 1):
        out += [
            Unit("step", e, (e - 1) * config.steps_per_epoch + s)
            for s in range(config.steps_per_epoch)
        ]
        if config.slow_update or config.meta_skill:
            out.append(Unit("slow_update", e, e * config.steps_per_epoch - 1))
    return out


class Trainer:
    """One run over ``data`` from ``skill``, recorded in ``run``."""

    def __init__(
        self,
        config: TrainConfig,
        data: TaskSet,
        skill: str,
        *,
        replayer: Replayer,
        optimizer: Optimizer,
        budget: Budget,
        prompts: Prompts,
        run: RunDir,
        progress: Progress | None = None,
        gate: StepGate | None = None,
    ) -> None:
        self.gate: StepGate = gate or EvidenceStepGate()
        self.c, self.data, self.initial, self.replayer = config, data, skill, replayer
        self.opt, self.budget, self.prompts, self.run = optimizer, budget, prompts, run
        self.progress = progress or (lambda line: None)
        texts = [t.intent + "\n" + t.context for t in (*data.train, *data.val)] + [skill]
        self.limits = GuardLimits(
            max_bytes={"SKILL.md": MAX_SKILL_BYTES}, known_urls=frozenset(urls_in("\n".join(texts)))
        )
        self.draw = replayer.draw
        self.stopped_by: Literal["", "budget", "outage"] = ""
        self.val_drawn: dict[str, dict[str, list[Rollout]]] = {}  # skill sha -> its val rollouts

    def fresh_state(self) -> RunState:
        schedule = [step_budget(self.c, u.step) for u in units(self.c) if u.kind == "step"]
        return RunState(
            seed=self.c.seed,
            current=self.initial,
            best=self.initial,
            epoch_start=self.initial,
            schedule=schedule,
        )

    async def train(self) -> tuple[RunState, TrainSummary]:
        st = self.run.state() or self.fresh_state()
        if st.unit == 0 and not st.val_cache:
            self.run.write_initial(self.initial)
        st.stopped = ""
        plan = units(self.c)
        try:
            if st.initial_val is None:
                st.initial_val = st.best_val = await self.val_score(st, self.initial)
                drawn = self.val_drawn.pop(sha256_text(self.initial)[:16], {})
                self.run.write_files(selection_eval(drawn, "baseline_selection_eval"))
            for index in range(st.unit, len(plan)):
                await self._unit(st, index, plan[index])
        except (BudgetExhausted, BackendOutage) as exc:
            st.stopped = exc.one_line()
            self.stopped_by = "outage" if isinstance(exc, BackendOutage) else "budget"
        if self.replayer.budget_hit is not None and not st.stopped:
            st.stopped, self.stopped_by = self.replayer.budget_hit.one_line(), "budget"
        if (
            st.stopped
        ):  # the unfinished unit is dropped: a rerun redoes it from the last finished one
            kept = self.run.state() or self.fresh_state()
            kept.stopped, kept.usage_by_role = st.stopped, dict(self.budget.by_role)
            self.run.save(kept)
            return kept, self._summary(kept, None, None)
        self.run.write_files(final_selection_eval(self.run.path, st.current, st.best))
        summary = await self._test_report(st)
        if (
            summary.stopped
        ):  # the budget ran out in the test report: kept unwritten, a rerun scores it
            st.usage_by_role = dict(self.budget.by_role)
            self.run.save(st)
        else:
            self.run.write_summary(summary)
        return st, summary

    async def _unit(self, st: RunState, index: int, unit: Unit) -> None:
        name = unit.name(index)
        self.progress(f"{name}: {'step' if unit.kind == 'step' else 'slow update and meta skill'}")
        errored = self.replayer.stats.errored
        self.opt.log = []
        if unit.kind == "step":
            artifacts = await self._step(st, index, unit)
        else:
            artifacts = await self._boundary(st, index, unit)
        if self.replayer.budget_hit is not None:
            raise self.replayer.budget_hit  # an unfinished unit is never recorded
        artifacts["reflections.json"] = self.opt.log
        artifacts["skill.md"] = st.current  # the skill after this unit, to read or to restart from
        st.errored += self.replayer.stats.errored - errored
        st.unit = index + 1
        st.usage_by_role = dict(self.budget.by_role)
        self.run.commit(name, artifacts, st)

    async def _step(self, st: RunState, index: int, unit: Unit) -> dict[str, object]:
        c = self.c
        batch = stratified(
            self.data.train, c.batch_size, random.Random(derive(c.seed, index, "batch"))
        )
        rollouts = await self.draw(
            [(t, 0, c.k) for t in batch], {"SKILL.md": st.current}, f"{c.seed}:{index}:roll"
        )
        groups = sort_cases(batch, rollouts)
        if c.failure_only:  # the seeds' failure_only: what works is not shown to an analyst
            groups.pop("success")
        proposer = self._proposer(st, index, groups)
        artifacts: dict[str, object] = {"rollouts.jsonl": _rollout_lines(rollouts)}
        artifacts.update(await self._decide(st, index, unit, proposer))
        return artifacts

    def _proposer(
        self, st: RunState, index: int, groups: dict[str, list[Case]], **kw: Any
    ) -> AnalystProposer:
        ctx = Context(st.current, self.c.mode, st.tried, st.notes)
        unit = f"{self.c.seed}:{index}"
        kw.setdefault("env_analyst", getattr(self.replayer.env, "analyse", None))
        if self.c.merge == "model":
            kw["stages"] = Stages(self.opt, self.prompts, st.current, unit, self.c.merge_batch_size)
        return AnalystProposer(self.opt, self.prompts, groups, ctx, self.c.minibatch, unit, **kw)

    async def _boundary(self, st: RunState, index: int, unit: Unit) -> dict[str, object]:
        c = self.c
        artifacts: dict[str, object] = {}
        if c.slow_update:
            artifacts.update(await self._slow_update(st, index, unit))
        if c.meta_skill:
            accepted = [e for h in st.history for e in h.accepted]
            prompt = epoch.meta_prompt(accepted, st.tried, st.history, st.notes)
            notes = await self.opt.ask(
                self.prompts["meta_skill"],
                prompt,
                epoch.parse_notes,
                seed=derive(c.seed, index, "meta") % 2**31,
                tag="meta",
            )
            st.notes = notes if notes is not None else st.notes
            artifacts["meta_skill.md"] = st.notes
        st.epoch_start = st.current
        return artifacts

    async def _slow_update(self, st: RunState, index: int, unit: Unit) -> dict[str, object]:
        """The epoch's skill against its start on a sample: its regressions, failures and gains."""
        c = self.c
        pool = sorted(self.data.train, key=lambda t: t.id)
        sample = random.Random(derive(c.seed, index, "slow")).sample(
            pool, min(c.slow_sample, len(pool))
        )
        wants = [(t, 0, c.k) for t in sample]
        before = await self.draw(
            wants, {"SKILL.md": st.epoch_start}, f"{c.seed}:{index}:epoch-start"
        )
        after = await self.draw(wants, {"SKILL.md": st.current}, f"{c.seed}:{index}:now")
        sorted_items = epoch.compare(sample, before, after)
        shown = ("regressed", "still failing") + (() if c.failure_only else ("improved",))
        groups = {g: [case for _, case in sorted_items[g] if case is not None] for g in shown}
        proposer = self._proposer(
            st,
            index,
            groups,
            head=epoch.comparison_head(sorted_items),
            analyst_of=dict.fromkeys(groups, "slow_update"),
        )
        artifacts: dict[str, object] = {
            "comparison.json": {g: [t.id for t, _ in v] for g, v in sorted_items.items()},
            "rollouts.jsonl": _rollout_lines(before, "epoch-start") + _rollout_lines(after, "now"),
        }
        artifacts.update(await self._decide(st, index, unit, proposer))
        return artifacts

    async def _decide(
        self, st: RunState, index: int, unit: Unit, proposer: AnalystProposer
    ) -> dict[str, object]:
        """Reflect, merge and rank, gate under the step's budget, update; the unit's artifacts."""
        c = self.c
        budget = st.schedule[unit.step]
        proposer.budget = budget
        self.val_drawn = {}  # only this step's validation rollouts make its selection_eval/
        st.gates += 1
        levels = gate_levels(c, st.gates)
        refused: list[Edit] = []
        guard = SkillGuard(c.mode, st.current, self.limits, refused)
        shown = [case.task for case in proposer.cases]
        outcome = await self.gate.decide(
            StepInput(
                c,
                proposer,
                guard,
                MetricDrawer(self.replayer, c),
                list({t.id: t for t in (*shown, *self.data.val)}.values()),
                levels,
                st.gates,
                budget,
                f"{c.seed}:{index}:gate",
                random.Random(derive(c.seed, index, "gate")),
                st.ledger,
                val_score=lambda s: self.val_score(st, s),
                fresh_score=lambda s: self.val_score(st, s, fresh=f"{index}"),
            )
        )
        st.alpha_spent = spent(c, st.gates)
        await self._record(st, index, unit, outcome, budget, levels.alpha, proposer)
        gate = {"gate": st.gates, "alpha": levels.alpha, "evidence_alpha": levels.evidence_alpha}
        seeds = seed_artifacts(proposer, guard, refused, outcome, budget)
        seeds.update(selection_eval(self.val_drawn.pop(sha256_text(st.current)[:16], {})))
        return {**step_artifacts(proposer, refused, outcome, {**gate, "budget": budget}), **seeds}

    async def _record(
        self,
        st: RunState,
        index: int,
        unit: Unit,
        outcome: GateOutcome,
        budget: int,
        alpha: float,
        proposer: AnalystProposer,
    ) -> None:
        carry(st.ledger, outcome.ledger)
        if self.gate.remembers:  # a gate that remembers nothing may try an edit again
            st.tried += [
                e.edit.model_copy(update={"status": "rejected", "reason": e.reason})
                for e in outcome.evidence
                if e.verdict in CONCLUSIVE
            ]
        st.evidence += outcome.evidence
        st.current = outcome.skill
        val = await self.val_score(st, st.current)
        if outcome.applied and val is not None and (st.best_val is None or val > st.best_val):
            st.best, st.best_val, st.best_step = st.current, val, index + 1
        st.history.append(
            StepRecord(
                step=index + 1,
                epoch=unit.epoch,
                kind="step" if unit.kind == "step" else "slow_update",
                budget=budget,
                alpha=alpha,
                proposed=len(proposer.proposals),
                merged=len(proposer.merged),
                tested=outcome.tested,
                accepted=outcome.applied,
                val=val,
                reason=outcome.reason,
            )
        )

    async def val_score(self, st: RunState, skill: str, fresh: str = "") -> float | None:
        """The gate metric's mean on the validation split (under ``hard``, the pass rate), cached
        by the skill's hash (its sample stream too); with ``fresh``, new rollouts of a stream of
        that name, not cached."""
        sha = sha256_text(skill)[:16]
        if fresh:
            scores = await report.score(
                self.draw, self.data.val, skill, self.c.val_k, f"{self.c.seed}:val:{sha}:{fresh}"
            )
            return mean_metric(self.c, list(scores.values()))
        if sha not in st.val_cache:
            wants = [(t, 0, self.c.val_k) for t in self.data.val]
            drawn = await self.draw(wants, {"SKILL.md": skill}, f"{self.c.seed}:val:{sha}")
            self.val_drawn[sha] = drawn  # the step's selection_eval/, when it is the step's skill
            scores = report.per_item(drawn)
            st.val_cache[sha] = mean_metric(self.c, list(scores.values()))
        return st.val_cache[sha]

    async def _test_report(self, st: RunState) -> TrainSummary:
        c = self.c
        nonce = f"{c.seed}:test"
        self.progress("test report: the initial and the best skill")
        errored = self.replayer.stats.errored
        wants = [(t, 0, c.test_k) for t in self.data.test]
        drawn = await self.draw(wants, {"SKILL.md": self.initial}, nonce)
        self.run.write_test("baseline", _rollout_lines(drawn, "test-baseline"))
        drawn_best = drawn
        if st.best != self.initial:
            drawn_best = await self.draw(wants, {"SKILL.md": st.best}, nonce)
            self.run.write_test("best", _rollout_lines(drawn_best, "test-best"))
        base, best = report.per_item(drawn), report.per_item(drawn_best)
        if self.replayer.budget_hit is not None:
            st.stopped, self.stopped_by = self.replayer.budget_hit.one_line(), "budget"
            return self._summary(st, None, None)
        st.errored += self.replayer.stats.errored - errored
        rng = random.Random(derive(c.seed, "test-report"))
        summary = self._summary(st, base, best)
        summary.gain_hard = report.paired_gain(base, best, 0, rng)
        summary.gain_soft = report.paired_gain(base, best, 1, rng)
        return summary

    def _summary(
        self, st: RunState, base: report.Scores | None, best: report.Scores | None
    ) -> TrainSummary:
        accepted = [e for h in st.history for e in h.accepted]
        return TrainSummary(
            baseline=report.mean_score(base or {}),
            best=report.mean_score(best or {}),
            best_step=st.best_step,
            best_unit=units(self.c)[st.best_step - 1].name(st.best_step - 1)
            if st.best_step
            else "",
            val_initial=st.initial_val,
            val_best=st.best_val,
            steps=sum(h.kind == "step" for h in st.history),
            slow_updates=sum(h.kind == "slow_update" for h in st.history),
            accepted_edits=accepted,
            refused=sum(1 for e in st.evidence if e.verdict != "accepted"),
            errored_rollouts=st.errored,
            n_train=len(self.data.train),
            n_val=len(self.data.val),
            n_test=len(self.data.test),
            gate=self.gate.name,
            alpha=self.c.run_alpha,
            alpha_spent=round(st.alpha_spent, 6),
            usage=sum(self.budget.by_role.values(), Usage()),
            stopped=st.stopped,
            stopped_by=self.stopped_by if st.stopped else "",
        )


def _rollout_lines(rollouts: dict[str, list[Rollout]], phase: str = "batch") -> str:
    lines = [
        json.dumps({"phase": phase, **r.as_json(conversation=True)}, sort_keys=True)
        for rs in rollouts.values()
        for r in rs
    ]
    return "\n".join(lines) + ("\n" if lines else "")
