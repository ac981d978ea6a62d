"""One night: replay, reflect, edit under guards, judge each edit alone (the rounds). Nothing live changes here.

A night is built in one place, :mod:`.root`, whichever way it starts.
"""

from __future__ import annotations

import functools
import hashlib
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
from ..errors import BackendOutage, BudgetExhausted, MalformedOutput
from ..evidence.pool import Want
from ..harvest.expanded import user_texts
from ..models import Edit, NightSummary, TaskRecord, WaitingEdit
from ..optimize.prompts import load_prompts, user_prompts
from ..optimize.proposer import OptimizerProposer
from ..optimize.reflect import RETRY_NOTE
from ..optimize.rounds import Rounds, Tonight
from ..optimize.seams import Gate
from ..optimize.seeds import NightSeeds
from ..optimize.select import Selection, scorable, select_tasks
from ..paths import Paths
from ..rollouts.agent_dispatch import AgentReplays
from ..rollouts.replay import Calls, Replayer, Rollout, system_text
from ..rules.guards import GuardLimits
from ..rules.language import users_languages
from ..rules.lint import urls_in
from ..rules.refused import RefusedEdits
from ..rules.workspace import Workspace
from ..settings import Settings
from ..store import Store
from .edit_guard import EditGuard
from .recorder import NightResult, Recorder

Progress = Callable[[str, int, int], None]  # (phase, advance, total of phase)
JudgeArg = Backend | RubricJudge | None
Watch = Callable[
    [Budget], None
]  # an observer handed the night's budget as it starts (the heartbeat)


Stages = Callable[["Night", Selection, NightResult], Awaitable[None]]
"""What a night does between selecting its tasks and accounting for them: the product's is
:meth:`Night.edit_by_edit`; a benchmark composes its own from the night's public pieces
(:meth:`Night.replay`, ``record`` (its ``finish``), ``proposer``, ``guard``, ``replayer``,
``summary``, ``plan``)."""


@dataclass(frozen=True)
class Backends:
    """The backend of each role (one backend may serve several)."""

    target: Backend
    optimizer: Backend
    judge: Backend


@dataclass(frozen=True)
class NightPlan:
    """Everything a night is built from: one settings object, the backends, and its place in the
    project's history (``night_index`` nights before it, ``tried`` edits refused for good,
    ``ledger`` evidence carried by edit key). ``rubric`` replaces the judge backend for rubric
    checks; ``gate`` decides which edits pass (None: the product's evidence gate); ``stages`` replaces
    the night's stages (a benchmark's baseline); ``watch`` follows what the night spends."""

    settings: Settings
    project: Path
    backends: Backends
    clock: Clock
    store: Store | None = None
    night_id: str | None = None  # None: from the project and the clock
    artifacts: Path | None = None
    progress: Progress | None = None
    night_index: int = 0
    tried: Sequence[Edit] = ()
    ledger: Mapping[str, float] = field(default_factory=dict)
    rubric: RubricJudge | None = None
    gate: Gate | None = None
    stages: Stages | None = None  # None: the product's edit-by-edit stages
    watch: Watch | None = None  # handed the night's budget as it starts (the heartbeat)
    ignored: Sequence[str] = ()  # adopted rules the agent does not follow: cases for the optimizer
    agents: AgentReplays | None = None  # replays tasks with action checks through the real agent
    waiting: Sequence[WaitingEdit] = ()  # unconfirmed edits of earlier nights, retested first


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


