"""How often the replay gate is fooled by noise, and how often it sees a real gain.

Usage::

    python -m bench.gate_noise            # both rates, and the strict-mean baseline
    python -m bench.gate_noise --json     # one JSON object
    python -m bench.gate_noise --night harm_odds=8   # the edit gate with other [night] settings

Score model (one simulated night):

- ``--tasks`` holdout tasks (12), each replayed ``--k`` times (4) before and after the edit.
- A task has 2 to 4 checks (uniformly); a rollout's score is the fraction of its checks that pass,
  as the judge scores equally weighted rule checks.
- Each check has its own pass rate: 35% of checks are "settled pass" (rate uniform in 0.85-1),
  15% "settled fail" (0-0.15) and 50% "unsettled" (uniform in 0-1): an agent mostly does, or
  mostly does not, follow a given preference, with a wide middle. Checks pass independently.
- 3% of rollouts error (``None``): excluded and counted by the gate, never a 0.
- Null nights: the candidate has exactly the same pass rates (the edit has no true effect), so
  any difference is noise.
- Gain nights: the edit fixes a fraction ``d`` of every check's failures (``p -> p + d(1 - p)``),
  with ``d`` set per night so the expected mean score over the night's tasks rises by exactly
  ``--gain`` (0.15 = 15 points).

The same gain is also measured with one pass/fail check per task (``power_pass_fail``): the
hardest case, where a rollout's score is 0 or 1.

Baseline, measured on the same null nights: the predecessor's strict mean comparison (accept
when the candidate's mean holdout score is higher than the current one's).

The sparse case (``sparse`` in the JSON), per gate in :data:`GATES`: a rule acts on one kind of
preference among ``SPARSE_KINDS`` (8). Each holdout task is of a kind drawn uniformly and has one
pass/fail check, passed at ``SPARSE_BASE`` (0.25); the edit was learned from one more task of its
kind (the cited task, outside the holdout). A helpful edit lifts its kind to ``SPARSE_FIXED``
(0.9) and touches nothing else (power); a no-effect edit changes nothing (false accepts). A gate
gets the night's tasks and draws as many rollouts as it wants, so a targeted gate can sit next
to the holdout gate: ``edit`` is the edit-by-edit gate, which tests the edit on the cited task
and the unseen tasks of its kind and then for harm on the others. Each gate's ``meets_targets``
is reported there; the exit code still says
whether the no-effect and dense-gain case meets its targets.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import NamedTuple, TypedDict

from bench.gates import ClassicGate
from bench.holdout_gate import GatePolicy, GateTest, decide
from bench.night_args import add_night_option, described, parsed_night
from skillopt_sleep.evidence import Candidate, EvidencePolicy, Trials
from skillopt_sleep.evidence.gate import EvidenceGate
from skillopt_sleep.models import Check, Edit, TaskRecord
from skillopt_sleep.optimize.seams import Gate as EditGate
from skillopt_sleep.rollouts.replay import Rollout
from skillopt_sleep.settings import NightSettings

Scores = dict[str, list[float | None]]

ERROR_RATE = 0.03
FALSE_ACCEPT_TARGET = 0.05
POWER_TARGET = 0.80
SPARSE_KINDS = 8
SPARSE_BASE = 0.25
SPARSE_FIXED = 0.9
SPARSE_BROKEN = 0.05
_DAY = datetime(2026, 1, 5, tzinfo=timezone.utc)


def check_rate(rng: random.Random) -> float:
    """A check's pass rate under the current skill (see the module docstring)."""
    r = rng.random()
    if r < 0.35:
        return rng.uniform(0.85, 1.0)
    if r < 0.50:
        return rng.uniform(0.0, 0.15)
    return rng.uniform(0.0, 1.0)


def simulate_night(
    rng: random.Random, *, tasks: int, k: int, gain: float, checks: tuple[int, int] = (2, 4)
) -> tuple[Scores, Scores]:
    """Holdout scores before and after an edit whose true mean effect is ``gain``."""
    rates = [[check_rate(rng) for _ in range(rng.randint(*checks))] for _ in range(tasks)]
    room = sum(sum(1 - p for p in task) / len(task) for task in rates) / tasks
    fix = min(1.0, gain / room) if room > 0 else 0.0
    before: Scores = {}
    after: Scores = {}
    for i, task in enumerate(rates):
        improved = [p + fix * (1 - p) for p in task]
        before[f"t{i:02d}"] = [_rollout(rng, task) for _ in range(k)]
        after[f"t{i:02d}"] = [_rollout(rng, improved) for _ in range(k)]
    return before, after


