"""Agent replay against text replay, in the acting world: the gate's power and false accepts on
action rules, and what a night costs.

    python bench/agent_replay.py              # 10 nights each way, default night settings
    python bench/agent_replay.py --nights 4 --json

Each night takes 4 corrected tasks for each of two action rules (a command that must not be run:
``python -m unittest``; a directory that must not be touched: ``vendor/``), from Claude Code and
Codex, and an optimizer that proposes both rules and a decoy that changes nothing the agent does.
The same tasks and world seed run twice in the same process: ``agent`` (``[night] replay =
"auto"``: the agent acts in a copy of the project; its actions are scored) and ``text`` (the
baseline: the model says what it would do). *Power* is the share of (night, rule) pairs whose
rule was accepted; *false accepts* the share of nights that accepted the decoy.

The agent here is :class:`skillopt_sleep.testing.sim_agent.SimAgentRunner`: it stands in for the
``claude``/``codex`` binaries inside the rollout (same argv, same copy, same event output parsed
by the same code) so that tens of nights run in minutes; the real binaries and the sandbox are
exercised by tests/agent_replay/. Wall time is therefore that of the pipeline around the agent,
not of a real agent; calls and tokens are the night's own count (an agent rollout is one call of
the ``agent`` role with the tokens the agent reports).

Measured (``--nights 100 --seed 100``, default night settings but concurrency 4; the agent obeys a
rule 90% of the time with it loaded and 15% without): agent replay power 1.00 on both rules
(200 of 200), false accepts 0.01 (1 of 100 nights); text replay power 0.50 (the command rule
always, the directory rule never: a text reply touches no file, so its rollouts are errors, not
evidence), false accepts 0.01; agent / text per night: 0.88x the calls, 29x the tokens.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from skillopt_sleep.agent_replay import AgentLimits, AgentSetup
from skillopt_sleep.agent_replay.sandbox import Sandbox
from skillopt_sleep.night.agent_dispatch import AgentReplays
from skillopt_sleep.night.root import run_night
from skillopt_sleep.settings import NightSettings, Settings
from skillopt_sleep.testing.acting_world import RULES, ActingWorld, write_project
from skillopt_sleep.testing.sim_agent import SimAgentRunner

DECOY = "Prefer descriptive names for temporary variables."


def _project(root: Path) -> Path:
    return write_project(root)


def night(seed: int, mode: str, project: Path, settings: Settings) -> dict:
    world = ActingWorld(RULES, seed=seed, decoys=[DECOY])
    runner = SimAgentRunner(world)

    def prep(agent):
        binary = "claude" if agent == "claude-code" else "codex"
        return AgentSetup(agent, binary, {}, Sandbox("bwrap"), AgentLimits(), None, runner)

    agents = AgentReplays("auto" if mode == "agent" else "text", prep)
    tasks = world.tasks(str(project), n=4)
    started = time.perf_counter()
    result = run_night(
        tasks,
        project,
        target=world,
        optimizer=world,
        judge=world,
        settings=settings,
        seed=seed,
        agents=agents,
    )
    wall = time.perf_counter() - started
    s = result.summary
    accepted = {e.edit.content for e in s.evidence if e.verdict == "accepted"}
    return {
        "seed": seed,
        "mode": mode,
        "decision": s.decision,
        "wall_s": wall,
        "calls": s.calls,
        "tokens": s.tokens,
        "agent_rollouts": runner.runs,
        "errored": s.errored_rollouts,
        "rules_accepted": sorted(r.key for r in RULES if r.rule in accepted),
        "decoy_accepted": DECOY in accepted,
    }


def summarise(rows: list[dict]) -> dict:
    n = len(rows)
    return {
        "nights": n,
        "power": sum(len(r["rules_accepted"]) for r in rows) / (n * len(RULES)),
        "power_by_rule": {
            rule.key: sum(rule.key in r["rules_accepted"] for r in rows) / n for rule in RULES
        },
        "false_accepts": sum(r["decoy_accepted"] for r in rows) / n,
        "calls_per_night": sum(r["calls"] for r in rows) / n,
        "tokens_per_night": sum(r["tokens"] for r in rows) / n,
        "wall_s_per_night": sum(r["wall_s"] for r in rows) / n,
        "errored_per_night": sum(r["errored"] for r in rows) / n,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nights", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    settings = Settings(night=NightSettings(concurrency=4))
    rows: dict[str, list[dict]] = {"agent": [], "text": []}
    with tempfile.TemporaryDirectory() as tmp:
        project = _project(Path(tmp) / "project")
        for seed in range(args.seed, args.seed + args.nights):
            for mode, kept in rows.items():
                kept.append(night(seed, mode, project, settings))
    result = {mode: summarise(r) for mode, r in rows.items()}
    a, t = result["agent"], result["text"]
    ratios = {
        k: (a[k] / t[k] if t[k] else None)
        for k in ("calls_per_night", "tokens_per_night", "wall_s_per_night")
    }
    if args.json:
        print(json.dumps({**result, "agent_over_text": ratios, "nights": rows}, indent=2))
        return 0
    for mode, res in result.items():
        print(
            f"{mode:>5}: power {res['power']:.2f} {res['power_by_rule']}, false accepts "
            f"{res['false_accepts']:.2f}, per night {res['calls_per_night']:.0f} calls, "
            f"{res['tokens_per_night']:.0f} tokens, {res['wall_s_per_night']:.1f}s, "
            f"{res['errored_per_night']:.1f} errored rollouts"
        )
    print(
        "agent / text: "
        + ", ".join(f"{k} {v:.2f}x" if v else f"{k} n/a" for k, v in ratios.items())
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