def rubric_from_backend(backend: Backend, calls: Calls) -> RubricJudge:
    """Rubric checks scored by ``backend``'s replies, through ``calls`` (the night's or a training
    run's budget and retries); a malformed reply is asked once more, with the retry note."""

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
    """The stages of one night, run in order by :meth:`run`: the plan's ``stages`` (None: the
    product's :meth:`edit_by_edit`) between selecting the tasks and accounting for them; its
    ``watch`` is handed the night's budget as it starts, to follow what it spends. ``workspace``
    is the files the night read as it was built; the stages report to ``record``."""

    def __init__(self, plan: NightPlan, workspace: Workspace) -> None:
        settings, self.plan = plan.settings, plan
        self.s, self.ws, self.store, self.clock = settings, workspace, plan.store, plan.clock
        self.seeds = NightSeeds.of(settings.night.seed, plan.night_index)
        night_id = plan.night_id or night_id_for(plan.project, plan.clock)
        self.rng, self.trials_rng, self.stream = (
            self.seeds.select,
            self.seeds.trials,
            self.seeds.stream,
        )
        self.known: dict[str, TaskRecord] = {}
        self.stages: Stages = plan.stages or Night.edit_by_edit
        self.budget = Budget(settings.budget)
        self.calls = Calls(
            self.budget,
            RetryPolicy(max_retries=settings.roles.target.max_retries),
            self.seeds.retry,
        )
        self._progress = plan.progress or (lambda phase, n, total: None)
        self._phase = ("", 0)
        target = plan.backends.target
        self.replayer = self._replayer(target, plan.rubric or plan.backends.judge, plan.agents)
        self.summary = NightSummary(
            night_id=night_id,
            project=str(workspace.project),
            started_at=plan.clock.now(),
            decision="no_evidence",
            skipped=list(workspace.skipped),
            target=f"{target.name}:{target.model}",
        )
        self.record = Recorder(NightResult(self.summary, workspace), plan.artifacts, plan.clock)
        self.proposer = self._proposer()
        self.guard = EditGuard(workspace.texts, self._guard_limits([]), self.summary.rejected_edits)

    def _replayer(self, target: Backend, judge: JudgeArg, agents: AgentReplays | None) -> Replayer:
        """Tonight's replays of ``target``, scored by ``judge``, with progress shown by phase."""
        rubric = rubric_from_backend(judge, self.calls) if isinstance(judge, Backend) else judge
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
            system=functools.partial(system_text, skill_at=self.ws.skill_at()),
        )

    def _proposer(self) -> OptimizerProposer:
        """The optimizer asked for edits, its notes in the summary's, its reflections saved."""
        return OptimizerProposer(
            self.plan.backends.optimizer,
            self.calls,
            files=self.ws.texts,
            tried=self.plan.tried,
            max_tokens=self.s.roles.optimizer.max_tokens,
            night_index=self.plan.night_index,
            notes=self.summary.skipped,
            save=self.record.save,
            progress=self._progress,
            ignored=self.plan.ignored,
            prompts=load_prompts(user_prompts(self.s.night.prompts)),
        )

    async def run(
        self, tasks: Sequence[TaskRecord], last_night: datetime | None = None
    ) -> NightResult:
        if self.plan.watch is not None:
            self.plan.watch(self.budget)
        sel = select_tasks(tasks, self.s.night, self.rng, last_night)
        cited = {i for w in self.plan.waiting for i in w.cited}  # retested on them, selected or not
        self.known = {t.id: s for t in tasks if t.id in cited and (s := scorable(t)) is not None}
        self.guard = EditGuard(
            self.ws.texts,
            self._guard_limits([*sel.train, *sel.holdout]),
            self.summary.rejected_edits,
        )
        self.summary.n_train, self.summary.n_holdout = len(sel.train), len(sel.holdout)
        self.summary.skipped += sel.skipped
        result = self.record.result
        try:
            await self.stages(self, sel, result)
        except BudgetExhausted as exc:
            self.record.finish(
                "budget_exhausted", f"{exc.one_line()}; the rest of the night was skipped"
            )
        except BackendOutage as exc:
            self.record.finish("outage", exc.one_line())
        self.record.account(self.budget, self.replayer)
        self.record.write()
        return result

    async def edit_by_edit(self, sel: Selection, result: NightResult) -> None:
        """Edit by edit: every proposed edit tested alone where it acts, harm checked elsewhere."""
        if not sel.train:
            self.record.finish("no_evidence", "not enough evidence: no task to learn from tonight")
            return
        train = await self.replay("replay train", sel.train, self.ws.texts)
        served = sum(r.cached for rs in train.values() for r in rs)
        if served:
            self.summary.notes.append(
                f"train replay: {sum(map(len, train.values())) - served} rollouts drawn, {served} "
                "served from the cache (earlier replays, and tests under these files)"
            )
        if self.too_many_errors(train):
            self.record.finish("no_evidence", "too many replays failed: no evidence tonight")
            return
        tonight = Tonight(
            self.ws.texts,
            self.s.night,
            self.plan.night_index,
            self.stream,
            self.trials_rng,
            dict(self.plan.ledger),
            waiting=list(self.plan.waiting),
            known=self.known,
        )
        rounds = Rounds(
            tonight, proposer=self.proposer, guard=self.guard, drawer=self, gate=self.plan.gate
        )
        done = await rounds.run(sel, train)
        self.record.rounds(done, self.replayer.budget_hit, self.replayer.stats.skipped)

    async def draw(
        self, wants: list[Want], files: dict[str, str], nonce: str
    ) -> dict[str, list[Rollout]]:
        """Fresh rollouts for the edits' tests (the rounds' :class:`~.seams.Drawer`), shown as one step.
        Those under edited files are kept in the cache: once the files are adopted, the next night's
        replay under them draws only what the tests did not."""
        self.set_phase("test edits", sum(count for _, _, count in wants))
        return await self.replayer.draw(wants, files, nonce, keep=files != self.ws.texts)

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
        self.record.replayed(phase, rollouts)
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
            refused=RefusedEdits(list(self.plan.tried), {t.id: t for t in tasks}),
            max_rules=self.s.files.max_rules,
            memory=self.ws.placement.rules_in,
        )
