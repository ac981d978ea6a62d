"""The lean allocation's tests stay exact: simulated many times under the null with a fixed rng, each
rejects at most at its level; and they still see a real gain and a real harm."""

from __future__ import annotations

import asyncio
import functools
import math
import random
from collections import Counter
from datetime import datetime, timezone

from bench.gates import classic_allocation
from skillopt_sleep.evidence import Candidate, EvidencePolicy, Trials
from skillopt_sleep.evidence.allocation import LEAN
from skillopt_sleep.evidence.exact import Stratum, p_odds_at_most, stratified_p
from skillopt_sleep.evidence.harm_sample import KIND_SHARE, kind_size
from skillopt_sleep.evidence.together import _loses, settle
from skillopt_sleep.models import Check, Edit, EditEvidence, TaskRecord
from skillopt_sleep.rollouts.replay import Rollout

DAY = datetime(2026, 1, 5, tzinfo=timezone.utc)
BASE: dict[str, str] = {}
EDIT = {"CLAUDE.md": "the rule"}


def _task(i: int, kind: int) -> TaskRecord:
    return TaskRecord(
        source="manual",
        project="/p",
        session_id=f"s{i}",
        created_at=DAY,
        intent=f"task {i}",
        checks=[Check(kind="contains", value=f"kind-{kind}")],
    )


@functools.cache
def _eight_kinds(n: int) -> tuple[TaskRecord, ...]:
    """``n`` tasks of 8 kinds in turn, built once: every run of a test reads the same tasks."""
    return tuple(_task(i, i % 8) for i in range(n))


def _world(rng: random.Random, rates: dict[str, float], after: dict[str, float] | None = None):  # type: ignore[no-untyped-def]
    """A draw: each rollout passes at its task's rate (``after``'s under the edit, when given)."""

    async def draw(wants, files, nonce):  # type: ignore[no-untyped-def]
        table = after if after is not None and files is not BASE else rates
        return {
            t.id: [
                Rollout(t.id, s, "", 1.0 if ok else 0.0, ok)
                for s in range(first, first + count)
                for ok in [rng.random() < table[t.id]]
            ]
            for t, first, count in wants
        }

    return draw


def _bound(level: float, trials: int) -> float:
    return level + 3 * math.sqrt(level * (1 - level) / trials)


def _policy(**change: object) -> EvidencePolicy:
    return EvidencePolicy.from_settings().model_copy(update=change)


def _efficacy_p(
    rng: random.Random,
    tasks: list[TaskRecord],
    rates: dict[str, float],
    policy: EvidencePolicy,
    after: dict[str, float] | None = None,
) -> float:
    trials = Trials(_world(rng, rates, after), BASE, tasks, policy, "t", rng)
    cand = Candidate(Edit(target="memory", content="the rule", cites=[tasks[0].id]), EDIT, 1)
    trials.shown = {tasks[0].id}
    trials.place(cand, tasks[:1])
    ev = asyncio.run(trials.efficacy([cand]))[cand.key]
    return ev.p_efficacy or 1.0


def test_lean_efficacy_rejects_at_most_alpha_under_the_null_whenever_it_stops():
    rng = random.Random(11)
    policy = _policy(alpha=0.2, steps=1)  # a large level, so its rejection rate can be measured
    runs, hits = 600, 0
    for _ in range(runs):
        kinds = [0] * rng.randint(1, 4) + [1] * 3
        tasks = [_task(i, k) for i, k in enumerate(kinds)]
        rates = {t.id: rng.choice((0.05, 0.3, 0.6, 0.95)) for t in tasks}
        hits += _efficacy_p(rng, tasks, rates, policy) <= 0.2
    assert hits / runs <= _bound(0.2, runs)


def test_lean_efficacy_still_passes_a_rule_that_fixes_its_kind():
    rng = random.Random(5)
    policy = EvidencePolicy.from_settings()
    passed = 0
    for _ in range(40):
        tasks = [_task(i, k) for i, k in enumerate([0, 0, 0, 1, 1])]
        rates = {t.id: 0.25 for t in tasks}
        fixed = {t.id: 0.9 if i < 3 else 0.25 for i, t in enumerate(tasks)}
        passed += _efficacy_p(rng, tasks, rates, policy, fixed) <= policy.round_alpha(1)
    assert passed >= 32