def _rollout(rng: random.Random, rates: Sequence[float]) -> float | None:
    if rng.random() < ERROR_RATE:
        return None
    return sum(rng.random() < p for p in rates) / len(rates)


def strict_mean_accepts(before: Scores, after: Scores) -> bool:
    """The predecessor's gate: accept when the candidate's mean score is strictly higher."""
    b = [s for v in before.values() for s in v if s is not None]
    a = [s for v in after.values() for s in v if s is not None]
    return sum(a) / len(a) > sum(b) / len(b)


class SparseNight(NamedTuple):
    """One night of the sparse case: the holdout's kinds, the edit's kind, and whether it helps."""

    kinds: tuple[int, ...]  # the kind of each holdout task
    edit_kind: int  # the kind the edit is about; the cited task is of this kind
    helps: bool
    harms: bool = False  # the edit also breaks every other kind (down to SPARSE_BROKEN)

    def rate(self, kind: int, after: bool) -> float:
        """Pass rate of a task of ``kind`` before or after the edit."""
        if after and self.harms and kind != self.edit_kind:
            return SPARSE_BROKEN
        return SPARSE_FIXED if after and self.helps and kind == self.edit_kind else SPARSE_BASE

    def draw(self, rng: random.Random, kind: int, after: bool, n: int) -> list[float | None]:
        """``n`` fresh rollouts of a task of ``kind`` (1 pass, 0 fail, None errored)."""
        p = self.rate(kind, after)
        return [None if rng.random() < ERROR_RATE else float(rng.random() < p) for _ in range(n)]


def sparse_night(
    rng: random.Random, *, tasks: int, helps: bool, harms: bool = False
) -> SparseNight:
    return SparseNight(
        tuple(rng.randrange(SPARSE_KINDS) for _ in range(tasks)),
        rng.randrange(SPARSE_KINDS),
        helps,
        harms,
    )


Gate = Callable[[SparseNight, random.Random], bool]  # (night, rng) -> accepted?
SPENT: dict[str, int] = {}  # gate name -> fresh rollouts it drew (the edit gates count theirs)


def holdout_gate(policy: GatePolicy, k: int, night: NightSettings | None = None) -> Gate:
    """The holdout gate: K rollouts per holdout task and side, one test over the whole holdout."""

    def accepts(night: SparseNight, rng: random.Random) -> bool:
        before = {
            f"t{i:02d}": night.draw(rng, kind, False, k) for i, kind in enumerate(night.kinds)
        }
        after = {f"t{i:02d}": night.draw(rng, kind, True, k) for i, kind in enumerate(night.kinds)}
        return decide(before, after, policy, rng, interval=False).decision == "accept"

    return accepts


def edit_gate(
    policy: GatePolicy,
    k: int,
    night: NightSettings | None = None,
    gate: EditGate | None = None,
) -> Gate:
    """The edit-by-edit gate with the policy of ``night`` (default: the defaults): the edit tested
    where it acts (the cited task and the unseen tasks of its kind) and, if it passes, for harm on
    all the others; fresh rollouts drawn as ``gate`` asks (default: the product's evidence gate;
    :class:`gates.ClassicGate` spends them the classic way). ``policy`` and ``k`` belong to the
    holdout gate."""
    evidence = EvidencePolicy.from_settings(night)
    gate = gate or EvidenceGate()
    name = "edit" if gate.allocation.name == "lean" else f"edit-{gate.allocation.name}"
    edit = Edit(target="memory", content="the rule")

    def task(i: int, kind: int) -> TaskRecord:
        return TaskRecord(
            source="manual",
            project="/bench",
            session_id=f"s{i}",
            created_at=_DAY,
            intent=f"task {i} of kind {kind}",
            checks=[Check(kind="contains", value=f"kind-{kind}")],
        )

    def accepts(night: SparseNight, rng: random.Random) -> bool:
        tasks = [task(i, kind) for i, kind in enumerate((night.edit_kind, *night.kinds))]
        kinds = {t.id: kind for t, kind in zip(tasks, (night.edit_kind, *night.kinds), strict=True)}

        async def draw(wants, files, nonce):  # type: ignore[no-untyped-def]
            after = files is not base
            return {
                t.id: [
                    Rollout(t.id, s, "", *_verdict(night.draw(rng, kinds[t.id], after, 1)[0]))
                    for s in range(first, first + count)
                ]
                for t, first, count in wants
            }

        base: dict[str, str] = {}
        trials = Trials(draw, base, tasks, evidence, "bench", rng, allocation=gate.allocation)
        cand = Candidate(
            edit.model_copy(update={"cites": [tasks[0].id]}), {"CLAUDE.md": "the rule"}, 1
        )
        trials.shown = {tasks[0].id}
        trials.place(cand, tasks[:1])

        async def judge() -> str:
            ev = (await gate.judge(trials, [cand]))[cand.key]
            if ev.verdict == "accepted":
                ev = await gate.confirm(trials, cand, ev)
            if ev.verdict != "accepted":
                return ev.verdict
            settled = await gate.settle(trials, [cand], {cand.key: ev}, lambda cs: cand.files)
            return settled[cand.key].verdict

        verdict = asyncio.run(judge())
        SPENT[name] = SPENT.get(name, 0) + trials.spend.total
        return verdict == "accepted"

    return accepts


