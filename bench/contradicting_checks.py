"""Why a mined check must pass on the user's own example: a night whose tasks carry a check that
contradicts the correction does not learn the rule; the same night with the narrowed check does.

    python -m bench.contradicting_checks              # 5 nights each way
    python -m bench.contradicting_checks --nights 20 --json

The acting world (:mod:`skillopt_sleep.testing.acting_world`, the agent played by
:class:`~skillopt_sleep.testing.sim_agent.SimAgentRunner` in a copy of the project, as
bench/agent_replay.py runs it) with one rule: the user said "Use `python3 -m pytest -q`, not
unittest" after the agent ran ``python3 -m unittest``. The agent obeys the rule 90% of the time
with it in CLAUDE.md/AGENTS.md and 15% without, and the optimizer proposes it. Two sets of the
same four corrected tasks, differing only in their check:
- ``contradicting``: ``never_ran python3``, what the miner of 4b6d96e mined from that correction:
  the command the user asked for fails it too, so no rollout passes with or without the rule;
- ``narrowed``: that check held against the user's example by the harvest's own
  :func:`skillopt_sleep.harvest.examples.hold` (``never_ran python3 -m unittest``).
Each night prints whether the rule was adopted and its efficacy pass rates before and after.

Measured (``python -m bench.contradicting_checks --nights 20``): contradicting, the rule adopted on
0 of 20 nights, pass rate 0.00 before and 0.00 after; narrowed, adopted on 20 of 20, pass rate
0.13 before and 0.90 after.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import replace
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

CORRECTION = "Use `python3 -m pytest -q`, not unittest."
CORRECTED = (Action(kind="command", command="python3 -m unittest", exit_code=0),)
RULE = ActionRule(
    key="python3 -m pytest -q",
    rule="Run the tests with `python3 -m pytest -q`, never with `python3 -m unittest`.",
    trigger="Run the test suite",
    good=Act(command="python3 -m pytest -q"),
    bad=Act(command="python3 -m unittest"),
    check=Check(kind="never_ran", value=phrase(["python3"])),
)
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


def checks() -> dict[Variant, Check]:
    """The contradicting check and the one the harvest narrows it to on the user's example."""
    example = user_example(CORRECTION, CORRECTED)
    [narrowed] = hold([RULE.check], example, CORRECTED)
    return {"contradicting": RULE.check, "narrowed": narrowed}


def night(check: Check, seed: int, project: Path, settings: Settings) -> NightRow:
    """One night of four corrected tasks that carry ``check``."""
    world = ActingWorld((replace(RULE, check=check),), seed=seed)
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
    evidence = [e for e in result.summary.evidence if e.edit.content == RULE.rule]
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


def measure(nights: int, seed: int = 0) -> dict[Variant, Summary]:
    """Both variants over the same ``nights`` seeds."""
    settings = Settings(night=NightSettings(concurrency=4))
    out: dict[Variant, Summary] = {}
    with tempfile.TemporaryDirectory() as tmp:
        project = write_project(Path(tmp) / "project")
        for variant, check in checks().items():
            rows = [night(check, s, project, settings) for s in range(seed, seed + nights)]
            out[variant] = {
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
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = measure(args.nights, args.seed)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for variant, res in result.items():
        print(
            f"{variant:>13}: {res['check']}\n"
            f"               rule adopted on {res['adopted']} of {res['nights']} nights; "
            f"pass rate {_rate(res['before'])} before, {_rate(res['after'])} after"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
