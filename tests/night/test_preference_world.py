"""The simulated world of recurring preferences: its truth, its agent, its optimizer, its tasks,
and the learning benchmark built on it."""

from __future__ import annotations

import asyncio
import copy
import importlib.util
import json
import statistics
import sys
from pathlib import Path

import pytest

from bench.worlds.preference_kinds import (
    BREAKS_ALL,
    HELPED_KIND,
    HELPS_ONE,
    KINDS,
    MODULES,
    USELESS_RULES,
    kind_of_intent,
)
from bench.worlds.preference_world import PreferenceWorld
from skillopt_sleep.backends.base import Backend, Message, Request
from skillopt_sleep.checks.judge import rule_check
from skillopt_sleep.models import Edit, TaskRecord
from skillopt_sleep.optimize.reflect import Case, parse_edits, reflection_prompt
from skillopt_sleep.rollouts.replay import REPLAY_SYSTEM, Rollout, sample_seed, system_text
from skillopt_sleep.rules.guards import BEGIN, END
from skillopt_sleep.rules.workspace import NEW_SKILL

BENCH = Path(__file__).resolve().parents[2] / "bench" / "learning.py"
PROJECT = "/work/project"


def load_bench():
    spec = importlib.util.spec_from_file_location("learning_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def files_with(*rules: str) -> dict[str, str]:
    """A project's skill and memory with ``rules`` in the memory's managed block."""
    block = "\n".join(f"- {r}" for r in rules)
    return {"SKILL.md": NEW_SKILL, "CLAUDE.md": f"# Project\n\n{BEGIN}\n{block}\n{END}\n"}


def sampled_pass_rate(world: PreferenceWorld, files: dict[str, str], kind, n: int = 600) -> float:
    tasks = [
        t
        for night in range(40)
        for t in world.tasks(night, 10, project=PROJECT)
        if kind_of_intent(t.intent) is kind
    ]
    passed = 0
    for i in range(n):
        task = tasks[i % len(tasks)]
        answer = world.answer(system_text(files, task), task.intent, sample_seed(task.id, i))
        passed += rule_check(task.checks[0], answer)[0]
    return passed / n


def test_every_intent_is_of_its_own_kind_and_only_it():
    for kind in KINDS:
        for template in kind.templates:
            for module in MODULES:
                intent = template.format(module=module)
                assert [k.key for k in KINDS if k.topic.search(intent)] == [kind.key], intent


def test_right_answers_pass_the_kind_check_and_wrong_ones_fail():
    for kind in KINDS:
        assert rule_check(kind.check, kind.right)[0], kind.key
        assert not rule_check(kind.check, kind.wrong)[0], kind.key


@pytest.mark.parametrize(
    "rules",
    [
        (),
        (KINDS[0].rule,),
        (KINDS[1].rule, KINDS[4].rule, USELESS_RULES[0]),
        (BREAKS_ALL,),
        (HELPS_ONE,),
        USELESS_RULES,
    ],
)
def test_analytic_quality_matches_sampled_pass_rates(rules):
    world = PreferenceWorld(4)
    files = files_with(*rules)
    sampled = statistics.fmean(sampled_pass_rate(world, files, k) for k in KINDS)
    # 8 x 600 Bernoulli draws: the sd of the mean is at most 0.0072
    assert abs(sampled - world.quality(files)) < 0.03


def test_a_correct_rule_lifts_its_kind_only_and_leaves_every_other_answer_unchanged():
    world = PreferenceWorld(1, pairing=1.0)
    kind = KINDS[3]
    before, after = files_with(), files_with(kind.rule)
    assert 0.18 < sampled_pass_rate(world, before, kind) < 0.32
    assert 0.85 < sampled_pass_rate(world, after, kind) < 0.95
    for task in [t for night in range(5) for t in world.tasks(night, 10, project=PROJECT)]:
        if kind_of_intent(task.intent) is kind:
            continue
        for sample in range(4):  # common random numbers: the very same answer, sample by sample
            seed = sample_seed(task.id, sample)
            assert world.answer(system_text(before, task), task.intent, seed) == world.answer(
                system_text(after, task), task.intent, seed
            )
    assert world.quality(after) - world.quality(before) == pytest.approx((0.9 - 0.25) / len(KINDS))


def test_pairing_is_the_chance_one_sample_keeps_its_draw_under_two_system_texts():
    tasks = [t for night in range(30) for t in PreferenceWorld(0).tasks(night, 10, project=PROJECT)]
    plain, padded = files_with(), files_with(*USELESS_RULES[:2])  # the same truth, another text

    def same_answers(world: PreferenceWorld) -> float:
        same = 0
        for task in tasks:
            seed = sample_seed(task.id, 0)
            first = world.answer(system_text(plain, task), task.intent, seed)
            assert first == world.answer(
                system_text(plain, task), task.intent, seed
            )  # one text, one answer
            same += first == world.answer(system_text(padded, task), task.intent, seed)
        return same / len(tasks)

    # two independent draws at a pass rate of 0.25 agree with chance 0.25**2 + 0.75**2 = 0.625
    assert same_answers(PreferenceWorld(0, pairing=1.0)) == 1.0
    assert abs(same_answers(PreferenceWorld(0, pairing=0.5)) - (0.5 + 0.5 * 0.625)) < 0.06
    assert abs(same_answers(PreferenceWorld(0, pairing=0.0)) - 0.625) < 0.06
    with pytest.raises(ValueError, match="probability"):
        PreferenceWorld(0, pairing=1.5)


def test_harmful_rules_break_what_the_truth_says_they_break():
    world = PreferenceWorld(0)
    assert world.quality(files_with(BREAKS_ALL)) == pytest.approx(0.05)
    helped = [k for k in KINDS if k.key == HELPED_KIND]
    assert world.quality(files_with(HELPS_ONE)) == pytest.approx(
        (0.9 + 0.05 * (len(KINDS) - 1)) / len(KINDS)
    )
    assert sampled_pass_rate(world, files_with(HELPS_ONE), helped[0]) > 0.85
    assert (
        world.quality(files_with(*USELESS_RULES))
        == world.quality(files_with())
        == pytest.approx(0.25)
    )


def test_a_kind_rule_regex_finds_its_phrasings_and_nothing_else():
    others = [*USELESS_RULES, BREAKS_ALL, HELPS_ONE, REPLAY_SYSTEM, NEW_SKILL]
    for kind in KINDS:
        assert len(kind.rules) >= 2 and all(kind.rule_re.search(r) for r in kind.rules), kind.key
        foreign = [r for k in KINDS if k is not kind for r in k.rules] + others
        assert not [r for r in foreign if kind.rule_re.search(r)], kind.key
        assert {PreferenceWorld(0).quality(files_with(r)) for r in kind.rules} == {
            0.25 + 0.65 / len(KINDS)
        }


def test_classify_knows_every_rule():
    world = PreferenceWorld(0)
    assert {world.classify(r) for k in KINDS for r in k.rules} == {"good"}
    assert [world.kind_of_rule(k.rules[1]) for k in KINDS] == list(KINDS)
    assert {world.classify(r) for r in USELESS_RULES} == {"useless"}
    assert world.classify(BREAKS_ALL) == world.classify(HELPS_ONE) == "harmful"
    assert [world.kind_of_rule(k.rule) for k in KINDS] == list(KINDS)


def test_tasks_of_a_night_are_fresh_corrected_failures_on_that_day():
    world = PreferenceWorld(7)
    first, second = world.tasks(0, 10, project=PROJECT), world.tasks(1, 10, project=PROJECT)
    assert len(first) == len(second) == 10 and not {t.id for t in first} & {t.id for t in second}
    for night, tasks in ((0, first), (1, second)):
        for t in tasks:
            kind = kind_of_intent(t.intent)
            assert kind is not None and t.checks == [kind.check] and t.feedback == kind.feedback
            assert t.source == "claude-code" and t.outcome == "failure" and t.project == PROJECT
            assert world.day(night) < t.created_at < world.night_time(night) < world.day(night + 1)
    assert first == PreferenceWorld(7).tasks(0, 10, project=PROJECT)  # seeded
    counts = [
        sum(kind_of_intent(t.intent) is k for t in world.tasks(n, 10, project=PROJECT))
        for n in range(30)
        for k in KINDS
    ]
    assert max(counts) >= 3 and counts.count(0) > 0  # a night has 0 to 3 (rarely more) of a kind
    assert len({t.intent for n in range(10) for t in world.tasks(n, 10, project=PROJECT)}) > 50


def reflection(
    world: PreferenceWorld, night: int, tried=(), current=()
) -> tuple[str, list[TaskRecord]]:
    """The real reflection prompt over a night's tasks, each shown as a failure."""
    tasks = world.tasks(night, 6, project=PROJECT)
    cases = [Case("failure", t, None, Rollout(t.id, 0, t.attempt, 0.0)) for t in tasks]
    tried_edits = [Edit(target="skill", content=r) for r in tried]
    return reflection_prompt(cases, list(current), tried_edits), tasks


def ask_optimizer(world: PreferenceWorld, prompt: str, seed: int, system: str = "") -> str:
    request = Request("optimizer", system, (Message("user", prompt),), seed=seed)
    return asyncio.run(world.complete(request)).text


def test_the_optimizer_cites_the_cases_it_learned_from_sometimes_wrongly():
    world = PreferenceWorld(2)
    right = wrong = good = shown = 0
    for night in range(150):
        prompt, tasks = reflection(world, night)
        shown += len({kind_of_intent(t.intent).key for t in tasks})
        mark = len(world.proposals)
        reply = ask_optimizer(world, prompt, night)
        assert [e.content for e in parse_edits(reply)] == [
            p.content for p in world.proposals[mark:]
        ]
        for edit, proposed in zip(json.loads(reply)["edits"], world.proposals[mark:], strict=True):
            assert edit["cases"] and all(1 <= n <= len(tasks) for n in edit["cases"])
            if proposed.verdict != "good":
                continue
            good += 1
            kinds = {kind_of_intent(tasks[n - 1].intent).key for n in edit["cases"]}
            if kinds == {proposed.kind}:
                right += 1
            else:
                assert proposed.kind not in kinds and not proposed.cited_right
                wrong += 1
    assert 0.4 < good / shown < 0.6  # the correct rule of a kind shown, about half the time
    assert 0.08 < wrong / (right + wrong) < 0.25
    verdicts = [p.verdict for p in world.proposals]
    assert verdicts.count("useless") > 50 and 5 < verdicts.count("harmful") < verdicts.count(
        "useless"
    )


def test_the_optimizer_never_proposes_a_rule_tried_or_already_written():
    world = PreferenceWorld(3)
    half = len(KINDS) // 2
    tried = [k.rule for k in KINDS[:half]] + list(USELESS_RULES[:3]) + [BREAKS_ALL]
    current = [k.rule for k in KINDS[half:]]
    for night in range(60):
        prompt, _ = reflection(world, night, tried=tried, current=current[:2])
        ask_optimizer(world, prompt, night, system="\n".join(current[2:]))
    offered = {p.content for p in world.proposals}
    assert offered and not offered & {*tried, *current}
    assert offered <= {*USELESS_RULES[3:], HELPS_ONE}


def test_the_world_is_a_backend_for_every_role():
    world = PreferenceWorld(0)
    assert isinstance(world, Backend)
    assert asyncio.run(world.check()).ok
    judged = asyncio.run(
        world.complete(
            Request("judge", "", (Message("user", "Rubric: be brief\n\nAnswer:\nbrief"),))
        )
    )
    assert 0 <= json.loads(judged.text)["score"] <= 1


def measured_once(bench):
    """The benchmark with each run of the same users made once: it is seeded and its workdir
    fixed, so the text output prints the numbers the JSON run measured (a third of the test's
    time went on measuring them again). ``--jobs`` is part of the key: the run in two processes
    still runs."""
    run_bench, done = bench.run_bench, {}

    def once(*args, progress, **kwargs):
        key = repr((args, sorted(kwargs.items())))  # all but the progress lines
        if key not in done:
            done[key] = run_bench(*args, progress=progress, **kwargs)
        return copy.deepcopy(done[key])

    bench.run_bench = once
    return bench


@pytest.mark.slow
def test_learning_bench_runs_end_to_end_and_prints_every_metric(tmp_path, capsys):
    bench = measured_once(load_bench())
    code = bench.main(
        ["--seeds", "2", "--nights", "2", "--json", "--quiet", "--workdir", str(tmp_path)]
    )
    result = json.loads(capsys.readouterr().out)
    edit = result["modes"].get("edit")
    assert code == (
        1 if edit is not None and False in edit["meets"].values() else 0
    )  # the edit gate's targets
    assert set(result["modes"]) | set(result["skipped"]) == {
        "holdout",
        "mean-better",
        "edit",
        "edit-classic",
        "oracle",
    }
    holdout = result["modes"]["holdout"]
    assert holdout["runs"] == 2 and holdout["good_reached"] > 0 and holdout["calls_per_night"] > 0
    assert len(holdout["quality_by_night"]) == 2
    for key in (
        "power",
        "false_accepts",
        "harmful_runs",
        "useless_night_changes",
        "gain_mean",
        "gain_sd",
        "gain_fraction",
        "calls_per_night",
        "meets",
    ):
        assert key in holdout, key
    assert set(holdout["meets"]) == set(result["targets"])
    assert list(tmp_path.iterdir()) == [
        tmp_path / "bench.lock"
    ]  # every run cleaned up after itself
    bench.main(
        [
            "--seeds",
            "2",
            "--nights",
            "2",
            "--json",
            "--quiet",
            "--jobs",
            "2",
            "--workdir",
            str(tmp_path),
        ]
    )
    assert (
        json.loads(capsys.readouterr().out) == result
    )  # the same users, the same numbers, in two processes
    bench.main(["--seeds", "2", "--nights", "2", "--quiet", "--workdir", str(tmp_path)])
    text = capsys.readouterr().out
    for line in (
        "power on good edits",
        "false accepts",
        "runs ending harmful",
        "useless-night changes",
        "quality gain",
        "quality by night",
        "gain / oracle gain",
        "calls per night",
        "target >= 0.80",
        "target <= 0.02",
        "target <= 0.03",
        "target >= 0.85",
    ):
        assert line in text, line


def test_bench_metrics_count_proposals_against_the_files():
    bench = load_bench()
    world = PreferenceWorld(0)
    good, useless = KINDS[0].rule, USELESS_RULES[0]

    def proposed(*rules: str):
        return [
            bench.ProposedEdit(
                r,
                "memory",
                world.classify(r),
                getattr(world.kind_of_rule(r), "key", None),
                (1,),
                True,
                0,
            )
            for r in rules
        ]

    empty = files_with()
    nights = [
        bench.NightRecord(
            proposed(good, useless, BREAKS_ALL), empty, files_with(good), 100, "accept"
        ),
        bench.NightRecord(
            proposed(useless), files_with(good), files_with(good, useless), 50, "accept"
        ),
        bench.NightRecord(
            proposed(KINDS[0].rules[1], KINDS[1].rule, KINDS[1].rules[1]),
            files_with(good, useless),
            files_with(good, useless),
            30,
            "reject",
        ),
    ]
    run = bench.RunRecord(
        0, "holdout", world.quality(empty), world.quality(files_with(good)), nights
    )
    m = bench.metrics([run])
    # a kind's rule already written is no news, in any phrasing; two phrasings are one lesson
    assert (m["good_adopted"], m["good_reached"]) == (1, 2)
    assert (m["bad_adopted"], m["bad_reached"]) == (1, 3)
    assert (
        m["useless_adopted"],
        m["useless_reached"],
        m["harmful_adopted"],
        m["harmful_reached"],
    ) == (1, 2, 0, 1)
    assert m["useless_nights"] == 1 and m["useless_night_changes"] == 1.0
    assert m["harmful_runs"] == 0 and m["calls_per_night"] == 60
    assert m["gain_mean"] == pytest.approx(0.65 / 8)
    harmed = bench.RunRecord(
        1, "holdout", 0.25, 0.05, [bench.NightRecord([], empty, files_with(BREAKS_ALL), 1, "")]
    )
    assert bench.metrics([run, harmed])["harmful_runs"] == 1


def test_bench_trace_shows_each_proposal_its_truth_and_fate():
    bench = load_bench()
    world = PreferenceWorld(0)
    good, useless = KINDS[0].rule, USELESS_RULES[0]
    proposed = [
        bench.ProposedEdit(good, "memory", "good", KINDS[0].key, (2,), True, 0),
        bench.ProposedEdit(useless, "skill", "useless", None, (1,), False, 0),
    ]
    night = bench.NightRecord(
        proposed, files_with(), files_with(good), 12, "accept", {useless: "rejected: no effect"}
    )
    lines = bench.trace(bench.RunRecord(3, "edit", 0.25, world.quality(files_with(good)), [night]))
    assert lines[0] == "edit seed 3: quality 0.250 -> 0.331"
    assert lines[1] == "  night 1: accept, 12 calls"
    assert "good     adopted      cases [2] (cited right) " + good in lines[2]
    assert "useless  not adopted  cases [1] (cited WRONG) " + useless in lines[3]
    assert lines[4].strip() == "the night said: rejected: no effect"


def test_bench_counts_a_lesson_confirmed_on_a_later_night_once():
    bench = load_bench()
    world = PreferenceWorld(0)
    good = KINDS[0].rule

    def proposed(*rules: str):
        return [
            bench.ProposedEdit(
                r, "memory", world.classify(r), world.kind_of_rule(r).key, (1,), True, 0
            )
            for r in rules
        ]

    empty, held = files_with(), files_with(good)

    def run(nights):
        return bench.RunRecord(0, "holdout", world.quality(empty), world.quality(held), nights)

    # waited on night 1, confirmed on night 2 with nothing proposed: learned, once
    waited = [
        bench.NightRecord(proposed(good), empty, empty, 10, "reject"),
        bench.NightRecord([], empty, held, 10, "accept"),
    ]
    m = bench.metrics([run(waited)])
    assert (m["good_adopted"], m["good_reached"], m["power_same_night"]) == (1, 1, 0.0)
    # proposed again on night 2 and adopted there: two proposals, one lesson learned
    again = [
        bench.NightRecord(proposed(good), empty, empty, 10, "reject"),
        bench.NightRecord(proposed(good), empty, held, 10, "accept"),
    ]
    m = bench.metrics([run(again)])
    assert (m["good_adopted"], m["good_reached"]) == (1, 2)
    # proposed again on night 2 while night 1's edit still waited for evidence: the night merges
    # the proposal into the waiting edit and adopts that one; the user sees one lesson, learned
    kept = [
        bench.NightRecord(proposed(good), empty, empty, 10, "reject", waiting=(good,)),
        bench.NightRecord(proposed(KINDS[0].rules[1]), empty, held, 10, "accept"),
    ]
    m = bench.metrics([run(kept)])
    assert (m["good_adopted"], m["good_reached"]) == (1, 1)
    assert m["power_every_proposal"] == 0.5  # each night's proposal on its own, as before
    assert m["good_last_night"] == {"adopted": 0, "reached": 0}
    # still waiting after the last night: a miss, and said to be the last night's
    m = bench.metrics(
        [run([bench.NightRecord(proposed(good), empty, empty, 10, "", waiting=(good,))])]
    )
    assert (m["good_adopted"], m["good_reached"]) == (0, 1)
    assert m["good_last_night"] == {"adopted": 0, "reached": 1}