def _verdict(score: float | None) -> tuple[float | None, bool]:
    return score, score == 1.0


# each made from the holdout gate's policy, K and the product gate's [night] settings
GATES: dict[str, Callable[[GatePolicy, int, NightSettings | None], Gate]] = {
    "holdout": holdout_gate,
    "edit": edit_gate,
    # as the gate spent its rollouts before, with the default settings: the baseline
    "edit-classic": lambda policy, k, night: edit_gate(policy, k, None, ClassicGate.of(None)),
}


class GateRates(TypedDict):
    """One gate on the sparse case: how often it accepted each kind of rule, and what it drew."""

    power: float
    false_accept_rate: float
    harmful_accept_rate: float
    rollouts_per_night: float
    meets_targets: bool
    rollouts_vs_edit_classic: float | None


class Sparse(TypedDict):
    """The sparse case (a rule that lifts one kind of task of several) and every gate on it."""

    kinds: int
    base: float
    fixed: float
    true_gain: float
    gates: dict[str, GateRates]


class PolicySettings(TypedDict):
    """The holdout gate's settings the run used."""

    min_gain: float
    max_task_drop: float
    alpha: float
    test: GateTest


class Noise(TypedDict):
    """The three experiments: false accepts, power (graded and pass/fail), and the sparse case."""

    nights: int
    tasks: int
    k: int
    gain: float
    seed: int
    false_accept_rate: float
    power: float
    power_pass_fail: float
    baseline_false_accept_rate: float
    false_accept_ratio: float | None
    meets_targets: bool
    sparse: Sparse
    policy: PolicySettings
    edit_settings: dict[str, object]  # the product gate's [night] settings that are not defaults


def measure_sparse(
    nights: int,
    tasks: int,
    k: int,
    seed: int,
    policy: GatePolicy,
    night: NightSettings | None = None,
) -> Sparse:
    """Power, false accepts, refused harm and rollouts of every gate in :data:`GATES` on the sparse
    case; ``night``: the product gate's settings."""
    out: dict[str, GateRates] = {}
    for name, make in GATES.items():
        gate, rng = make(policy, k, night), random.Random(seed)
        SPENT.pop(name, None)
        hits = sum(gate(sparse_night(rng, tasks=tasks, helps=True), rng) for _ in range(nights))
        false = sum(gate(sparse_night(rng, tasks=tasks, helps=False), rng) for _ in range(nights))
        spent = SPENT.get(name)
        harmful = sum(
            gate(sparse_night(rng, tasks=tasks, helps=True, harms=True), rng) for _ in range(nights)
        )
        power, far = hits / nights, false / nights
        out[name] = {
            "power": power,
            "false_accept_rate": far,
            "harmful_accept_rate": harmful / nights,
            "rollouts_per_night": spent / (2 * nights) if spent is not None else 2 * k * tasks,
            "meets_targets": power >= POWER_TARGET and far <= FALSE_ACCEPT_TARGET,
            "rollouts_vs_edit_classic": None,  # below, once edit-classic's rollouts are known
        }
    classic = out["edit-classic"]["rollouts_per_night"]
    for rates in out.values():
        rates["rollouts_vs_edit_classic"] = (
            round(rates["rollouts_per_night"] / classic, 3) if classic else None
        )
    return {
        "kinds": SPARSE_KINDS,
        "base": SPARSE_BASE,
        "fixed": SPARSE_FIXED,
        "true_gain": (SPARSE_FIXED - SPARSE_BASE) / SPARSE_KINDS,
        "gates": out,
    }


