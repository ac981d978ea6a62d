"""What a night costs: today's way against prompt caching and batch APIs, at list prices.

The same night (``--tasks`` tasks, K rollouts, the simulated world answering over HTTP) runs
three times per provider through the real ``anthropic`` and ``openai`` SDK backends against the
loopback model server, which reports cache usage from the prefixes it really sees and speaks
both batch APIs:

* ``today``: no prompt caching, synchronous calls (what every night paid before);
* ``cache``: the stable prefix (instructions, skill, memory) cached;
* ``cache+batch``: cached, and sent through the provider's batch API (half price).

Costs are the night's own accounting at the providers' list prices (Claude Sonnet 4.6:
$3 / $15 per million input / output tokens, cache write 1.25x, read 0.1x; GPT-5 mini: $0.25 /
$2, cached input $0.025; batches half price). The project's skill and memory are a few thousand
tokens, as real ones are. Printed: each run's cost and its ratio to ``today``, and whether the
three runs made the same decision with the same edits (the goal: the cheapest at most 35% of
today's cost, same decisions). Beside each, the same runs with the gate's classic allocation
(:class:`gates.ClassicGate`): its calls and price, against the default's. Also printed: the
night at the full uncached price. OpenAI caches
a shared prefix by itself, so its ``today`` already reads the skill and memory at the cached
price; there the batch API is what is left to save.

    python -m bench.night_cost            # both providers, 40 tasks, K = 4
    python -m bench.night_cost --json     # one JSON object
    python -m bench.night_cost --tasks 8 --k 2 --seeds 0 --no-classic   # small: the decisions
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypedDict, get_args

import anthropic
import openai

from bench.gates import ClassicGate
from bench.night_latency import bench_tasks
from skillopt_sleep import run_night
from skillopt_sleep.backends.anthropic_api import AnthropicBackend
from skillopt_sleep.backends.batching import BatchingBackend, batching
from skillopt_sleep.backends.openai_api import OpenAIBackend
from skillopt_sleep.backends.simulated import WORLD
from skillopt_sleep.models import NightSummary, TaskRecord
from skillopt_sleep.night.demo import SKILL_PATH, write_sample_project
from skillopt_sleep.settings import BudgetSettings, NightSettings, Settings
from skillopt_sleep.store import Store
from skillopt_sleep.testing import ModelServer
from skillopt_sleep.testing.night_model import simulated_night_responder

TARGET = 0.35
MODELS = {"anthropic": "claude-sonnet-4-6", "openai": "gpt-5-mini"}
MODES = ("today", "cache", "cache+batch")
AREAS = ("billing", "accounts", "export", "search", "notifications", "reports", "sync", "admin")
VERBS = (
    "validates",
    "stores",
    "renders",
    "schedules",
    "retries",
    "reconciles",
    "archives",
    "exports",
)


def _conventions(title: str, n: int, salt: int) -> str:
    """``n`` project notes of plain prose (no rule the simulated world reacts to)."""
    lines = [f"\n\n## {title}\n"]
    for i in range(n):
        area, verb = AREAS[(i + salt) % len(AREAS)], VERBS[(i * 3 + salt) % len(VERBS)]
        lines.append(
            f"- The {area} module {verb} its records through `src/beta_app/{area}/service_{i}.py`; "
            f"keep the public names stable, raise `{area.title()}Error` with the record id on bad "
            f"input, and document any new setting in `docs/{area}.md` next to its default."
        )
    return "\n".join(lines)


def realistic_project(project: Path) -> int:
    """The sample project with a skill and a memory file of real-world size; their tokens."""
    write_sample_project(project)
    skill, memory = project / SKILL_PATH, project / "CLAUDE.md"
    skill.write_text(skill.read_text() + _conventions("Module conventions", 40, 0))
    memory.write_text(memory.read_text() + _conventions("Team notes", 40, 5))
    added = skill.read_text() + memory.read_text()
    for pref in WORLD:  # the padding must not change what the simulated agent does
        assert not re.search(pref.rule, added) and not re.search(pref.anti, added), pref.key
    return len(added) // 4


def backend_for(provider: str, srv: ModelServer, cache: bool) -> Any:
    """The provider's SDK backend aimed at the loopback server, as it talks to the public API."""
    if provider == "anthropic":
        return AnthropicBackend(
            lambda: anthropic.AsyncAnthropic(base_url=srv.url, api_key="bench", max_retries=0),
            model=MODELS[provider],
            prompt_cache=cache,
        )
    return OpenAIBackend(
        lambda: openai.AsyncOpenAI(base_url=srv.v1, api_key="bench", max_retries=0),
        model=MODELS[provider],
        compatible=False,
        prompt_cache=cache,
    )


