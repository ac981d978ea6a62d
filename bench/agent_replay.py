"""Agent replay against text replay, in the acting world: the gate's power and false accepts on
action rules, and what a night costs.

    python -m bench.agent_replay              # 10 nights each way, default night settings
    python -m bench.agent_replay --nights 4 --json
    python -m bench.agent_replay --real --nights 1   # the real claude and codex (see below)
    python -m bench.agent_replay --real --agents claude-code --rules vendor --seed 3  # one rule

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

``--real`` runs the same comparison through the real ``claude`` and ``codex`` binaries (from
``.tools/node_modules/.bin``, or PATH) in the bubblewrap sandbox, answered by the acting world
over a loopback model server (as tests/agent_replay/test_real_night.py does), with small night
settings (K=2, short tests: :data:`REAL`) because every agent rollout is a real process: a few
nights, each agent's tasks on its own, against text replay of the same tasks in the same run.
It prints the gate's decision on every edit of every night; its power over so few nights is a
count, not an estimate. The world's draws are seeded (a night through the real binary repeats its
decisions); ``--rules`` keeps only the named rules' tasks, a night of half the rollouts.

Measured, stand-in agent (``--nights 100 --seed 100``; the agent obeys a rule 90% of the time
with it loaded and 15% without): agent replay power 0.985 (never runs unittest 1.00, leaves
vendor/ alone 0.97), false accepts 0.00 (0 of 100 nights); text replay power 0.49 (0.98 and
0.00: a text reply touches no file, so its rollouts on the directory rule are errors, not
evidence), false accepts 0.01; agent / text per night: 0.67x the calls, 22x the tokens. The
same run on the tree before agent replay went through the environment seam gave the same
decisions, calls and power.

Measured, real binaries (``--real --nights 1`` and ``--real --nights 3 --seed 1``: 4 nights per
agent, :data:`REAL` settings; claude 2.1.197, codex 0.169.0): Claude Code accepted 7 of 8 rules
(the unittest rule inconclusive once), codex 8 of 8, the decoy never (0 of 8 nights); text
replay of the same tasks 4 of 8 (the command rule only), the decoy never. Per night, agent /
text: Claude Code 62.5 / 39 calls (1.6x), 2.5M / 5.2k tokens (488x), 109 s / 0.1 s; codex 72 / 39
calls (1.85x), 1.4M / 5.2k tokens (265x), 242 s / 0.3 s. Four nights are too few for a power
figure: the gate's power and false accepts are the stand-in's. Again after the agent replay
gained the copy at the session's commit and a breaker (``--real --nights 2``, seeds 0-1): Claude
Code 4 of 4 rules, codex 4 of 4, the decoy never; text 2 of 4 each; per night Claude Code 63 / 37
calls (1.7x), 2.6M / 4.9k tokens (519x), 59 s / 0.02 s; codex 77 / 37 calls (2.1x), 1.5M / 4.9k
tokens (298x), 236 s / 0.03 s. The real nights run without a money limit (the loopback world is
free; claude prices its rollouts at its default model's list price), bounded by calls and tokens.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Literal, TypedDict, final, get_args

from skillopt_sleep.agent_replay import Agent, AgentLimits, AgentSetup, prepare
from skillopt_sleep.agent_replay.sandbox import Sandbox
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.night.root import run_night
from skillopt_sleep.rollouts.agent_dispatch import AgentReplays, agent_replays
from skillopt_sleep.settings import BudgetSettings, NightSettings, Settings
from skillopt_sleep.testing import ModelServer
from skillopt_sleep.testing.acting_world import (
    RULES,
    TEST_RUNNER,
    VENDOR_DIR,
    ActingWorld,
    ActionRule,
    write_project,
)
from skillopt_sleep.testing.agents import codex_home
from skillopt_sleep.testing.sim_agent import SimAgentRunner

DECOY = "Prefer descriptive names for temporary variables."
TOOLS = Path(__file__).resolve().parents[1] / ".tools" / "node_modules" / ".bin"
BY_NAME = {"unittest": TEST_RUNNER, "vendor": VENDOR_DIR}  # --rules
REAL = NightSettings(
    k=2,
    steps=1,
    concurrency=2,
    efficacy_rollouts=12,
    efficacy_looks=1,
    harm_rollouts=4,
    harm_looks=1,
    unseen_rollouts=2,
    agent_timeout_s=180,
    agent_max_turns=6,
)

Mode = Literal["agent", "text"]  # the agent acts in a copy of the project, or says what it would do
MODES: tuple[Mode, ...] = get_args(Mode)
PerNight = Literal["calls_per_night", "tokens_per_night", "wall_s_per_night"]
PER_NIGHT: tuple[PerNight, ...] = get_args(PerNight)


class NightRow(TypedDict):
    """One night: its decision, what it spent, each edit's verdict and the rules it accepted."""

    seed: int
    decision: str
    wall_s: float
    calls: int
    tokens: int
    errored: int
    edits: dict[str, str]
    rules_accepted: list[str]
    decoy_accepted: bool


