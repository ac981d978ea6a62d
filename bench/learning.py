"""Does a night learn what the user keeps correcting, night after night, and nothing else?

Usage::

    python -m bench.learning                 # 50 seeds x 5 nights x 10 new tasks a night
    python -m bench.learning --json          # one JSON object
    python -m bench.learning --seeds 5 --nights 3   # a quick look
    python -m bench.learning --pairing 1     # common random numbers: a useless rule moves no answer
    python -m bench.learning --seeds 1 --trace   # every proposal, its truth and its fate, night by night
    python -m bench.learning --night harm_odds=8  # the product's gate with other [night] settings
    python -m bench.learning --regime sparse # a preference once or twice a night: lean vs classic
    python -m bench.learning --regime sparse --tasks 200 --seeds 6   # the same at 200 tasks a night

Every run is one user in :class:`worlds.preference_world.PreferenceWorld` (eight
kinds of recurring preference, useless and harmful rules, an optimizer that cites its cases,
sometimes wrongly). For each seed and each mode, ``--nights`` nights run end to end through
``run_project_night`` (what ``skillopt-sleep run`` calls) with a real store in a fresh home,
``night.auto_adopt`` on: an accepted night's files are adopted before the next night, and tried
edits and history carry over exactly as for a user.

Modes: ``holdout`` (the whole-holdout gate, kept here as the baseline: :mod:`holdout_night`),
``mean-better`` (the same gate loosened to the predecessor's rule: accept when the holdout mean rose
at all, from the first night on), ``edit`` (the product's edit-by-edit gate), ``edit-classic`` (the
same gate spending its rollouts as it used to, :class:`gates.ClassicGate`: the baseline of its
calls a night) and ``oracle`` (a perfect judge that adopts exactly the good proposals).

Counted from what the world's optimizer proposed each night and from the project's files after
each night (never from the summary's wording):

- power: good proposals adopted / good proposals that reached the night (not already in the
  files; a kind's rule proposed twice in a night, in either phrasing, counts once; one the edit
  budget cut is a miss). Adopted means held by the files after that night *or a later night of
  the run* that did not propose it anew: an edit that waits for evidence (unconfirmed, over the
  edit budget, or inconclusive with its evidence carried) and is confirmed on a later night was
  learned; one still waiting after the last night was not. A lesson the optimizer proposes again
  while its edit still waits is that same lesson (the night retests the waiting edit first and
  merges the proposal into it: the user sees one rule, learned a night later), counted once; one
  proposed anew after the product dropped it is counted once more, the earlier proposal a miss.
  ``power_same_night`` counts only the proposal's own night, as earlier versions did;
  ``power_every_proposal`` counts every night's proposal on its own, a re-proposal of a waiting
  edit included (the count the learning benchmark reported as power before); ``good_last_night``
  the lessons of the last night, which no later night can confirm (a miss if they wait);
- false accepts: useless or harmful proposals adopted / those that reached the night, counted the
  same way (``false_accepts_same_night`` too);
- good rules adopted a night: kinds whose good rule the files hold after a night and not before
  it, whichever night proposed it;
- harmful runs: runs whose files hold a harmful rule after the last night;
- useless-night changes: nights whose proposals were all useless and that changed the files;
- gain: the world's exact quality after the last night minus before the first (mean, sd over
  seeds), and as a fraction of the oracle's mean gain;
- calls per night, from the night summaries, and the gate's share of them by part (the shared
  baseline, efficacy, unseen tasks, harm, the joint check); the rest is the train replay and the
  optimizer;
- the floor: the fewest calls a night could have made with the adoptions the gate made, under its
  guarantees, however it spent its rollouts (:mod:`gate_floor`), beside the calls it made; a night
  the gate had nothing to test on is its own floor (its calls are the replay and the optimizer's),
  so the calls and the floor are averaged over the same nights.

``--pairing`` (0.5) is the chance that one replay sample under two different system texts keeps
its random draw: below 1, a rule that changes nothing still moves some answers, as a changed
prompt moves a real model's sample, so the gate meets the noise it meets in use. The gate's
Monte Carlo p-values draw from a generator seeded by the night id, which hashes the project's
path: a fixed ``--workdir`` (the default) keeps every number the same from run to run, and every
mode runs a seed's user at the same path, so the modes meet the same draws.

``--regime sparse`` runs :class:`worlds.sparse_world.SparseWorld` instead: each night works on its
own day's tasks alone (``recall = 0`` in every mode), so a kind shows up on one or two of them,
sometimes none, and the optimizer mixes good, vague and harmful rules. It runs the ``edit`` (lean),
``edit-classic`` and ``oracle`` modes. Every mode also reports, a night: good rules adopted, edits
left inconclusive, and its calls against the powered floor (``floor_ratio``); and, in the sparse
regime, lean against classic: whether the lean allocation gains and adopts at least as much at no
more than :data:`SPARSE_CALLS_TARGET` of the calls.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from bench.gate_floor import POWER, floors, guarded_floor, kinds_floor
from bench.gates import ClassicGate, OracleGate
from bench.holdout_gate import GatePolicy
from bench.holdout_night import holdout_night
from bench.night_args import add_night_option, described, parsed_night
from bench.worlds.preference_kinds import BY_KEY, HARMFUL_RULES, KINDS
from bench.worlds.preference_world import PAIRING, PreferenceWorld, ProposedEdit
from bench.worlds.seed_home import seed_home
from bench.worlds.sparse_world import SparseWorld
from skillopt_sleep.clock import FixedClock
from skillopt_sleep.errors import LockedError
from skillopt_sleep.lock import night_lock
from skillopt_sleep.models import Edit, TaskRecord
from skillopt_sleep.night.project import Backends, run_project_night
from skillopt_sleep.proposal_models import NightSummary
from skillopt_sleep.rules.workspace import load_workspace
from skillopt_sleep.settings import NightSettings, Settings

VERDICTS = ("good", "useless", "harmful")
TARGETS = {
    "power": 0.80,
    "false_accepts": 0.02,
    "harmful_runs": 0,
    "useless_night_changes": 0.03,
    "gain_fraction": 0.85,
}
CALLS_TARGET = (
    1 / 3
)  # calls a night of the edit gate against the same gate spending rollouts the classic way
SPARSE_CALLS_TARGET = 0.6  # ... in the sparse regime, where it must also learn as much
FLOOR_TARGET = 1.5  # calls a night of the edit gate against its powered floor
REGIMES = ("preference", "sparse")


@dataclass(frozen=True)
class Mode:
    """How one mode runs a night: night settings on top of the defaults, and an optional gate of
    the benchmarks' (:mod:`gates`: the oracle, the classic allocation) or holdout-gate policy (the
    baseline, :mod:`holdout_night`)."""

    name: str
    night: dict[str, Any]
    oracle: bool = False
    classic: bool = False
    holdout: GatePolicy | None = None


def modes(
    edit: dict[str, Any] | None = None, regime: str = "preference"
) -> tuple[list[Mode], dict[str, str]]:
    """The modes, and a note for each one that cannot run (none in this version); ``edit``: night
    settings of the ``edit`` mode (the product's gate) that differ from the defaults. The sparse
    regime runs the edit gate's two allocations and the oracle, each night on its own tasks."""
    if regime == "sparse":
        alone = {"recall": 0}
        return [
            Mode("edit", {**alone, **(edit or {})}),
            Mode("edit-classic", alone, classic=True),
            Mode("oracle", alone, oracle=True),
        ], {}
    # the holdout gate as it shipped (its test at 0.05), and loosened to the predecessor's rule
    loose = GatePolicy(min_gain=1e-9, alpha=0.999, max_task_drop=1.0, min_tasks=1)
    return [
        Mode("holdout", {}, holdout=GatePolicy()),
        Mode("mean-better", {}, holdout=loose),
        Mode("edit", dict(edit or {})),
        Mode("edit-classic", {}, classic=True),
        Mode("oracle", {}, oracle=True),
    ], {}


@dataclass
class NightRecord:
    """What one night proposed, what the files held before and after it, and what it cost."""

    proposed: list[ProposedEdit]
    before: dict[str, str]
    after: dict[str, str]
    calls: int
    decision: str
    why: dict[str, str] = field(default_factory=dict)  # rule -> the night's word on it, for --trace
    gate: dict[str, int] = field(default_factory=dict)  # the gate's fresh rollouts, by part
    floor: tuple[int, int] | None = None  # (perfect, powered) calls: :mod:`gate_floor`
    inconclusive: int = 0  # edits the night left inconclusive
    waiting: tuple[str, ...] = ()  # edits the product keeps waiting for evidence after the night
    guarded: int | None = None  # the powered floor with its harm check powered: :mod:`gate_floor`
    kinds: int | None = None  # ... and a sampled harm check's per-kind tests: :mod:`gate_floor`


@dataclass
class RunRecord:
    seed: int
    mode: str
    quality_before: float
    quality_after: float
    nights: list[NightRecord] = field(default_factory=list)
    quality: list[float] = field(default_factory=list)  # after each night


def _text(files: dict[str, str]) -> str:
    return " ".join(" ".join(files.values()).split()).lower()


def holds(files: dict[str, str], rule: str) -> bool:
    """Whether ``rule`` is written in one of ``files`` (whitespace and case aside)."""
    return " ".join(rule.split()).lower() in _text(files)


def run_seed(
    seed: int,
    mode: Mode,
    *,
    nights: int,
    tasks: int,
    workdir: Path,
    pairing: float = PAIRING,
    regime: str = "preference",
) -> RunRecord:
    """``nights`` nights of one user (``seed``) under ``mode``, in a fresh project and home."""
    world = (SparseWorld if regime == "sparse" else PreferenceWorld)(seed, pairing=pairing)
    # one path per seed, whatever the mode: the nights' ids, and so the gate's draws, are the same in
    # every mode (common random numbers), so modes differ by what they do, not by luck
    settings = Settings(night=NightSettings(auto_adopt=True, **mode.night))
    extra: dict[str, Any] = {}
    if mode.holdout is not None:
        extra["stages"] = holdout_night(mode.holdout)
    if mode.oracle:

        def good(edit: Edit) -> bool:
            return world.classify(edit.content) == "good"

        extra["gate"] = OracleGate(good)
    if mode.classic:
        extra["gate"] = ClassicGate.of(settings.night)
    return run_nights(
        world, seed, mode.name, settings, extra, nights=nights, tasks=tasks, workdir=workdir
    )


def run_nights(
    world: PreferenceWorld | SparseWorld,
    seed: int,
    label: str,
    settings: Settings,
    extra: dict[str, Any],
    *,
    nights: int,
    tasks: int,
    workdir: Path,
    told: Callable[[NightSummary], None] | None = None,
) -> RunRecord:
    """``nights`` nights of ``world``'s user in a fresh project and home (one path per seed),
    each run with ``extra`` (a gate, stages) and shown to ``told``; what the files held after
    each."""
    project, paths, store = seed_home(workdir, seed)
    files = load_workspace(project, settings.files).texts
    record = RunRecord(seed, label, world.quality(files), 0.0)
    known: dict[str, TaskRecord] = {}  # every task of the run so far, by id
    try:
        for night in range(nights):
            clock = FixedClock(world.night_time(night))
            new = world.tasks(night, tasks, project=str(project))
            known |= {t.id: t for t in new}
            store.upsert_tasks(new, clock.now())
            mark = len(world.proposals)
            result = run_project_night(
                project=project,
                settings=settings,
                store=store,
                paths=paths,
                backends=Backends(world, world, world),
                clock=clock,
                **extra,
            )
            after = load_workspace(project, settings.files).texts
            s = result.summary
            if told is not None:
                told(s)
            why = {
                e.content: f"{e.status}: {e.reason}".rstrip(": ")
                for e in [*s.edits, *s.rejected_edits]
            }
            record.nights.append(
                NightRecord(
                    world.proposals[mark:],
                    files,
                    after,
                    s.calls,
                    s.decision,
                    why,
                    s.gate_rollouts,
                    floors(s, settings.night) if any(s.gate_rollouts.values()) else None,
                    sum(e.verdict == "inconclusive" for e in s.evidence),
                    tuple(w.edit.content for w in s.waiting),
                    guarded_floor(s, settings.night) if any(s.gate_rollouts.values()) else None,
                    kinds_floor(s, settings.night, known)
                    if any(s.gate_rollouts.values())
                    else None,
                )
            )
            record.quality.append(world.quality(after))
            files = after
    finally:
        store.close()
        shutil.rmtree(project.parent, ignore_errors=True)
    record.quality_after = world.quality(files)
    return record


def _present(files: dict[str, str], pattern: re.Pattern[str]) -> bool:
    return pattern.search("\n".join(files.values())) is not None


def _reached(
    night: NightRecord, verdict: str, waited: Sequence[str] = ()
) -> dict[str, Callable[[dict[str, str]], bool]]:
    """Tonight's distinct lessons of ``verdict`` that the files did not already hold, by key, each
    as a test of whether a set of files holds it. A good rule's lesson is its kind (any phrasing
    of it); any other rule's is its text. A lesson among ``waited`` (the edits the product kept
    waiting for evidence from an earlier night) is not new tonight: the night retests the waiting
    edit first and merges the proposal into it, so it is the earlier night's lesson still."""
    found: dict[str, Callable[[dict[str, str]], bool]] = {}
    for p in night.proposed:
        if p.verdict != verdict:
            continue
        if p.kind is not None and verdict == "good":
            found.setdefault(p.kind, partial(_present, pattern=BY_KEY[p.kind].rule_re))
        else:
            found.setdefault(" ".join(p.content.split()).lower(), partial(holds, rule=p.content))
    waiting = {"memory": "\n".join(waited)}
    return {
        key: present
        for key, present in found.items()
        if not present(night.before) and not present(waiting)
    }


def _learned(
    nights: Sequence[NightRecord],
    i: int,
    verdict: str,
    key: str,
    present: Callable[..., bool],
    kept: bool = True,
) -> bool:
    """Whether night ``i``'s lesson ``key`` was adopted: the files hold it after its night, or
    after a later night before any later night proposes it anew (an edit that waited for evidence
    and was confirmed). A lesson proposed anew, after the product dropped it, is the later
    proposal's to count, never twice; one proposed again while it waits is still this one."""
    for j in range(i, len(nights)):
        if j > i and key in _reached(nights[j], verdict, nights[j - 1].waiting if kept else ()):
            return False
        if present(nights[j].after):
            return True
    return False


def _new_kinds(night: NightRecord) -> list[str]:
    """The kinds whose good rule (in any phrasing) the files hold after ``night`` and not before:
    the good rules the night adopted, whether proposed tonight or confirmed from an earlier night."""
    return [
        k.key
        for k in KINDS
        if k.rule_re.search("\n".join(night.after.values()))
        and not k.rule_re.search("\n".join(night.before.values()))
    ]


def _ratio(hits: int, total: int) -> float | None:
    return hits / total if total else None


def metrics(runs: Sequence[RunRecord]) -> dict[str, Any]:
    """Every number the benchmark prints for one mode (see the module docstring)."""
    reached = dict.fromkeys(VERDICTS, 0)
    adopted = dict.fromkeys(VERDICTS, 0)
    every = [0, 0]  # good proposals adopted, reached: each night's proposal counted on its own
    last = [0, 0]  # good lessons of the last night, adopted and reached: no later night to wait for
    same_night = dict.fromkeys(VERDICTS, 0)
    useless_nights = useless_changed = 0
    calls: list[int] = []
    gate: dict[str, float] = {}
    floor: list[tuple[int, int]] = []
    guarded: list[int] = []
    kinds: list[int] = []
    inconclusive = new_kinds = 0
    for run in runs:
        for i, night in enumerate(run.nights):
            waited = run.nights[i - 1].waiting if i else ()
            for verdict in VERDICTS:
                lessons = _reached(night, verdict, waited)
                reached[verdict] += len(lessons)
                hits = sum(
                    _learned(run.nights, i, verdict, key, present)
                    for key, present in lessons.items()
                )
                adopted[verdict] += hits
                same_night[verdict] += sum(present(night.after) for present in lessons.values())
                if verdict == "good" and i == len(run.nights) - 1:
                    last[0], last[1] = last[0] + hits, last[1] + len(lessons)
            proposals = _reached(night, "good")
            every[1] += len(proposals)
            every[0] += sum(
                _learned(run.nights, i, "good", key, present, kept=False)
                for key, present in proposals.items()
            )
            new_kinds += len(_new_kinds(night))
            if night.proposed and all(p.verdict == "useless" for p in night.proposed):
                useless_nights += 1
                useless_changed += night.after != night.before
            calls.append(night.calls)
            for part, n in night.gate.items():
                gate[part] = gate.get(part, 0) + n
            floor.append(night.floor or (night.calls, night.calls))
            guarded.append(night.calls if night.guarded is None else night.guarded)
            kinds.append(guarded[-1] if night.kinds is None else night.kinds)
            inconclusive += night.inconclusive
    if not any(n.floor for r in runs for n in r.nights):
        floor, guarded, kinds = [], [], []  # a mode with no gate (the oracle) has no floor
    gains = [r.quality_after - r.quality_before for r in runs]
    harmful = sum(
        any(holds(r.nights[-1].after, h) for h in HARMFUL_RULES) for r in runs if r.nights
    )
    bad_in, bad = adopted["useless"] + adopted["harmful"], reached["useless"] + reached["harmful"]
    trajectory = [statistics.fmean(q) for q in zip(*(r.quality for r in runs), strict=True)]
    return {
        "runs": len(runs),
        "power": _ratio(adopted["good"], reached["good"]),
        "power_same_night": _ratio(same_night["good"], reached["good"]),
        # each night's good proposal on its own, a re-proposal of an edit still waiting included:
        # the count earlier versions reported as power
        "power_every_proposal": _ratio(*every),
        "good_last_night": {"adopted": last[0], "reached": last[1]},
        "false_accepts_same_night": _ratio(
            same_night["useless"] + same_night["harmful"], reached["useless"] + reached["harmful"]
        ),
        "good_adopted": adopted["good"],
        "good_reached": reached["good"],
        "false_accepts": _ratio(bad_in, bad),
        "bad_adopted": bad_in,
        "bad_reached": bad,
        "useless_adopted": adopted["useless"],
        "useless_reached": reached["useless"],
        "harmful_adopted": adopted["harmful"],
        "harmful_reached": reached["harmful"],
        "harmful_runs": harmful,
        "useless_night_changes": _ratio(useless_changed, useless_nights),
        "useless_nights": useless_nights,
        "gain_mean": statistics.fmean(gains) if gains else None,
        "gain_sd": statistics.stdev(gains) if len(gains) > 1 else None,
        "calls_per_night": statistics.fmean(calls) if calls else None,
        "good_adopted_per_night": new_kinds / len(calls) if calls else None,
        "inconclusive_per_night": inconclusive / len(calls) if calls else None,
        # calls a night against the powered floor a night (of the nights that ran the gate)
        "floor_ratio": round(statistics.fmean(calls) / statistics.fmean(f[1] for f in floor), 3)
        if floor
        else None,
        # ... and against the floor whose harm check is powered too (the harm guarantee kept)
        "floor_ratio_guarded": round(statistics.fmean(calls) / statistics.fmean(guarded), 3)
        if guarded
        else None,
        # ... and against the floor with a sampled harm check's per-kind tests too
        "floor_ratio_kinds": round(statistics.fmean(calls) / statistics.fmean(kinds), 3)
        if kinds
        else None,
        # the gate's fresh rollouts a night, by part; the rest of the calls are the train replay
        # and the optimizer
        "gate_per_night": {part: round(n / len(calls), 1) for part, n in gate.items()}
        if calls
        else {},
        # the fewest calls a night with these adoptions under the gate's guarantees could make
        "floor_per_night": {
            "perfect": round(statistics.fmean(f[0] for f in floor), 1),
            "powered": round(statistics.fmean(f[1] for f in floor), 1),
            **({"guarded": round(statistics.fmean(guarded), 1)} if guarded else {}),
            **({"kinds": round(statistics.fmean(kinds), 1)} if kinds else {}),
        }
        if floor
        else {},
        "quality_start": statistics.fmean(r.quality_before for r in runs) if runs else None,
        "quality_by_night": trajectory,
    }


def _meets(m: dict[str, Any]) -> dict[str, bool | None]:
    def at_least(key: str) -> bool | None:
        return None if m.get(key) is None else m[key] >= TARGETS[key]

    def at_most(key: str) -> bool | None:
        return None if m.get(key) is None else m[key] <= TARGETS[key]

    return {
        "power": at_least("power"),
        "false_accepts": at_most("false_accepts"),
        "harmful_runs": at_most("harmful_runs"),
        "useless_night_changes": at_most("useless_night_changes"),
        "gain_fraction": at_least("gain_fraction"),
    }


def run_bench(
    seeds: int,
    nights: int,
    tasks: int,
    workdir: Path,
    *,
    jobs: int = 1,
    pairing: float = PAIRING,
    progress: Callable[[str], None] = lambda line: None,
    traced: bool = False,
    edit: dict[str, Any] | None = None,
    regime: str = "preference",
) -> dict[str, Any]:
    """Every mode the package can run over ``seeds`` users; the JSON the benchmark prints.

    ``jobs`` > 1 runs the users in that many processes (each run has its own project and store).
    """
    ran, skipped = modes(edit, regime)
    result: dict[str, Any] = {
        "regime": regime,
        "edit_settings": dict(edit or {}),
        "seeds": seeds,
        "nights": nights,
        "tasks_per_night": tasks,
        "pairing": pairing,
        "targets": TARGETS,
        "modes": {},
        "skipped": skipped,
    }
    workdir.mkdir(parents=True, exist_ok=True)
    with (
        night_lock(workdir / "bench.lock"),
        ProcessPoolExecutor(jobs) if jobs > 1 else nullcontext() as pool,
    ):
        for mode in ran:
            run = partial(
                run_seed,
                mode=mode,
                nights=nights,
                tasks=tasks,
                workdir=workdir,
                pairing=pairing,
                regime=regime,
            )
            runs = []
            for run_record in (
                pool.map(run, range(seeds)) if pool is not None else map(run, range(seeds))
            ):
                runs.append(run_record)
                progress(f"{mode.name}: seed {len(runs)}/{seeds}")
                if traced:
                    progress("\n".join(trace(run_record)))
            result["modes"][mode.name] = metrics(runs)
    oracle = result["modes"].get("oracle", {}).get("gain_mean")
    for m in result["modes"].values():
        m["gain_fraction"] = (
            m["gain_mean"] / oracle if oracle and m["gain_mean"] is not None else None
        )
        m["meets"] = _meets(m)
    edit, classic = result["modes"].get("edit"), result["modes"].get("edit-classic")
    if edit is not None and classic is not None and classic["calls_per_night"]:
        # the same gate and tests, its rollouts spent the lean way against the classic way
        ratio = edit["calls_per_night"] / classic["calls_per_night"]
        result["calls_vs_classic"] = {
            "ratio": round(ratio, 3),
            "target": CALLS_TARGET,
            "met": ratio <= CALLS_TARGET,
            "power_not_lower": (edit["power"] or 0) >= (classic["power"] or 0),
            # what any allocation with the edit gate's adoptions could reach at best
            "floor_ratio": {
                name: round(n / classic["calls_per_night"], 3)
                for name, n in edit["floor_per_night"].items()
            },
        }
        if regime == "sparse":
            result["sparse_vs_classic"] = sparse_verdict(edit, classic)
    return result


def sparse_verdict(lean: dict[str, Any], classic: dict[str, Any]) -> dict[str, Any]:
    """The sparse regime's targets, lean against classic: at least its gain and good rules
    adopted a night, at no more than :data:`SPARSE_CALLS_TARGET` of its calls."""
    ratio = lean["calls_per_night"] / classic["calls_per_night"]
    return {
        "calls_ratio": round(ratio, 3),
        "calls_target": SPARSE_CALLS_TARGET,
        "calls_met": ratio <= SPARSE_CALLS_TARGET,
        "gain_not_lower": (lean["gain_mean"] or 0) >= (classic["gain_mean"] or 0),
        "good_adopted_not_lower": (lean["good_adopted_per_night"] or 0)
        >= (classic["good_adopted_per_night"] or 0),
        "floor_ratio": lean["floor_ratio"],
        "floor_target": FLOOR_TARGET,
    }


def trace(run: RunRecord) -> list[str]:
    """One user's nights, edit by edit: what was proposed, its truth, whether the files took it."""
    lines = [
        f"{run.mode} seed {run.seed}: quality {run.quality_before:.3f} -> {run.quality_after:.3f}"
    ]
    for i, night in enumerate(run.nights):
        lines.append(f"  night {i + 1}: {night.decision}, {night.calls} calls")
        for p in night.proposed:
            state = (
                "already held"
                if holds(night.before, p.content)
                else ("adopted" if holds(night.after, p.content) else "not adopted")
            )
            cited = "cited right" if p.cited_right else "cited WRONG"
            lines.append(
                f"    {p.verdict:<8} {state:<12} cases {list(p.cases)} ({cited}) {p.content}"
            )
            if p.content in night.why and state == "not adopted":
                lines.append(f"             the night said: {night.why[p.content]}")
    return lines


def _fmt(value: float | None, spec: str = ".3f") -> str:
    return "n/a" if value is None else format(value, spec)


def report(r: dict[str, Any]) -> str:
    """The human-readable table."""
    head = (
        f"learning ({r['regime']} regime): {r['seeds']} seeds x {r['nights']} nights x "
        f"{r['tasks_per_night']} new tasks a night"
    )
    lines = [f"{head} (pairing {r['pairing']:g})"]
    if r["edit_settings"]:
        lines.append(f"  the edit mode with {described(r['edit_settings'])}")
    t = r["targets"]
    for name, m in r["modes"].items():
        gain = f"{_fmt(m['gain_mean'], '+.3f')} +- {_fmt(m['gain_sd'])}"
        lines += [
            f"  {name}",
            (
                f"    power on good edits       {_fmt(m['power'])} ({m['good_adopted']}/{m['good_reached']})"
                f"   target >= {t['power']:.2f} (on their own night {_fmt(m['power_same_night'])})"
            ),
            (
                f"      every proposal alone    {_fmt(m['power_every_proposal'])}; the last "
                f"night's lessons adopted {m['good_last_night']['adopted']}/"
                f"{m['good_last_night']['reached']} (no later night to confirm them)"
            ),
            (
                f"    false accepts             {_fmt(m['false_accepts'])} ({m['bad_adopted']}/{m['bad_reached']}: "
                f"useless {m['useless_adopted']}/{m['useless_reached']}, harmful "
                f"{m['harmful_adopted']}/{m['harmful_reached']})   target <= {t['false_accepts']:.2f}"
            ),
            f"    runs ending harmful       {m['harmful_runs']}/{m['runs']}   target {t['harmful_runs']}",
            (
                f"    useless-night changes     {_fmt(m['useless_night_changes'])} (of {m['useless_nights']} nights)"
                f"   target <= {t['useless_night_changes']:.2f}"
            ),
            f"    quality gain              {gain}",
            f"    quality by night          {_fmt(m['quality_start'])} -> "
            + " -> ".join(_fmt(q) for q in m["quality_by_night"]),
            f"    gain / oracle gain        {_fmt(m['gain_fraction'])}   target >= {t['gain_fraction']:.2f}",
            f"    calls per night           {_fmt(m['calls_per_night'], '.1f')}",
            (
                f"    good rules adopted a night {_fmt(m['good_adopted_per_night'], '.2f')}, "
                f"edits left inconclusive a night {_fmt(m['inconclusive_per_night'], '.2f')}"
            ),
        ]
        if m["gate_per_night"]:
            gate = m["gate_per_night"]
            lines.append(
                f"      of which the gate         {sum(gate.values()):.1f}: "
                + ", ".join(f"{part} {n:.1f}" for part, n in gate.items())
            )
        if m["floor_per_night"]:
            f = m["floor_per_night"]
            lines.append(
                f"    floor with these adoptions {f['perfect']:.1f} calls a night (perfect "
                f"outcomes), {f['powered']:.1f} (fixed tests at power {POWER}); calls / powered "
                f"floor {m['floor_ratio']:.2f} (target <= {FLOOR_TARGET})"
            )
            if m["floor_ratio_guarded"] is not None:
                lines.append(
                    f"      with the harm check powered too {f['guarded']:.1f} calls a night; calls "
                    f"/ that floor {m['floor_ratio_guarded']:.2f}"
                )
            if m.get("floor_ratio_kinds") is not None:
                lines.append(
                    f"      and a sampled harm check's per-kind tests {f['kinds']:.1f}; calls / "
                    f"that floor {m['floor_ratio_kinds']:.2f}"
                )
    lines += [f"  {name}: {note}" for name, note in r["skipped"].items()]
    if "calls_vs_classic" in r:
        c = r["calls_vs_classic"]
        lines.append(
            f"  edit / edit-classic calls per night: {c['ratio']:.3f} (target <= {c['target']:.3f}: "
            f"{'met' if c['met'] else 'NOT met'}); power not lower: {c['power_not_lower']}"
        )
        if c["floor_ratio"]:
            lines.append(
                "  the edit gate's floor / edit-classic calls per night: "
                + ", ".join(f"{name} {r:.3f}" for name, r in c["floor_ratio"].items())
            )
    if "sparse_vs_classic" in r:
        v = r["sparse_vs_classic"]
        lines.append(
            f"  sparse regime, lean / classic calls a night: {v['calls_ratio']:.3f} (target <= "
            f"{v['calls_target']}: {'met' if v['calls_met'] else 'NOT met'}); gain not lower: "
            f"{v['gain_not_lower']}; good rules adopted a night not lower: {v['good_adopted_not_lower']}"
        )
    return "\n".join(lines)


def _scratch() -> Path:
    """A memory-backed directory when the system has one (the store syncs to disk often)."""
    shm = Path("/dev/shm")
    return shm if shm.is_dir() else Path(tempfile.gettempdir())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", type=int, default=50, help="simulated users per mode")
    parser.add_argument("--nights", type=int, default=5)
    parser.add_argument("--tasks", type=int, default=10, help="new tasks a night")
    parser.add_argument(
        "--regime",
        choices=REGIMES,
        default="preference",
        help="preference: the nights recall older tasks; sparse: each night works on its own "
        "day's tasks, a kind on one or two of them, lean against classic",
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=_scratch() / "skillopt-sleep-learning",
        help="where the projects and homes live while they run (a fixed path keeps "
        "the nights' ids, and so every number, the same from run to run)",
    )
    parser.add_argument(
        "--pairing",
        type=float,
        default=PAIRING,
        help="chance one sample under two system texts shares its draw (1: common random "
        "numbers, where a rule that changes nothing moves no answer)",
    )
    add_night_option(parser)
    parser.add_argument("--jobs", type=int, default=1, help="processes to run the users in")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument(
        "--trace",
        action="store_true",
        help="print every night's proposals, their truth and fate on stderr (a few seeds)",
    )
    args = parser.parse_args(argv)
    if min(args.seeds, args.nights, args.tasks, args.jobs) < 1:
        parser.error("--seeds, --nights, --tasks and --jobs must be at least 1")
    if not 0 <= args.pairing <= 1:
        parser.error("--pairing must be between 0 and 1")
    edit = parsed_night(parser, args.night)
    say = (
        (lambda line: None)
        if args.quiet
        else (lambda line: print(line, file=sys.stderr, flush=True))
    )
    try:
        result = run_bench(
            args.seeds,
            args.nights,
            args.tasks,
            args.workdir.resolve(),
            jobs=args.jobs,
            pairing=args.pairing,
            progress=say,
            traced=args.trace,
            edit=edit,
            regime=args.regime,
        )
    except LockedError:
        parser.error(
            f"another learning benchmark is using {args.workdir}: wait for it, or pass another --workdir"
        )
    print(json.dumps(result, sort_keys=True) if args.json else report(result))
    edit = result["modes"].get("edit")
    return 1 if edit is not None and not all(v is not False for v in edit["meets"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