class Usage(TypedDict):
    """What a night's roles spent together: money at the night's and at list prices, and tokens."""

    cost_usd: float
    list_cost_usd: float
    calls: int
    input_tokens: int
    cache_write_tokens: int
    cache_read_tokens: int
    batched_calls: int


class Spend(Usage):
    """What a night spent, with the batches it sent and the calls the server saw."""

    batches: int
    server_calls: int


class ClassicRun(TypedDict):
    """One way of sending calls with the classic allocation, over every seed."""

    mode: str
    calls: int
    cost_usd: float
    decisions: list[str]
    edits: list[int]


def one_night(
    provider: str,
    mode: str,
    project: Path,
    tasks: list[TaskRecord],
    k: int,
    seed: int,
    classic: bool = False,
) -> tuple[Spend, NightSummary]:
    # One call at a time: the K identical requests of a task (neither API takes a seed) then reach
    # the simulated model in the same order in every run, so each sample keeps its draw and the
    # paired tests see the same rollouts. A batch keeps that order by itself.
    settings = Settings(
        night=NightSettings(k=k, concurrency=1),
        budget=BudgetSettings(max_calls=None, max_tokens=None, max_cost_usd=None),
    )
    with ModelServer(responder=simulated_night_responder(count_samples=True)) as srv:
        backend = backend_for(provider, srv, cache=mode != "today")
        if mode == "cache+batch":
            backend = batching(backend, Store.memory(), poll_s=0.02)
        gate = ClassicGate.of(settings.night) if classic else None
        summary = run_night(
            tasks, project, target=backend, settings=settings, seed=seed, gate=gate
        ).summary
        batches = len(backend.log.submitted) if isinstance(backend, BatchingBackend) else 0
        return {
            **_spend(summary),
            "batches": batches,
            "server_calls": len(srv.model_requests()),
        }, summary


Summed = Literal[
    "cost_usd",
    "list_cost_usd",
    "calls",
    "input_tokens",
    "cache_write_tokens",
    "cache_read_tokens",
    "batched_calls",
    "batches",
    "server_calls",
]
SUMMED: tuple[Summed, ...] = get_args(Summed)


def _spend(s: NightSummary) -> Usage:
    roles = s.usage_by_role.values()
    assert s.cost_usd is not None, f"no list price for {s.unpriced_models}"  # the bench prices all
    return {
        "cost_usd": s.cost_usd,
        "list_cost_usd": sum(u.list_cost_usd for u in roles),
        "calls": s.calls,
        "input_tokens": sum(u.input_tokens for u in roles),
        "cache_write_tokens": sum(u.cache_write_tokens for u in roles),
        "cache_read_tokens": sum(u.cache_read_tokens for u in roles),
        "batched_calls": sum(u.batched_calls for u in roles),
    }


class Decision(TypedDict):
    """What a night decided, and the edits it made (target, op, content, status)."""

    decision: str
    edits: list[tuple[str, str, str, str]]


def _as_printed(v: float) -> float:
    """A sum as the report shows it: to six decimals, or an int where it is whole."""
    return round(v, 6) if isinstance(v, float) and not v.is_integer() else int(v)


def _decision(s: NightSummary) -> Decision:
    return {
        "decision": s.decision,
        "edits": [(e.target, e.op, e.content, e.status) for e in s.edits],
    }


def provider_runs(
    provider: str,
    project: Path,
    tasks: list[TaskRecord],
    k: int,
    seeds: list[int],
    with_classic: bool = True,
) -> dict[str, Any]:
    """The three modes over every seed: summed spending, and each seed's decision per mode;
    beside them the classic allocation's (``with_classic``)."""
    totals: dict[str, dict[Summed, float]] = {}  # by mode, as printed
    decisions: dict[tuple[str, int], Decision] = {}
    for mode in MODES:
        total = dict.fromkeys(SUMMED, 0.0)
        for seed in seeds:
            spend, summary = one_night(provider, mode, project, tasks, k, seed)
            total = {key: total[key] + spend[key] for key in SUMMED}
            decisions[(mode, seed)] = _decision(summary)
        totals[mode] = {key: _as_printed(v) for key, v in total.items()}
    first = totals["today"]
    today = first["cost_usd"]
    runs = [
        {"mode": mode, **t, "ratio": round(t["cost_usd"] / today, 4) if today else None}
        for mode, t in totals.items()
    ]
    # the gate's classic allocation, every way of sending calls: the price of the same nights before
    classic: list[ClassicRun] = []
    for mode in MODES if with_classic else ():
        nights = [
            one_night(provider, mode, project, tasks, k, seed, classic=True) for seed in seeds
        ]
        classic.append(
            {
                "mode": mode,
                "calls": sum(s["calls"] for s, _ in nights),
                "cost_usd": round(sum(s["cost_usd"] for s, _ in nights), 6),
                "decisions": [n.decision for _, n in nights],
                "edits": [len(n.edits) for _, n in nights],
            }
        )
    cheapest = min(t["cost_usd"] for t in totals.values())
    by_seed = {seed: decisions[("today", seed)] for seed in seeds}
    return {
        "model": MODELS[provider],
        "runs": runs,
        "classic_allocation": classic,
        "calls_vs_classic": round(first["calls"] / classic[0]["calls"], 3)
        if classic and classic[0]["calls"]
        else None,
        "cost_vs_classic": {
            mode: round(t["cost_usd"] / c["cost_usd"], 3) if c["cost_usd"] else None
            for (mode, t), c in zip(totals.items(), classic, strict=False)
        },
        "decisions": {str(seed): d["decision"] for seed, d in by_seed.items()},
        "edits": {str(seed): len(d["edits"]) for seed, d in by_seed.items()},
        "same_decisions": all(
            decisions[(m, seed)] == by_seed[seed] for m in MODES for seed in seeds
        ),
        "same_calls": all(t["calls"] == first["calls"] for t in totals.values()),
        "cheapest_ratio": round(cheapest / today, 4) if today else None,
        "full_price_usd": first["list_cost_usd"],
        "cheapest_to_full_price": round(cheapest / first["list_cost_usd"], 4),
        "target_met": bool(today) and cheapest / today <= TARGET,
    }