class ModeNight(NightRow):
    """A night in one mode, and the agent rollouts it ran."""

    mode: Mode
    agent_rollouts: int


class RealNight(ModeNight):
    """A night of one real agent's tasks."""

    agent: str


class Summary(TypedDict):
    """One mode over its nights: the gate's power and false accepts, and the cost per night."""

    nights: int
    power: float
    power_by_rule: dict[str, float]
    false_accepts: float
    calls_per_night: float
    tokens_per_night: float
    wall_s_per_night: float
    errored_per_night: float


class Comparison(TypedDict):
    """Both modes summarised, and agent over text per night (None where text spent nothing)."""

    agent: Summary
    text: Summary
    agent_over_text: dict[str, float | None]


@final  # no other keys: a group with "skipped" is a Skipped
class Report(Comparison):
    """The comparison and every night it was drawn from, by mode."""

    nights: dict[Mode, list[ModeNight]]


class Skipped(TypedDict):
    """A real agent that cannot run here, and why."""

    skipped: str


def _project(root: Path) -> Path:
    return write_project(root)


def night(
    seed: int, mode: Mode, project: Path, settings: Settings, rules: tuple[ActionRule, ...] = RULES
) -> ModeNight:
    world = ActingWorld(rules, seed=seed, decoys=[DECOY])
    runner = SimAgentRunner(world)

    def prep(agent: Agent) -> AgentSetup:
        binary = "claude" if agent == "claude-code" else "codex"
        return AgentSetup(agent, binary, {}, Sandbox("bwrap"), AgentLimits(), None, runner)

    agents = AgentReplays("auto" if mode == "agent" else "text", prep)
    row = _run(world, world.tasks(str(project), n=4), project, settings, agents, seed)
    return {**row, "mode": mode, "agent_rollouts": runner.runs}


def real_night(
    seed: int,
    mode: Mode,
    agent: str,
    project: Path,
    home: Path,
    rules: tuple[ActionRule, ...] = RULES,
) -> RealNight:
    """One night of ``agent``'s tasks through the real binary (``mode`` agent) or as text."""
    world = ActingWorld(rules, seed=seed, decoys=[DECOY])
    tasks = [t.model_copy(update={"source": agent}) for t in world.tasks(str(project), n=4)]
    with ModelServer(responder=world.respond) as server:
        agents = agent_replays(
            "auto" if mode == "agent" else "text",
            _agent_env(home, server.url),
            timeout_s=REAL.agent_timeout_s,
            max_turns=REAL.agent_max_turns,
        )
        # The loopback world costs nothing; claude prices its rollouts at its default model's
        # list price, which would stop a night at the default $5: only calls and tokens bound it.
        free = BudgetSettings(max_cost_usd=None)
        row = _run(world, tasks, project, Settings(night=REAL, budget=free), agents, seed)
    return {**row, "mode": mode, "agent": agent, "agent_rollouts": agents.rollouts}


def _agent_env(home: Path, url: str) -> dict[str, str]:
    """The user's environment as a night sees it: both CLIs pointed at the loopback server."""
    codex = codex_home(home, url)
    return {
        "PATH": f"{TOOLS}:{os.environ.get('PATH', '')}",
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "x",
        "LOCAL_API_KEY": codex["LOCAL_API_KEY"],
    }


def _run(
    world: ActingWorld,
    tasks: list[TaskRecord],
    project: Path,
    settings: Settings,
    agents: AgentReplays,
    seed: int,
) -> NightRow:
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
        "decision": s.decision,
        "wall_s": wall,
        "calls": s.calls,
        "tokens": s.tokens,
        "errored": s.errored_rollouts,
        "edits": {e.edit.content: e.verdict for e in s.evidence},
        "rules_accepted": sorted(r.key for r in world.rules if r.rule in accepted),
        "decoy_accepted": DECOY in accepted,
    }


def summarise(rows: list[ModeNight], rules: tuple[ActionRule, ...] = RULES) -> Summary:
    n = len(rows)
    return {
        "nights": n,
        "power": sum(len(r["rules_accepted"]) for r in rows) / (n * len(rules)),
        "power_by_rule": {
            rule.key: sum(rule.key in r["rules_accepted"] for r in rows) / n for rule in rules
        },
        "false_accepts": sum(r["decoy_accepted"] for r in rows) / n,
        "calls_per_night": sum(r["calls"] for r in rows) / n,
        "tokens_per_night": sum(r["tokens"] for r in rows) / n,
        "wall_s_per_night": sum(r["wall_s"] for r in rows) / n,
        "errored_per_night": sum(r["errored"] for r in rows) / n,
    }


