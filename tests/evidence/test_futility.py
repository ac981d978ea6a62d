"""An efficacy test that no outcome of its remaining looks could pass tonight stops spending, and
stopping it never changes which edits are accepted."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import random
from datetime import datetime, timezone

from skillopt_sleep.evidence import Candidate, EvidencePolicy, Trials
from skillopt_sleep.evidence.allocation import LEAN
from skillopt_sleep.evidence.exact import Stratum
from skillopt_sleep.evidence.futility import cannot_pass
from skillopt_sleep.models import Check, Edit, TaskRecord
from skillopt_sleep.rollouts.replay import Rollout

BASE: dict[str, str] = {}
DAY = datetime(2026, 1, 5, tzinfo=timezone.utc)
RUNS_OUT = dataclasses.replace(LEAN, stops_hopeless=False)


def _task(i: int, kind: int) -> TaskRecord:
    return TaskRecord(
        source="manual",
        project="/p",
        session_id=f"s{i}",
        created_at=DAY,
        intent=f"task {i}",
        checks=[Check(kind="contains", value=f"kind-{kind}")],
    )


def _draw(passes):  # type: ignore[no-untyped-def]
    """Sample ``s`` of a task passes when ``passes(task id, s, edited)`` says so, whatever order
    the samples are drawn in."""

    async def draw(wants, files, nonce):  # type: ignore[no-untyped-def]
        edited = files is not BASE
        return {
            t.id: [
                Rollout(t.id, s, "", float(ok), ok)
                for s in range(a, a + n)
                for ok in [passes(t.id, s, edited, nonce)]
            ]
            for t, a, n in wants
        }

    return draw


def _efficacy(passes, policy: EvidencePolicy, allocation, edits: int = 1):  # type: ignore[no-untyped-def]
    tasks = [_task(i, i) for i in range(edits + 1)]
    trials = Trials(
        _draw(passes), BASE, tasks, policy, "t", random.Random(1), allocation=allocation
    )
    cands = []
    for i in range(edits):
        rule = f"rule {i}"
        cand = Candidate(Edit(target="memory", content=rule, cites=[tasks[i].id]), {"m": rule}, 1)
        trials.shown |= {tasks[i].id}
        trials.place(cand, tasks[i : i + 1])
        cands.append(cand)
    got = asyncio.run(trials.efficacy(cands))
    return got, trials.spend.total


def test_a_test_that_cannot_reach_its_level_stops_before_its_last_look():
    # a small gain (half before, one more after) that even every later rollout passing after and
    # failing before could not carry to a level this strict: its last look is not drawn
    policy = EvidencePolicy.from_settings().model_copy(
        update={"alpha": 0.0001, "evidence_alpha": 1e-9}
    )

    def passes(task: str, s: int, edited: bool, nonce: str) -> bool:
        return s % 2 == 0 or (edited and s == 1)

    lean, lean_rollouts = _efficacy(passes, policy, LEAN)
    full, full_rollouts = _efficacy(passes, policy, RUNS_OUT)
    (ev,) = lean.values()
    (ran,) = full.values()
    assert ran.looks == 4 and ev.looks == 3
    assert ev.verdict == ran.verdict != "accepted"
    assert lean_rollouts < full_rollouts


def test_a_best_case_that_still_reaches_the_level_goes_on():
    now = {"t": Stratum(4, 8, 5, 8)}
    schedule = {"t": (4, 8, 16, 24)}
    common = {
        "adjusted": 1.0,
        "weights": (0.05, 0.2, 0.3, 0.45),
        "unseen_alpha": 0.1,
        "log_e": 0.0,
        "evidence_odds": 3.0,
        "evidence_alpha": 1e-9,
    }
    assert not cannot_pass(now, schedule, 2, [], level=0.02, **common)
    assert cannot_pass(now, schedule, 2, [], level=1e-9, **common)
    # a retested edit's efficacy was shown on its own night: only its unseen tasks can fail it
    assert not cannot_pass(now, schedule, 2, [], level=1e-9, efficacy_given=True, **common)
    assert not cannot_pass(now, schedule, 4, [], level=1e-9, **common)  # no look left


def test_stopping_the_tests_that_cannot_pass_accepts_exactly_the_same_edits():
    policy = EvidencePolicy.from_settings()
    rng = random.Random(5)
    ids = [_task(i, i).id for i in range(3)]
    for run in range(60):
        rates = {i: (rng.choice((0.1, 0.3, 0.5)), rng.choice((0.1, 0.4, 0.6, 0.9))) for i in ids}

        def passes(
            task: str, s: int, edited: bool, nonce: str, run: int = run, rates=rates
        ) -> bool:  # type: ignore[no-untyped-def]
            rule = nonce.rsplit(":", 1)[-1] if edited else ""
            digest = hashlib.sha256(f"{run}:{task}:{s}:{rule}".encode()).digest()
            before, after = rates[task]
            return digest[0] / 256 < (after if edited else before)

        lean, _ = _efficacy(passes, policy, LEAN, edits=2)
        full, _ = _efficacy(passes, policy, RUNS_OUT, edits=2)
        assert {k for k, e in lean.items() if e.verdict == "accepted"} == {
            k for k, e in full.items() if e.verdict == "accepted"
        }