def test_the_harm_check_of_the_edits_together_refuses_a_rule_that_breaks_the_other_tasks():
    rng = random.Random(9)
    policy = EvidencePolicy.from_settings()
    caught = 0
    for n in [12, 40] * 20:
        tasks = [_task(i, rng.randrange(8)) for i in range(n)]
        rates = {t.id: rng.choice((0.25, 0.9)) for t in tasks}
        trials = Trials(
            _world(rng, rates, dict.fromkeys(rates, 0.05)), BASE, tasks, policy, "t", rng
        )
        cand = Candidate(Edit(target="memory", content="the rule"), EDIT, 1)
        ev = EditEvidence(edit=cand.edit, verdict="accepted")
        got = asyncio.run(settle(trials, [cand], {cand.key: ev}, lambda cs: EDIT))[cand.key]
        # every other task on a small night; on a large one a sample with every kind in it (all
        # of a kind's tasks when it has too few to catch its breaking alone)
        kinds = {t.checks[0].value for t in tasks}
        checked = {t.checks[0].value for t in tasks if t.id in got.harm_tasks}
        sampled = (
            len(got.harm_tasks) == n
            if n <= 24
            else trials.spend.sampled == [(len(got.harm_tasks), n)]
        )
        caught += got.verdict != "accepted" and checked == kinds and sampled
    assert caught == 40


def test_a_large_night_checks_harm_on_a_sample_with_every_kind_and_still_refuses_a_breaking_rule():
    """200 other tasks of 8 kinds: the harm check replays a sample drawn before any outcome, with
    the same number of tasks of every kind, its size bounded whatever the night's; a rule that
    breaks every other task is refused each time, as on a night that checks them all."""
    rng = random.Random(11)
    policy = EvidencePolicy.from_settings()
    each, _ = kind_size(policy.harm_alpha * KIND_SHARE / 8, 25, policy.harm_kind_power)
    for _ in range(20):
        tasks = list(_eight_kinds(200))
        rates = {t.id: rng.choice((0.25, 0.9)) for t in tasks}
        trials = Trials(
            _world(rng, rates, dict.fromkeys(rates, 0.05)), BASE, tasks, policy, "t", rng
        )
        cand = Candidate(Edit(target="memory", content="the rule"), EDIT, 1)
        ev = EditEvidence(edit=cand.edit, verdict="accepted")
        got = asyncio.run(settle(trials, [cand], {cand.key: ev}, lambda cs: EDIT))[cand.key]
        checked = Counter(t.checks[0].value for t in tasks if t.id in got.harm_tasks)
        assert got.verdict != "accepted"
        assert len(checked) == 8 and min(checked.values()) >= each
        assert len(got.harm_tasks) == 8 * each < 200
        assert trials.spend.sampled == [(len(got.harm_tasks), 200)]


def test_a_rule_that_breaks_one_whole_kind_of_eight_is_refused_at_least_harm_kind_power_of_the_time():
    """200 other tasks of 8 kinds; the edit breaks one kind whole (passing half the time before,
    never after) and leaves the seven others as they were. Pooled over the sample, one kind in
    eight is a small fall the check may rule out as harm; tested alone it is caught, with
    probability at least harm_kind_power (0.99), whichever kind it is and whatever the others do."""
    rng = random.Random(29)
    policy = EvidencePolicy.from_settings()
    runs, caught = 400, 0
    for run in range(runs):
        tasks = list(_eight_kinds(200))
        broken = run % 8
        rates = {t.id: rng.choice((0.1, 0.5, 0.9)) for t in tasks}
        kind = {t.id for t in tasks if t.checks[0].value == f"kind-{broken}"}
        rates |= dict.fromkeys(kind, 0.5)
        after = {i: 0.0 if rate == 0.5 and i in kind else rate for i, rate in rates.items()}
        trials = Trials(_world(rng, rates, after), BASE, tasks, policy, "t", rng)
        cand = Candidate(Edit(target="memory", content="the rule"), EDIT, 1)
        ev = EditEvidence(edit=cand.edit, verdict="accepted")
        got = asyncio.run(settle(trials, [cand], {cand.key: ev}, lambda cs: EDIT))[cand.key]
        caught += got.verdict != "accepted"
    assert caught / runs >= policy.harm_kind_power


