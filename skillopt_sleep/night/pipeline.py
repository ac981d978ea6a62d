"""One night: replay, reflect, edit under guards, judge each edit alone (the rounds). Nothing live changes here.

A night is built in one place, :mod:`.root`, whichever way it starts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..backends.base import Backend, Message, Request
from ..backends.budget import Budget
from ..backends.retry import RetryPolicy
from ..checks.judge import (
    RUBRIC_SYSTEM,
    RubricJudge,
    RubricReply,
    parse_rubric_reply,
    rubric_prompt,
)
from ..clock import Clock
from ..counting import Usage
from ..errors import BackendOutage, BudgetExhausted, MalformedOutput
from ..evidence.pool import Want
from ..evidence.reserve import reuse_notes
from ..harvest.expanded import user_texts
from ..models import Edit, NightSummary, TaskRecord, WaitingEdit
from ..optimize.proposer import OptimizerProposer
from ..optimize.reflect import RETRY_NOTE
from ..optimize.rounds import CONCLUSIVE, Rounds, RoundsResult, Tonight
from ..optimize.seams import Gate
from ..optimize.seeds import NightSeeds
from ..optimize.select import Selection, scorable, select_tasks
from ..optimize.waiting import waiting_line
from ..paths import Paths
from ..rollouts.agent_dispatch import AgentReplays
from ..rollouts.replay import Calls, Replayer, Rollout
from ..rules.guards import GuardLimits
from ..rules.language import users_languages
from ..rules.lint import urls_in
from ..rules.refused import RefusedEdits
from ..rules.workspace import Workspace
from ..settings import Settings
from ..store import Store, atomic_write_text
from .edit_guard import EditGuard
from .tally import tally_line

Progress = Callable[[str, int, int], None]  # (phase, advance, total of phase)
JudgeArg = Backend | RubricJudge | None
Watch = Callable[
    [Budget], None
]  # an observer handed the night's budget as it starts (the heartbeat)


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


Stages = Callable[["Night", Selection, NightResult], Awaitable[None]]
"""What a night does between selecting its tasks and accounting for them: the product's is
:meth:`Night.edit_by_edit`; a benchmark composes its own from the night's public pieces
(:meth:`Night.replay`, :meth:`Night.finish`, ``proposer``, ``guard``, ``replayer``, ``summary``)."""


def night_id_for(project: Path, clock: Clock) -> str:
    short = hashlib.sha256(str(project).encode()).hexdigest()[:6]
    return f"{clock.now():%Y%m%d-%H%M%S}-{short}"


def new_night_id(store: Store, paths: Paths, project: Path, clock: Clock, prefix: str = "") -> str:
    """A fresh night id for ``project``, reserved in ``store`` so no other night shares it, even
    one started in the same second; an id whose night directory exists is never handed out."""
    return store.reserve_night_id(
        prefix + night_id_for(project, clock),
        str(project),
        clock.now(),
        lambda night_id: paths.night_dir(night_id).exists(),
    )


def _rubric_from_backend(backend: Backend, calls: Calls) -> RubricJudge:
    async def ask(prompt: str) -> RubricReply:
        request = Request(
            "judge",
            RUBRIC_SYSTEM,
            (Message("user", prompt),),
            max_tokens=200,
            temperature=0.0,
            tag="judge",
        )
        return parse_rubric_reply((await calls(backend, request)).text)

    async def rubric(text: str, task: TaskRecord, answer: str) -> tuple[float, str]:
        prompt = rubric_prompt(text, task, answer)
        try:
            reply = await ask(prompt)
        except MalformedOutput:
            reply = await ask(prompt + RETRY_NOTE)  # one retry on a malformed reply
        return reply.score, reply.reason

    return rubric


class Night:
    """The stages of one night, run in order by :meth:`run`: ``stages`` (None: the product's
    :meth:`edit_by_edit`) between selecting the tasks and accounting for them; ``watch`` is handed
    the night's budget as it starts, to follow what it spends."""

    def __init__(
        self,
        settings: Settings,
        workspace: Workspace,
        *,
        target: Backend,
        optimizer: Backend,
        judge: JudgeArg,
        store: Store | None,
        clock: Clock,
        seeds: NightSeeds,
        night_id: str,
        artifacts: Path | None,
        progress: Progress | None,
        night_index: int = 0,
        tried: Sequence[Edit] = (),
        ledger: Mapping[str, float] | None = None,
        gate: Gate | None = None,
        ignored: Sequence[str] = (),
        agents: AgentReplays | None = None,
        waiting: Sequence[WaitingEdit] = (),
        stages: Stages | None = None,
        watch: Watch | None = None,
    ) -> None:
        self.s, self.ws, self.store, self.clock, self.seeds = (
            settings,
            workspace,
            store,
            clock,
            seeds,
        )
        self.rng, self.trials_rng, self.stream = seeds.select, seeds.trials, seeds.stream
        self.optimizer, self.artifacts, self.night_index = optimizer, artifacts, night_index
        self.tried = list(tried)
        self.ignored = list(ignored)  # adopted rules the agent does not follow: optimizer cases
        self.ledger = dict(ledger or {})
        self.waiting = list(waiting)  # unconfirmed edits of earlier nights, retested first
        self.known: dict[str, TaskRecord] = {}
        self.gate = gate  # None: the product's evidence gate
        self.stages: Stages = stages or Night.edit_by_edit
        self.watch = watch
        self.budget = Budget(settings.budget)
        self.calls = Calls(
            self.budget, RetryPolicy(max_retries=settings.roles.target.max_retries), seeds.retry
        )
        self._progress = progress or (lambda phase, n, total: None)
        self._phase = ("", 0)
        self.replayer = self._replayer(target, judge, agents)
        self.summary = NightSummary(
            night_id=night_id,
            project=str(workspace.project),
            started_at=clock.now(),
            decision="no_evidence",
            skipped=list(workspace.skipped),
            target=f"{target.name}:{target.model}",
        )
        self.rollouts: dict[str, dict[str, list[Rollout]]] = {}
        self.proposer = self._proposer()
        self.guard = EditGuard(workspace.texts, self._guard_limits([]), self.summary.rejected_edits)

    def _replayer(self, target: Backend, judge: JudgeArg, agents: AgentReplays | None) -> Replayer:
        """Tonight's replays of ``target``, scored by ``judge``, with progress shown by phase."""
        rubric = _rubric_from_backend(judge, self.calls) if isinstance(judge, Backend) else judge
        return Replayer(
            target,
            self.calls,
            k=self.s.night.k,
            concurrency=self.s.night.concurrency,
            rubric=rubric,
            store=self.store,
            clock=self.clock,
            max_tokens=self.s.roles.target.max_tokens,
            progress=lambda n: self._progress(self._phase[0], n, self._phase[1]),
            agents=agents,
        )

    def _proposer(self) -> OptimizerProposer:
        """The optimizer asked for edits, its notes in the summary's, its reflections saved."""
        return OptimizerProposer(
            self.optimizer,
            self.calls,
            files=self.ws.texts,
            tried=self.tried,
            max_tokens=self.s.roles.optimizer.max_tokens,
            night_index=self.night_index,
            notes=self.summary.skipped,
            save=self._save,
            progress=self._progress,
            ignored=self.ignored,
        )

    async def run(
        self, tasks: Sequence[TaskRecord], last_night: datetime | None = None
    ) -> NightResult:
        if self.watch is not None:
            self.watch(self.budget)
        sel = select_tasks(tasks, self.s.night, self.rng, last_night)
        cited = {i for w in self.waiting for i in w.cited}  # retested on them, selected or not
        self.known = {t.id: s for t in tasks if t.id in cited and (s := scorable(t)) is not None}
        self.guard = EditGuard(
            self.ws.texts,
            self._guard_limits([*sel.train, *sel.holdout]),
            self.summary.rejected_edits,
        )
        self.summary.n_train, self.summary.n_holdout = len(sel.train), len(sel.holdout)
        self.summary.skipped += sel.skipped
        result = NightResult(self.summary, self.ws)
        try:
            await self.stages(self, sel, result)
        except BudgetExhausted as exc:
            self.finish("budget_exhausted", f"{exc.one_line()}; the rest of the night was skipped")
        except BackendOutage as exc:
            self.finish("outage", exc.one_line())
        self._account()
        self._write_artifacts(result)
        result.rollouts = self.rollouts
        return result

    async def edit_by_edit(self, sel: Selection, result: NightResult) -> None:
        """Edit by edit: every proposed edit tested alone where it acts, harm checked elsewhere."""
        if not sel.train:
            return self.finish("no_evidence", "not enough evidence: no task to learn from tonight")
        train = await self.replay("replay train", sel.train, self.ws.texts)
        served = sum(r.cached for rs in train.values() for r in rs)
        if served:
            self.summary.notes.append(
                f"train replay: {sum(map(len, train.values())) - served} rollouts drawn, {served} "
                "served from the cache (earlier replays, and tests under these files)"
            )
        if self.too_many_errors(train):
            return self.finish("no_evidence", "too many replays failed: no evidence tonight")
        tonight = Tonight(
            self.ws.texts,
            self.s.night,
            self.night_index,
            self.stream,
            self.trials_rng,
            self.ledger,
            waiting=self.waiting,
            known=self.known,
        )
        rounds = Rounds(
            tonight, proposer=self.proposer, guard=self.guard, drawer=self, gate=self.gate
        )
        return self._record_rounds(await rounds.run(sel, train), result)

    async def draw(
        self, wants: list[Want], files: dict[str, str], nonce: str
    ) -> dict[str, list[Rollout]]:
        """Fresh rollouts for the edits' tests (the rounds' :class:`~.seams.Drawer`), shown as one step.
        Those under edited files are kept in the cache: once the files are adopted, the next night's
        replay under them draws only what the tests did not."""
        self.set_phase("test edits", sum(count for _, _, count in wants))
        return await self.replayer.draw(wants, files, nonce, keep=files != self.ws.texts)

    def _record_rounds(self, rounds: RoundsResult, result: NightResult) -> None:
        s = self.summary
        s.evidence, result.ledger, s.saved_rollouts = rounds.evidence, rounds.ledger, rounds.saved
        s.gate_rollouts, s.gate_saved = rounds.parts, rounds.saved_parts
        s.errored_rollouts = sum(e.errored for e in rounds.evidence)
        s.waiting = [
            w if w.since else w.model_copy(update={"since": s.night_id}) for w in rounds.waiting
        ]
        s.retested, s.harm_sampled = rounds.retested, rounds.harm_sampled
        s.before_reused = rounds.before_reused
        s.notes += [*rounds.retested, *map(waiting_line, s.waiting), *reuse_notes(rounds)]
        refused = [
            e.edit.model_copy(update={"status": "rejected", "reason": e.reason})
            for e in rounds.evidence
            if e.verdict in CONCLUSIVE
        ]
        s.rejected_edits += refused
        budget_hit = self.replayer.budget_hit
        if budget_hit is not None:
            s.skipped.append(
                f"{self.replayer.stats.skipped} rollouts skipped: {budget_hit.one_line()}"
            )
        if rounds.adopted:
            result.candidate, s.edits = rounds.files, rounds.adopted
            return self.finish("accept", tally_line(rounds.evidence, len(rounds.adopted)))
        if budget_hit is not None:
            return self.finish(
                "budget_exhausted", f"{budget_hit.one_line()}; no edit was proven tonight"
            )
        if not rounds.evidence:
            why = (
                "no edit passed the guards"
                if s.rejected_edits
                else "the optimizer proposed no edit"
            )
            return self.finish("no_evidence", f"no candidate tonight: {why}")
        decision = "reject" if refused else "no_evidence"
        return self.finish(decision, tally_line(rounds.evidence, 0))

    async def replay(
        self,
        phase: str,
        tasks: Sequence[TaskRecord],
        files: dict[str, str],
        *,
        stop_on_budget: bool = True,
    ) -> dict[str, list[Rollout]]:
        """K rollouts of each of ``tasks`` under ``files`` (cached ones reused), kept for the artifacts.
        A budget hit stops the night here, unless ``stop_on_budget`` is off."""
        self._phase = (phase, len(tasks) * self.s.night.k)
        self._progress(phase, 0, self._phase[1])  # the step is shown before its first result
        rollouts = await self.replayer.replay(tasks, files)
        self.rollouts[phase] = rollouts
        if self.replayer.budget_hit is not None and stop_on_budget:
            raise self.replayer.budget_hit
        return rollouts

    def too_many_errors(self, rollouts: dict[str, list[Rollout]]) -> bool:
        """More of ``rollouts`` errored than the night allows: no evidence, not a score of 0."""
        every = [r for rs in rollouts.values() for r in rs]
        bad = sum(1 for r in every if r.score is None)
        return not every or bad / len(every) > self.s.night.max_error_rate

    def set_phase(self, phase: str, total: int) -> None:
        self._phase = (phase, total)
        self._progress(phase, 0, total)  # the step is shown before its first result

    def _guard_limits(self, tasks: Sequence[TaskRecord]) -> GuardLimits:
        seen = [text for t in tasks for text in user_texts(t)] + list(
            self.ws.texts.values()
        )  # the user's words
        return GuardLimits(
            max_bytes=self.s.files.max_bytes,
            known_urls=frozenset(urls_in("\n".join(seen))),
            languages=users_languages(seen),
            refused=RefusedEdits(self.tried, {t.id: t for t in tasks}),
            max_rules=self.s.files.max_rules,
            memory=self.ws.placement.rules_in,
        )

    def finish(self, decision: str, reason: str) -> None:
        """End the night's stages with ``decision`` and the one line that says why."""
        self.summary.decision = decision  # type: ignore[assignment]
        self.summary.reason = reason
        self.summary.finished_at = self.clock.now()

    def _account(self) -> None:
        s, total = self.summary, self.budget.total
        s.usage_by_role = {role: Usage(**u.model_dump()) for role, u in self.budget.by_role.items()}
        s.calls, s.tokens, s.cost_usd = total.calls, total.tokens, round(total.cost_usd, 6)
        s.errored_rollouts = max(s.errored_rollouts, self.replayer.stats.errored)
        if self.replayer.agents is not None:  # why some tasks were replayed as text
            s.skipped += [n for n in self.replayer.agents.notes if n not in s.skipped]
        if self.budget.unpriced_models:
            s.skipped.append(
                "cost unknown for models "
                + ", ".join(sorted(self.budget.unpriced_models))
                + ": add [budget.prices] to the config"
            )
        s.finished_at = s.finished_at or self.clock.now()

    def _save(self, name: str, payload: object) -> None:
        if self.artifacts is not None:
            atomic_write_text(
                self.artifacts / name, json.dumps(payload, indent=2, sort_keys=True, default=str)
            )

    def _write_artifacts(self, result: NightResult) -> None:
        if self.artifacts is None:
            return
        lines = [
            json.dumps({"phase": phase, **r.as_json()}, sort_keys=True)
            for phase, by_task in self.rollouts.items()
            for rs in by_task.values()
            for r in rs
        ]
        atomic_write_text(
            self.artifacts / "rollouts.jsonl", "\n".join(lines) + ("\n" if lines else "")
        )
        if self.summary.evidence:
            self._save("evidence.json", [e.model_dump(mode="json") for e in self.summary.evidence])
        for name, text in (result.candidate or {}).items():
            atomic_write_text(self.artifacts / "candidate" / name, text)
        self._save("summary.json", self.summary.model_dump(mode="json"))