def compare(rows: dict[Mode, list[ModeNight]], rules: tuple[ActionRule, ...] = RULES) -> Comparison:
    """Both modes summarised, and agent over text per night (calls, tokens, wall time)."""
    a, t = summarise(rows["agent"], rules), summarise(rows["text"], rules)
    return {
        "agent": a,
        "text": t,
        "agent_over_text": {k: (a[k] / t[k] if t[k] else None) for k in PER_NIGHT},
    }


def stand_in(args: argparse.Namespace) -> Report:
    settings = Settings(night=NightSettings(concurrency=4))
    rows: dict[Mode, list[ModeNight]] = {"agent": [], "text": []}
    with tempfile.TemporaryDirectory() as tmp:
        project = _project(Path(tmp) / "project")
        for seed in range(args.seed, args.seed + args.nights):
            for mode, kept in rows.items():
                kept.append(night(seed, mode, project, settings, args.rules))
    return {**compare(rows, args.rules), "nights": rows}


def real(args: argparse.Namespace) -> dict[str, Report | Skipped]:
    """The real binaries, each agent's nights on their own; an agent that cannot run here is
    reported as such, never replaced by the stand-in."""
    out: dict[str, Report | Skipped] = {}
    for agent in args.agents.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            found = prepare(agent, _agent_env(Path(tmp) / "home", "http://127.0.0.1:9"))
            if isinstance(found, str):
                out[agent] = {"skipped": found}
                continue
            project = _project(Path(tmp) / "project")
            rows: dict[Mode, list[ModeNight]] = {"agent": [], "text": []}
            for seed in range(args.seed, args.seed + args.nights):
                for mode, kept in rows.items():
                    home = Path(tmp) / "home"
                    kept.append(real_night(seed, mode, agent, project, home, args.rules))
        out[agent] = {**compare(rows, args.rules), "nights": rows}
    return out


def _line(mode: str, res: Summary) -> str:
    return (
        f"{mode:>5}: power {res['power']:.2f} {res['power_by_rule']}, false accepts "
        f"{res['false_accepts']:.2f}, per night {res['calls_per_night']:.0f} calls, "
        f"{res['tokens_per_night']:.0f} tokens, {res['wall_s_per_night']:.1f}s, "
        f"{res['errored_per_night']:.1f} errored rollouts"
    )


def _ratios(ratios: dict[str, float | None]) -> str:
    return "agent / text: " + ", ".join(
        f"{k} {v:.2f}x" if v else f"{k} n/a" for k, v in ratios.items()
    )


def _print(groups: list[tuple[str, Report | Skipped]], is_real: bool) -> None:
    for name, res in groups:
        print(f"{name}:")
        if "skipped" in res:
            print(f"  skipped: {res['skipped']}")
            continue
        for mode in MODES:
            print("  " + _line(mode, res[mode]))
        print("  " + _ratios(res["agent_over_text"]))
        if is_real:
            for mode in MODES:
                for r in res["nights"][mode]:
                    edits = ", ".join(f"{v}: {e[:40]}" for e, v in r["edits"].items())
                    print(f"  {mode} night {r['seed']}: {r['decision']} ({edits})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nights", type=int, default=None, help="per mode (10; 1 with --real)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--real", action="store_true", help="the real claude and codex binaries")
    parser.add_argument("--agents", default="claude-code,codex", help="with --real: which agents")
    parser.add_argument(
        "--rules", default=",".join(BY_NAME), help=f"the world's action rules, of {list(BY_NAME)}"
    )
    args = parser.parse_args(argv)
    unknown = [n for n in args.rules.split(",") if n not in BY_NAME]
    if unknown:
        parser.error(f"unknown rule {unknown[0]!r}: choose among {', '.join(BY_NAME)}")
    args.rules = tuple(BY_NAME[n] for n in dict.fromkeys(args.rules.split(",")))
    args.nights = args.nights or (1 if args.real else 10)
    result: dict[str, Report | Skipped] | Report
    groups: list[tuple[str, Report | Skipped]]
    if args.real:
        result = real(args)
        groups = list(result.items())
    else:
        result = stand_in(args)
        groups = [("stand-in agent", result)]
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        _print(groups, args.real)
    return 0


if __name__ == "__main__":
    sys.exit(main())