def test_the_harm_check_of_the_edits_together_refuses_at_most_harm_alpha_under_the_null():
    rng = random.Random(3)
    policy = _policy(harm_alpha=0.2, harm_conclusive=0.001)
    runs, refused = 400, 0
    for _ in range(runs):
        tasks = [_task(i, rng.randrange(4)) for i in range(rng.randint(3, 40))]
        rates = {t.id: rng.choice((0.0, 0.1, 0.5, 0.9, 1.0)) for t in tasks}
        trials = Trials(_world(rng, rates), BASE, tasks, policy, "t", rng)
        cand = Candidate(Edit(target="memory", content="the rule"), EDIT, 1)
        got = asyncio.run(
            settle(
                trials,
                [cand],
                {cand.key: EditEvidence(edit=cand.edit, verdict="accepted")},
                lambda cs: EDIT,
            )
        )[cand.key]
        refused += got.verdict != "accepted"
    assert refused / runs <= _bound(0.2, runs)


def _cut(rate: float, odds: float) -> float:
    """``rate`` with its odds of a pass divided by ``odds``."""
    o = rate / (1 - rate) / odds
    return o / (1 + o)


def test_ruling_out_harm_is_exact_at_the_odds_it_rules_out():
    rng = random.Random(11)
    strata = [Stratum(3, 9, 4, 7), Stratum(0, 2, 2, 5)]
    assert p_odds_at_most(strata, 1.0) == stratified_p(strata)  # odds unchanged: the usual test
    runs, low = 2000, 0
    for _ in range(runs):
        made = []
        for _ in range(rng.randint(1, 12)):
            rate, n = rng.choice((0.1, 0.3, 0.6, 0.9)), rng.randint(1, 6)
            before = sum(rng.random() < rate for _ in range(n))
            after = sum(rng.random() < _cut(rate, 4.0) for _ in range(n))
            made.append(Stratum(before, n, after, n))
        low += p_odds_at_most(made, 0.25) <= 0.05
    assert low / runs <= _bound(0.05, runs)


def test_the_lean_harm_check_clears_an_edit_that_cuts_the_odds_that_much_at_most_harm_beta():
    rng = random.Random(12)
    policy = EvidencePolicy.from_settings()
    runs, cleared = 400, 0
    for _ in range(runs):  # few tasks, low pass rates: where harm is hardest to see
        tasks = [_task(i, rng.randrange(8)) for i in range(rng.randint(3, 12))]
        rates = {t.id: rng.choice((0.15, 0.3)) for t in tasks}
        after = {t: _cut(r, policy.harm_odds) for t, r in rates.items()}
        trials = Trials(_world(rng, rates, after), BASE, tasks, policy, "t", rng)
        cand = Candidate(Edit(target="memory", content="the rule"), EDIT, 1)
        ev = EditEvidence(edit=cand.edit, verdict="accepted")
        got = asyncio.run(settle(trials, [cand], {cand.key: ev}, lambda cs: EDIT))[cand.key]
        cleared += got.verdict == "accepted"
    assert cleared / runs <= _bound(policy.harm_beta, runs)


def test_a_harm_check_where_nothing_varies_stops_at_its_first_look():
    # tasks that always pass (or always fail) whatever the files: no harm shows, and no cut of the
    # odds can be measured; looking again would only spend rollouts
    rng = random.Random(13)
    policy = EvidencePolicy.from_settings()
    for rate in (1.0, 0.0):
        tasks = [_task(i, i % 8) for i in range(30)]
        rates = dict.fromkeys((t.id for t in tasks), rate)
        trials = Trials(_world(rng, rates, rates), BASE, tasks, policy, "t", rng)
        cand = Candidate(Edit(target="memory", content="the rule"), EDIT, 1)
        ev = EditEvidence(edit=cand.edit, verdict="accepted")
        got = asyncio.run(settle(trials, [cand], {cand.key: ev}, lambda cs: EDIT))[cand.key]
        assert got.verdict == "accepted"
        # 30 other tasks: a sample, each kind on the rollouts its own test needs, at the first look
        (plan,) = trials.plans.values()
        assert trials.spend.drawn["harm"] == sum(plan.first.values())


