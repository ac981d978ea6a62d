"""The night's own replay as the before side of its tests, on a reserve set aside by task id: the
reserve is the same whatever the replay shows, the optimizer never sees it, a rule that breaks a
reserved kind is still refused, a harmless one no more often than before, and the night says so."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timezone

from skillopt_sleep.evidence import Candidate, EvidencePolicy, Trials
from skillopt_sleep.evidence.allocation import LEAN
from skillopt_sleep.evidence.gate import EvidenceGate
from skillopt_sleep.evidence.reserve import CASE_POOL, reserve, set_aside
from skillopt_sleep.evidence.together import settle
from skillopt_sleep.models import Check, Edit, EditEvidence, TaskRecord
from skillopt_sleep.night.edit_guard import EditGuard
from skillopt_sleep.optimize.reflect import Case
from skillopt_sleep.optimize.rounds import Rounds, Tonight
from skillopt_sleep.optimize.seams import Want
from skillopt_sleep.optimize.select import Selection
from skillopt_sleep.rollouts.replay import Rollout
from skillopt_sleep.rules.guards import GuardLimits
from skillopt_sleep.settings import NightSettings

DAY = datetime(2026, 1, 5, tzinfo=timezone.utc)
BASE: dict[str, str] = {}
EDIT = {"CLAUDE.md": "the rule"}
FILES = {"CLAUDE.md": "# Project notes\n"}


def _task(i: int, kind: int) -> TaskRecord:
    return TaskRecord(
        source="manual",
        project="/p",
        session_id=f"s{i}",
        created_at=DAY,
        intent=f"task {i}",
        checks=[Check(kind="contains", value=f"kind-{kind}")],
    )


def _rollouts(task: TaskRecord, passes: Sequence[bool], first: int = 0) -> list[Rollout]:
    return [Rollout(task.id, first + s, "", float(ok), ok) for s, ok in enumerate(passes)]


def _world(rng: random.Random, rates: dict[str, float], after: dict[str, float]):  # type: ignore[no-untyped-def]
    """Rollouts passing at each task's rate (``after``'s under the edit); draws are counted."""
    drawn = {"base": 0}

    async def draw(wants, files, nonce):  # type: ignore[no-untyped-def]
        table = rates if files is BASE else after
        if files is BASE:
            drawn["base"] += sum(count for _, _, count in wants)
        return {
            t.id: _rollouts(t, [rng.random() < table[t.id] for _ in range(count)], first)
            for t, first, count in wants
        }

    return draw, drawn


def test_the_reserve_is_the_same_whatever_the_replay_shows():
    tasks = [_task(i, i % 4) for i in range(40)]
    policy = EvidencePolicy.from_settings()
    shown = []
    for outcome in (True, False, None):
        replay = {
            t.id: _rollouts(t, [outcome if outcome is not None else s % 2 == 0 for s in range(4)])
            for t in tasks
        }
        trials = Trials(
            _world(random.Random(1), {}, {})[0], BASE, tasks, policy, "t", random.Random(1)
        )
        pool = set_aside(trials, tasks, replay, shown=6)
        shown.append([t.id for t in pool])
        assert set(trials.baseline.reused) == reserve(tasks, 6)
    assert shown[0] == shown[1] == shown[2] and len(shown[0]) == CASE_POOL * 6
    assert reserve(tasks[:12], 6) == frozenset()  # a small night sets nothing aside


def test_a_replay_served_from_the_cache_is_never_the_before_side():
    tasks = [_task(i, 0) for i in range(30)]
    replay = {t.id: [replace(r, cached=True) for r in _rollouts(t, [True] * 4)] for t in tasks}
    trials = Trials(
        _world(random.Random(1), {}, {})[0],
        BASE,
        tasks,
        EvidencePolicy.from_settings(),
        "t",
        random.Random(1),
    )
    set_aside(trials, tasks, replay, shown=2)
    assert trials.baseline.reused == {}  # an earlier night's rollouts: never reused


class Recorder:
    """A proposer that records every case it is shown and proposes nothing."""

    def __init__(self) -> None:
        self.shown: list[str] = []

    async def propose(
        self, cases: Sequence[Case], accepted: Sequence[str], refused: Sequence[Edit], step: int
    ) -> list[Edit] | None:
        self.shown += [c.task.id for c in cases]
        return [Edit(target="memory", content=f"rule {step}", cites=[cases[0].task.id])]


class Fixed:
    async def draw(
        self, wants: list[Want], files: dict[str, str], nonce: str
    ) -> dict[str, list[Rollout]]:
        return {t.id: _rollouts(t, [True] * count, first) for t, first, count in wants}


def _shown(gate: EvidenceGate) -> tuple[list[str], frozenset[str]]:
    train = [_task(i, i % 3) for i in range(30)]
    kept = reserve(train, 2 * 2)
    # the reserve's attempts disagree (the cases the optimizer would be shown first), the others
    # all fail: only the reserve makes contrasts
    replay = {t.id: _rollouts(t, [True, False] * 2 if t.id in kept else [False] * 4) for t in train}
    settings = NightSettings(steps=2, reflect_tasks=2)
    proposer = Recorder()
    tonight = Tonight(FILES, settings, stream="n1", rng=random.Random(3))
    guard = EditGuard(FILES, GuardLimits(), [])
    rounds = Rounds(tonight, proposer=proposer, guard=guard, drawer=Fixed(), gate=gate)
    asyncio.run(rounds.run(Selection(train, [], []), replay))
    return proposer.shown, kept


def test_the_optimizer_never_sees_a_reserved_task_even_its_most_telling_ones():
    shown, kept = _shown(EvidenceGate())
    assert shown and not set(shown) & kept
    # without the reserve the same night shows them first
    shown, _ = _shown(EvidenceGate(allocation=replace(LEAN, same_night_before=False)))
    assert set(shown) & kept


def _harm(rng: random.Random, broken: int | None) -> tuple[bool, int, int]:
    """One 200-task night of 8 kinds, its replay under the night's files; the edit breaks kind
    ``broken`` whole (passing half the time before, never after), or nothing. (refused, tasks whose
    before side was the replay, rollouts drawn under the night's files.)"""
    tasks = [_task(i, i % 8) for i in range(200)]
    rates = {t.id: rng.choice((0.1, 0.5, 0.9)) for t in tasks}
    hit = {t.id for t in tasks if broken is not None and t.checks[0].value == f"kind-{broken}"}
    rates |= dict.fromkeys(hit, 0.5)
    after = {i: 0.0 if i in hit else rate for i, rate in rates.items()}
    draw, drawn = _world(rng, rates, after)
    policy = EvidencePolicy.from_settings()
    trials = Trials(draw, BASE, tasks, policy, "t", rng)
    replay = {t.id: _rollouts(t, [rng.random() < rates[t.id] for _ in range(4)]) for t in tasks}
    set_aside(trials, tasks, replay, shown=12)
    cand = Candidate(Edit(target="memory", content="the rule"), EDIT, 1)
    ev = EditEvidence(edit=cand.edit, verdict="accepted")
    got = asyncio.run(settle(trials, [cand], {cand.key: ev}, lambda cs: EDIT))[cand.key]
    return got.verdict != "accepted", len(trials.baseline.used), drawn["base"]


def test_a_rule_that_breaks_a_reserved_kind_is_still_refused_with_the_replay_as_its_before_side():
    rng = random.Random(29)
    runs, caught = 160, 0
    for run in range(runs):
        refused, reused, _ = _harm(rng, run % 8)
        caught += refused
        assert reused > 0  # the before side came from the replay
    assert caught / runs >= EvidencePolicy.from_settings().harm_kind_power


def test_a_harmless_rule_is_refused_no_more_than_harm_alpha_with_the_replay_as_its_before_side():
    rng = random.Random(7)
    runs = 150
    refused = sum(_harm(rng, None)[0] for _ in range(runs))
    alpha = EvidencePolicy.from_settings().harm_alpha
    assert refused / runs <= alpha + 3 * (alpha * (1 - alpha) / runs) ** 0.5


def test_the_night_says_how_many_before_sides_it_reused(cli, tmp_path):
    # shown at most 2 cases, the demo's optimizer picks among 4 train tasks: the rest are reserved
    few = {"SKILLOPT_SLEEP_NIGHT__REFLECT_TASKS": "2", "SKILLOPT_SLEEP_NIGHT__STEPS": "1"}
    night = cli("demo", "--dir", str(tmp_path / "a"), "--json", env=few).json()
    assert night["before_reused"] > 0
    [line] = [n for n in night["notes"] if n.startswith("harm checks sampled")]
    assert f"before sides reused: {night['before_reused']} (" in line
    shown = cli("demo", "--dir", str(tmp_path / "b"), env=few)
    assert f"before sides reused: {night['before_reused']}" in shown.out