def measure(
    nights: int,
    tasks: int,
    k: int,
    gain: float,
    seed: int,
    policy: GatePolicy,
    night: NightSettings | None = None,
) -> Noise:
    """Run the three experiments; every rate is over ``nights`` simulated nights."""
    rng = random.Random(seed)
    false_accepts = baseline_accepts = 0
    for _ in range(nights):
        before, after = simulate_night(rng, tasks=tasks, k=k, gain=0.0)
        false_accepts += decide(before, after, policy, rng, interval=False).decision == "accept"
        baseline_accepts += strict_mean_accepts(before, after)
    hits = sum(
        decide(
            *simulate_night(rng, tasks=tasks, k=k, gain=gain), policy, rng, interval=False
        ).decision
        == "accept"
        for _ in range(nights)
    )
    hits_pass_fail = sum(
        decide(
            *simulate_night(rng, tasks=tasks, k=k, gain=gain, checks=(1, 1)),
            policy,
            rng,
            interval=False,
        ).decision
        == "accept"
        for _ in range(nights)
    )
    far = false_accepts / nights
    baseline = baseline_accepts / nights
    power = hits / nights
    return {
        "nights": nights,
        "tasks": tasks,
        "k": k,
        "gain": gain,
        "seed": seed,
        "false_accept_rate": far,
        "power": power,
        "power_pass_fail": hits_pass_fail / nights,
        "baseline_false_accept_rate": baseline,
        "false_accept_ratio": far / baseline if baseline else None,
        "meets_targets": far <= FALSE_ACCEPT_TARGET and power >= POWER_TARGET,
        "sparse": measure_sparse(nights, tasks, k, seed, policy, night),
        "edit_settings": night.model_dump(exclude_defaults=True) if night else {},
        "policy": {
            "min_gain": policy.min_gain,
            "max_task_drop": policy.max_task_drop,
            "alpha": policy.alpha,
            "test": policy.test,
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nights", type=int, default=1000, help="nights per experiment (>= 200)")
    parser.add_argument("--tasks", type=int, default=12, help="holdout tasks per night")
    parser.add_argument("--k", type=int, default=4, help="rollouts per task and side")
    parser.add_argument("--gain", type=float, default=0.15, help="true gain of the good edit")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--test", choices=["sign_flip", "bootstrap"], default="sign_flip")
    add_night_option(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.nights < 200:
        parser.error("--nights must be at least 200")
    edit = parsed_night(parser, args.night)
    result = measure(
        args.nights,
        args.tasks,
        args.k,
        args.gain,
        args.seed,
        GatePolicy(test=args.test),
        NightSettings(**edit),
    )
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        n = result["nights"]
        print(
            f"gate false accept rate (no true effect): {result['false_accept_rate']:.1%} "
            f"of {n} nights (target <= {FALSE_ACCEPT_TARGET:.0%})"
        )
        print(
            f"gate power (true gain {args.gain:.2f}, {args.tasks} tasks x K={args.k}): "
            f"{result['power']:.1%} of {n} nights (target >= {POWER_TARGET:.0%})"
        )
        print(f"  with one pass/fail check per task: {result['power_pass_fail']:.1%}")
        ratio = result["false_accept_ratio"]
        print(
            f"baseline strict mean comparison, same null nights: "
            f"{result['baseline_false_accept_rate']:.1%} accepted"
            + (f" (gate/baseline = {ratio:.3f})" if ratio is not None else "")
        )
        sparse = result["sparse"]
        if result["edit_settings"]:
            print(f"the edit gate with {described(result['edit_settings'])}")
        print(
            f"sparse case: a rule lifts one kind of {sparse['kinds']} from {sparse['base']:.2f} to "
            f"{sparse['fixed']:.2f} (true mean gain {sparse['true_gain']:.3f})"
        )
        for name, rates in sparse["gates"].items():
            print(
                f"  {name:<8} power {rates['power']:.1%} (target >= {POWER_TARGET:.0%}), "
                f"false accepts with no effect {rates['false_accept_rate']:.1%} "
                f"(target <= {FALSE_ACCEPT_TARGET:.0%}), a rule that also breaks the other kinds "
                f"accepted {rates['harmful_accept_rate']:.1%}; {rates['rollouts_per_night']:.1f} rollouts a night "
                f"({rates['rollouts_vs_edit_classic']:.2f}x edit-classic)"
            )
    return 0 if result["meets_targets"] else 1


if __name__ == "__main__":
    sys.exit(main())