def test_the_conflict_check_flags_at_most_its_level_under_the_null():
    rng = random.Random(4)
    policy = _policy(harm_conclusive=0.1)
    runs, hits = 800, 0
    for _ in range(runs):
        tasks = [_task(i, 0) for i in range(rng.randint(1, 4))]
        rates = {t.id: rng.choice((0.1, 0.5, 0.9)) for t in tasks}
        draw = _world(rng, rates)
        trials = Trials(draw, BASE, tasks, policy, "t", rng)
        cand = Candidate(Edit(target="memory", content="the rule"), EDIT, 1, addressed=tasks)
        cand.after = asyncio.run(draw([(t, 0, rng.randint(2, 8)) for t in tasks], EDIT, "alone"))
        hits += asyncio.run(_loses(trials, cand, EDIT))
    assert hits / runs <= _bound(0.1, runs)


def test_both_allocations_plan_the_same_full_course_of_a_test():
    policy = EvidencePolicy.from_settings()
    for addressed, unseen in (
        (["a"], []),
        (["a"], ["b", "c"]),
        (["a", "b"], [str(i) for i in range(10)]),
    ):
        for alloc in (LEAN, classic_allocation()):
            plan = alloc.efficacy_schedule(policy, addressed, unseen)
            assert all(list(c) == sorted(c) for c in plan.values())  # cumulative, never shrinking
            full = sum(c[-1] for c in plan.values())
            assert full >= policy.efficacy_rollouts
            assert not unseen or sum(plan[t][-1] for t in unseen) >= policy.unseen_rollouts
            assert all(
                plan[t][0] >= 1 for t in addressed
            )  # the cited task is replayed from the first look


def test_the_forecast_runs_the_gates_own_code_and_its_bound_holds():
    from skillopt_sleep.evidence.rehearse import Outlook, bound, forecast

    rng = random.Random(2)
    tasks = [_task(i, rng.randrange(5)) for i in range(30)]
    rates = {t.id: rng.choice((0.25, 0.9)) for t in tasks}
    policy = EvidencePolicy.from_settings()
    outlook = Outlook(proposals=3.0, helpful=0.5, proposals_max=3)
    got = forecast(tasks, tasks[:20], rates, policy, 3, outlook, seed=1)
    assert 0 < got.expected <= got.bound == bound(len(tasks), policy, 3, 3)


def _scripted(before_passes, after_passes):  # type: ignore[no-untyped-def]
    """A draw whose sample ``s`` of a task passes when ``before_passes(s)`` (the night's files) or
    ``after_passes(s)`` (the edited files) says so."""

    async def draw(wants, files, nonce):  # type: ignore[no-untyped-def]
        passes = before_passes if files is BASE else after_passes
        return {
            t.id: [Rollout(t.id, s, "", float(passes(s)), passes(s)) for s in range(a, a + n)]
            for t, a, n in wants
        }

    return draw


def _one_task_verdict(before_passes, after_passes) -> EditEvidence:  # type: ignore[no-untyped-def]
    tasks = [_task(0, 0), _task(1, 1)]
    trials = Trials(
        _scripted(before_passes, after_passes), BASE, tasks, _policy(), "t", random.Random(1)
    )
    cand = Candidate(Edit(target="memory", content="the rule", cites=[tasks[0].id]), EDIT, 1)
    trials.shown = {tasks[0].id}
    trials.place(cand, tasks[:1])
    return asyncio.run(trials.efficacy([cand]))[cand.key]


def test_a_one_task_rule_whose_first_four_rollouts_tie_takes_the_next_looks_and_passes():
    # 3 of the first 4 pass on both sides (a tie, by chance); then 1 in 4 before and every one after
    ev = _one_task_verdict(
        lambda s: s % 4 != 0 if s < 4 else s % 4 == 0, lambda s: s != 0 or s >= 4
    )
    assert ev.looks > 1 and ev.verdict == "accepted"


def test_a_one_task_rule_whose_first_look_loses_still_stops_there():
    ev = _one_task_verdict(lambda s: s < 4 or s % 4 == 0, lambda s: s in (0, 1) or s >= 4)
    assert ev.looks == 1 and ev.verdict != "accepted"
