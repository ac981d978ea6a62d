"""The efficacy test on scores stays exact and sees partial credit: under the null, many times with a
fixed rng, it accepts at most at its level whenever its looks stop; a gain in partial credit alone
(no attempt ever passes) is accepted; the exact and the sampled p-values agree with enumeration."""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import Sequence

from skillopt_sleep.evidence import Candidate, EvidencePolicy, Trials, permutation
from skillopt_sleep.evidence.permutation import score_p
from skillopt_sleep.evidence.score_gate import ScoreGate
from skillopt_sleep.models import Edit
from skillopt_sleep.rollouts.replay import Rollout

from .test_allocation_stats import BASE, EDIT, _bound, _policy, _task

LEVELS = (0.0, 0.25, 0.5, 0.75)  # partial credit of an attempt that never passes


def _scores(
    rng: random.Random, laws: dict[str, Sequence[float]], after: dict[str, Sequence[float]] | None
):  # type: ignore[no-untyped-def]
    """A draw: each rollout's score is drawn from its task's law (``after``'s under the edit); an
    attempt passes only with a score of 1."""

    async def draw(wants, files, nonce):  # type: ignore[no-untyped-def]
        table = after if after is not None and files is not BASE else laws
        return {
            t.id: [
                Rollout(t.id, s, "", x, x >= 1.0)
                for s in range(first, first + count)
                for x in [rng.choice(table[t.id])]
            ]
            for t, first, count in wants
        }

    return draw


def _verdict(rng: random.Random, policy: EvidencePolicy, kinds: list[int], laws, after=None) -> str:  # type: ignore[no-untyped-def]
    tasks = [_task(i, k) for i, k in enumerate(kinds)]
    by_id = {t.id: laws[i] for i, t in enumerate(tasks)}
    moved = None if after is None else {t.id: after[i] for i, t in enumerate(tasks)}
    trials = Trials(_scores(rng, by_id, moved), BASE, tasks, policy, "t", rng)
    cand = Candidate(Edit(target="memory", content="the rule", cites=[tasks[0].id]), EDIT, 1)
    trials.shown = {tasks[0].id}
    trials.place(cand, tasks[:1])
    return asyncio.run(ScoreGate().judge(trials, [cand]))[cand.key].verdict


def test_the_score_test_accepts_at_most_alpha_under_the_null_whenever_it_stops() -> None:
    rng = random.Random(13)
    policy = _policy(alpha=0.2, unseen_alpha=1.0, steps=1)  # a level large enough to measure
    runs, accepted = 400, 0
    for _ in range(runs):
        kinds = [0] * rng.randint(1, 3) + [1] * 2
        laws = [rng.choice((LEVELS[:2], LEVELS, (0.0, 1.0), (0.5,), (0.25, 1.0))) for _ in kinds]
        accepted += _verdict(rng, policy, kinds, laws) == "accepted"
    assert accepted / runs <= _bound(0.2, runs)


def test_a_gain_in_partial_credit_alone_is_accepted_where_no_attempt_ever_passes() -> None:
    rng = random.Random(5)
    policy = EvidencePolicy.from_settings()
    accepted = 0
    for _ in range(20):
        kinds = [0, 0, 0, 1, 1]
        laws = [(0.0, 0.25)] * len(kinds)
        after = [(0.5, 0.75)] * 3 + [(0.0, 0.25)] * 2
        accepted += _verdict(rng, policy, kinds, laws, after) == "accepted"
    assert accepted >= 18


def _enumerated(strata: list[tuple[list[float], list[float]]]) -> float:
    """The p-value by listing every relabelling (small strata only)."""
    choices = []
    for before, after in strata:
        pool = before + after
        choices.append(
            [sum(pool[i] for i in c) for c in itertools.combinations(range(len(pool)), len(after))]
        )
    observed = sum(sum(a) for _, a in strata)
    sums = [sum(c) for c in itertools.product(*choices)]
    return sum(s >= observed - 1e-9 for s in sums) / len(sums)


def test_the_exact_p_value_is_the_enumerated_one() -> None:
    rng = random.Random(3)
    for _ in range(40):
        strata = [
            ([rng.choice(LEVELS) for _ in range(3)], [rng.choice(LEVELS) for _ in range(3)])
            for _ in range(rng.randint(1, 3))
        ]
        informative = any(len({*b, *a}) > 1 for b, a in strata)
        want = _enumerated(strata) if informative else 1.0
        assert abs(score_p(strata) - want) < 1e-12


def test_the_sampled_p_value_is_valid_and_close_when_the_law_is_too_large(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(permutation, "MAX_WORK", 0)  # force the sampled p-value
    rng = random.Random(4)
    strata = [([rng.choice(LEVELS) for _ in range(3)], [rng.random() for _ in range(3)])]
    sampled = score_p(strata)
    assert sampled >= 1 / (permutation.DRAWS + 1)
    assert abs(sampled - _enumerated(strata)) < 4 * 0.005
    assert score_p(strata) == sampled  # the same data, the same p