def measure(
    n_tasks: int,
    k: int,
    providers: tuple[str, ...],
    seeds: list[int],
    with_classic: bool = True,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "tasks": n_tasks,
        "k": k,
        "seeds": seeds,
        "target_ratio": TARGET,
        "providers": {},
    }
    with tempfile.TemporaryDirectory(prefix="night-cost-") as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        out["prefix_tokens"] = realistic_project(project)
        tasks = bench_tasks(project, n_tasks)
        for provider in providers:
            out["providers"][provider] = provider_runs(
                provider, project, tasks, k, seeds, with_classic
            )
    out["same_decisions"] = all(
        p["same_decisions"] and p["same_calls"] for p in out["providers"].values()
    )
    out["target_met"] = all(p["target_met"] for p in out["providers"].values())
    return out


def report(r: dict[str, Any]) -> str:
    lines = [
        (
            f"night_cost: {r['tasks']} tasks, K={r['k']}, skill + memory ~{r['prefix_tokens']} tokens, "
            f"list prices, seeds {', '.join(map(str, r['seeds']))} (costs summed over the seeds)"
        )
    ]
    for provider, p in r["providers"].items():
        seen = ", ".join(
            f"seed {s}: {d} ({p['edits'][s]} edits)" for s, d in p["decisions"].items()
        )
        lines.append(
            f"  {provider} ({p['model']}): {seen}; "
            f"same decision and edits in all three runs: {p['same_decisions']}, "
            f"same calls: {p['same_calls']}"
        )
        for run in p["runs"]:
            lines.append(
                f"    {run['mode']:<12} ${run['cost_usd']:>9.4f}  {run['ratio']:>6.1%} of today  "
                f"{run['calls']} calls, cache write/read {run['cache_write_tokens']:,}/"
                f"{run['cache_read_tokens']:,} tokens, {run['batched_calls']} batched "
                f"in {run['batches']} batches"
            )
        for run, old in zip(p["runs"], p["classic_allocation"], strict=False):
            lines.append(
                f"    {run['mode']:<12} classic allocation: ${old['cost_usd']:>9.4f}, {old['calls']} calls, "
                f"decisions {old['decisions']}, edits {old['edits']} "
                f"(lean / classic cost {p['cost_vs_classic'][run['mode']]:.3f})"
            )
        met = "met" if p["target_met"] else "NOT met"
        lines.append(
            f"    cheapest {p['cheapest_ratio']:.1%} of today (target <= {TARGET:.0%}: {met}); "
            f"{p['cheapest_to_full_price']:.1%} of the full uncached price "
            f"(${p['full_price_usd']:.4f})"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None, emit: Callable[[str], None] = print) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--tasks", type=int, default=40)
    p.add_argument("--k", type=int, default=4)
    p.add_argument("--provider", choices=("anthropic", "openai", "both"), default="both")
    p.add_argument("--seeds", default="0,1,2", help="comma-separated night seeds (default 0,1,2)")
    p.add_argument(
        "--no-classic",
        action="store_true",
        help="leave out the same nights with the classic allocation (most of its time)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    providers = ("anthropic", "openai") if args.provider == "both" else (args.provider,)
    seeds = [int(x) for x in args.seeds.split(",")]
    result = measure(args.tasks, args.k, providers, seeds, not args.no_classic)
    emit(json.dumps(result) if args.json else report(result))
    return 0 if result["same_decisions"] else 1


if __name__ == "__main__":
    sys.exit(main())
