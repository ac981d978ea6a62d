"""Why a mined check must pass on the user's own example: a night whose tasks carry a check that
contradicts the correction does not learn the rule; the same night with the narrowed check does.

    python -m bench.contradicting_checks              # 5 nights each way, in both shapes
    python -m bench.contradicting_checks --nights 20 --json
    python -m bench.contradicting_checks --shape flag-value

The acting world (:mod:`skillopt_sleep.testing.acting_world`, the agent played by
:class:`~skillopt_sleep.testing.sim_agent.SimAgentRunner` in a copy of the project, as
bench/agent_replay.py runs it), in two shapes of correction, each with one rule the agent obeys
90% of the time with it in CLAUDE.md/AGENTS.md and 15% without, and the optimizer proposes:
- ``unittest``: "Use `python3 -m pytest -q`, not unittest" after the agent ran ``python3 -m
  unittest``; the miner of 4b6d96e mined ``never_ran python3``;
- ``flag-value``: "`-n auto` はやめて。CI マシンは 2 コアしかないので `pytest -n 2` まで。" after the
  agent ran ``pytest -n auto``; the miner of ba9759c mined ``never_ran pytest`` and ``never_ran
  -n`` (a program and a flag the user's own ``pytest -n 2`` runs too).
Each shape is measured with two sets of the same four corrected tasks, differing only in their check:
- ``contradicting``: the first check the miner mined: the command the user asked for fails it
  too, so no rollout passes with or without the rule;
- ``narrowed``: what the miner mined, held against the user's example by the harvest's own
  :func:`skillopt_sleep.harvest.examples.hold` (``never_ran python3 -m unittest``; ``never_ran -n
  auto``, the value alone).
Each night prints whether the rule was adopted and its efficacy pass rates before and after.

Measured (``python -m bench.contradicting_checks --nights 20``): unittest, contradicting, the rule
adopted on 0 of 20 nights, pass rate 0.00 before and 0.00 after; narrowed, adopted on 20 of 20,
pass rate 0.13 before and 0.90 after. flag-value, contradicting, adopted on 0 of 20, 0.00 before
and 0.00 after; narrowed, adopted on 19 of 20, 0.14 before and 0.91 after. At the default 5 nights
(``python -m bench.contradicting_checks``): unittest 0 of 5 (0.00 -> 0.00) and 5 of 5 (0.12 ->
0.89); flag-value 0 of 5 (0.00 -> 0.00) and 5 of 5 (0.15 -> 0.99).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, TypedDict

from skillopt_sleep.agent_replay import Agent, AgentLimits, AgentSetup
from skillopt_sleep.agent_replay.sandbox import Sandbox
from skillopt_sleep.harvest.examples import hold, phrase, user_example
from skillopt_sleep.models import Action, Check
from skillopt_sleep.night.root import run_night
from skillopt_sleep.rollouts.agent_dispatch import AgentReplays
from skillopt_sleep.settings import NightSettings, Settings
from skillopt_sleep.testing.acting_world import Act, ActingWorld, ActionRule, write_project
from skillopt_sleep.testing.sim_agent import SimAgentRunner


@dataclass(frozen=True)
class Shape:
    """A correction, the attempt it corrected, what the miner once mined from it (every check of
    which the user's own example fails), and the rule it teaches."""

    correction: str
    corrected: tuple[Action, ...]
    mined: tuple[Check, ...]
    rule: ActionRule


SHAPES: dict[str, Shape] = {
    "unittest": Shape(
        "Use `python3 -m pytest -q`, not unittest.",
        (Action(kind="command", command="python3 -m unittest", exit_code=0),),
        (Check(kind="never_ran", value=phrase(["python3"])),),
        ActionRule(
            key="python3 -m pytest -q",
            rule="Run the tests with `python3 -m pytest -q`, never with `python3 -m unittest`.",
            trigger="Run the test suite",
            good=Act(command="python3 -m pytest -q"),
            bad=Act(command="python3 -m unittest"),
            check=Check(kind="never_ran", value=phrase(["python3"])),
        ),
    ),
    "flag-value": Shape(
        "`-n auto` はやめて。CI マシンは 2 コアしかないので `pytest -n 2` まで。",
        (Action(kind="command", command="pytest -n auto", exit_code=0),),
        (
            Check(kind="never_ran", value=phrase(["pytest"]), case_sensitive=False),
            Check(kind="never_ran", value=phrase(["-n"]), case_sensitive=False),
        ),
        ActionRule(
            key="pytest -n 2",
            rule="Run the tests in parallel with `pytest -n 2`, never `-n auto`: CI has 2 cores.",
            trigger="Run the tests in parallel",
            good=Act(command="pytest -n 2"),
            bad=Act(command="pytest -n auto"),
            check=Check(kind="never_ran", value=phrase(["pytest"]), case_sensitive=False),
        ),
    ),
}
Variant = Literal["contradicting", "narrowed"]


class NightRow(TypedDict):
    """One night: whether the rule was adopted, and its efficacy pass rates before and after."""

    seed: int
    adopted: bool
    before: float | None
    after: float | None


class Summary(TypedDict):
    """One variant over its nights."""

    check: str
    nights: int
    adopted: int
    before: float | None
    after: float | None
    rows: list[NightRow]


def checks(shape: str = "unittest") -> dict[Variant, Check]:
    """The contradicting check of ``shape`` and the one the harvest narrows what was mined to on
    the user's example."""
    world = SHAPES[shape]
    example = user_example(world.correction, world.corrected)
    [narrowed] = hold(world.mined, example, world.corrected)
    return {"contradicting": world.mined[0], "narrowed": narrowed}


def night(rule: ActionRule, check: Check, seed: int, project: Path, settings: Settings) -> NightRow:
    """One night of four tasks corrected by ``rule`` that carry ``check``."""
    world = ActingWorld((replace(rule, check=check),), seed=seed)
    runner = SimAgentRunner(world)

    def prep(agent: Agent) -> AgentSetup:
        binary = "claude" if agent == "claude-code" else "codex"
        return AgentSetup(agent, binary, {}, Sandbox("bwrap"), AgentLimits(), None, runner)

    result = run_night(
        world.tasks(str(project), n=4),
        project,
        target=world,
        optimizer=world,
        judge=world,
        settings=settings,
        seed=seed,
        agents=AgentReplays("auto", prep),
    )
    evidence = [e for e in result.summary.evidence if e.edit.content == rule.rule]
    counts = evidence[0].efficacy if evidence else None
    return {
        "seed": seed,
        "adopted": any(e.verdict == "accepted" for e in evidence),
        "before": counts.before_rate if counts else None,
        "after": counts.after_rate if counts else None,
    }


def _mean(values: list[float | None]) -> float | None:
    seen = [v for v in values if v is not None]
    return sum(seen) / len(seen) if seen else None


def measure(
    nights: int, seed: int = 0, shapes: tuple[str, ...] = tuple(SHAPES)
) -> dict[str, dict[Variant, Summary]]:
    """Both variants of each shape over the same ``nights`` seeds."""
    settings = Settings(night=NightSettings(concurrency=4))
    out: dict[str, dict[Variant, Summary]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        project = write_project(Path(tmp) / "project")
        for shape in shapes:
            rule = SHAPES[shape].rule
            out[shape] = {}
            for variant, check in checks(shape).items():
                rows = [
                    night(rule, check, s, project, settings) for s in range(seed, seed + nights)
                ]
                out[shape][variant] = {
                    "check": f"{check.kind} {check.value}",
                    "nights": nights,
                    "adopted": sum(r["adopted"] for r in rows),
                    "before": _mean([r["before"] for r in rows]),
                    "after": _mean([r["after"] for r in rows]),
                    "rows": rows,
                }
    return out


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nights", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shape", choices=tuple(SHAPES), action="append")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = measure(args.nights, args.seed, tuple(args.shape or SHAPES))
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for shape, variants in result.items():
        print(f"{shape}: {SHAPES[shape].correction}")
        for variant, res in variants.items():
            print(
                f"{variant:>13}: {res['check']}\n"
                f"               rule adopted on {res['adopted']} of {res['nights']} nights; "
                f"pass rate {_rate(res['before'])} before, {_rate(res['after'])} after"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
