"""Commands: demo, run, dry-run."""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BackendError, BudgetExhausted, UsageError
from ..lock import night_lock
from ..paths import resolve_paths
from .common import add_backend_flags, add_project_flag, at_least_one, backend_flags
from .context import Ctx
from .progress import night_progress, published_night, shown_and_published
from .render import night_text
from .terminal import printable

if TYPE_CHECKING:
    from ..models import NightSummary, TaskRecord
    from ..night.estimate import Estimate
    from ..night.recorder import NightResult
    from ..night.root import Backends
    from ..settings import Settings


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    for name, help_text in (
        ("run", "run tonight for a project and stage a proposal"),
        ("dry-run", "run tonight but stage nothing"),
    ):
        p = sub.add_parser(name, parents=[common], help=help_text)
        add_project_flag(p)
        add_backend_flags(p)
        _night_flags(p)
        if name == "run":
            p.add_argument(
                "--estimate",
                action="store_true",
                help="print the expected calls, tokens and cost, spend nothing",
            )
        p.set_defaults(func=run_cmd, dry_run=name == "dry-run")
    p = sub.add_parser(
        "demo", parents=[common], help="a full night on a bundled sample project (offline)"
    )
    p.add_argument("--dir", metavar="DIR", help="where to put the demo (default: a new temp dir)")
    add_backend_flags(p)
    _night_flags(p)
    p.set_defaults(func=demo_cmd)


def _night_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--k", type=at_least_one, metavar="N", help="rollouts per task (default 4)")
    p.add_argument(
        "--concurrency", type=at_least_one, metavar="N", help="concurrent model calls (default 16)"
    )
    p.add_argument("--seed", type=int, metavar="N", help="random seed of the night")


def _flags(args: argparse.Namespace) -> dict[str, Any]:
    flags = backend_flags(args)
    flags.update(
        {"night.k": args.k, "night.concurrency": args.concurrency, "night.seed": args.seed}
    )
    return flags


# A night that ended without what it was run for exits with the code of what stopped it, so a
# cron wrapper or the scheduler's notice can tell; its summary is printed first all the same.
_STOPPED = {"outage": BackendError.exit_code, "budget_exhausted": BudgetExhausted.exit_code}


def night_exit(summary: NightSummary, ctx: Ctx) -> int:
    """The exit code of a night that ran, with its reason on stderr when it stopped short."""
    code = _STOPPED.get(summary.decision or "", 0)
    if code:
        ctx.err.write(f"skillopt-sleep: error: {printable(summary.reason)}\n")
    return code


def run_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..backends.registry import backend_class
    from ..night.estimate_ways import ways_text
    from ..night.project import build_backends, estimate_project_night

    project = ctx.project(args.project)
    if (
        not project.is_dir()
    ):  # a typo in a scheduled path must not pass as "no tasks" night after night
        raise UsageError(f"no project directory {project}", hint="check the --project path")
    settings = ctx.settings(project, _flags(args)).settings
    for role in (settings.roles.target, settings.roles.optimizer, settings.roles.judge):
        if role.backend:
            backend_class(role.backend)  # a misspelt name is an error even on a night with no tasks
    tasks = ctx.store.list_tasks(project=str(project))
    if not tasks:
        ctx.emit(
            {"project": str(project), "decision": None, "reason": "no tasks"},
            f"no tasks logged for {project} yet: run `skillopt-sleep harvest` or add some with "
            "`skillopt-sleep tasks add`",
        )
        return 0
    backends = build_backends(settings, ctx.env)
    if getattr(args, "estimate", False):
        from ..agent_replay import replay_models
        from ..rollouts.agent_dispatch import agent_replays

        models = replay_models(backends.target.name, settings.roles.target.model)
        est = estimate_project_night(
            project=project,
            settings=settings,
            store=ctx.store,
            backends=backends,
            tasks=tasks,
            agents=agent_replays(settings.night.replay, ctx.env, models=models),
        )
        calls = ways_text(est.calls, est.calls_if_proven, est.calls_if_not, est.p_proven)
        text = (
            f"estimate for {project}: {calls}; never more than {est.calls_bound} "
            f"(the gate's tests {est.gate_expected:.0f} on average, at most {est.gate_bound}; "
            f"{est.cached} rollouts cached), "
            f"~{est.input_tokens + est.output_tokens} tokens; {_fits(est)}\n{estimate_prices(est)}"
        )
        parts = ", ".join(f"{part} {n:.0f}" for part, n in est.gate_parts)
        gate = (
            f"  the gate's tests: {parts}; early stops save about {est.gate_saved:.0f}"
            if parts
            else ""
        )
        ctx.emit(est.__dict__, "\n".join([text, *([gate] if gate else []), *est.notes]))
        return 0
    result = _night(args, ctx, project, settings, backends, tasks)
    ctx.emit(result.summary, _night_text(result.summary, ctx))
    return night_exit(result.summary, ctx)


def _fits(est: Estimate) -> str:
    """Whether the estimate fits the budget; with no price for its model, the money is unknown
    and only its calls and tokens are said to fit."""
    if not est.within_budget:
        return "OVER the budget"
    if est.cost_usd is None:
        return "calls and tokens within the budget; its cost is unknown"
    return "within the budget"


def _night(
    args: argparse.Namespace,
    ctx: Ctx,
    project: Path,
    settings: Settings,
    backends: Backends,
    tasks: list[TaskRecord],
) -> NightResult:
    """The night itself, under the lock, its progress shown and published for `status`."""
    from ..agent_replay import replay_models
    from ..night.project import run_project_night
    from ..rollouts.agent_dispatch import agent_replays

    with (
        night_lock(ctx.paths.lock_file, clock=ctx.clock),
        night_progress(ctx) as shown,
        published_night(ctx, project, tasks=len(tasks), dry_run=args.dry_run) as beat,
    ):
        return run_project_night(
            project=project,
            settings=settings,
            store=ctx.store,
            paths=ctx.paths,
            backends=backends,
            clock=ctx.clock,
            dry_run=args.dry_run,
            progress=shown_and_published(shown, beat),
            watch=beat.watch,
            agents=agent_replays(
                settings.night.replay,
                ctx.env,
                timeout_s=settings.night.agent_timeout_s,
                max_turns=settings.night.agent_max_turns,
                models=replay_models(backends.target.name, settings.roles.target.model),
            ),
        )


def _night_text(s: NightSummary, ctx: Ctx) -> str:
    """The night for the terminal, adopted if ``auto_adopt`` adopted it."""
    row = ctx.store.night(s.night_id)
    return night_text(s, adopted=row is not None and row.state == "adopted")


def estimate_prices(est: Estimate) -> str:
    """The estimate's three prices, the one the night will pay marked."""

    def usd(value: float | None) -> str:
        return "unknown" if value is None else f"${value:.4f}"

    mark = ("", "", "  <- [night] batch = true") if est.batch else ("", "  <- this night", "")
    return "\n".join(
        [
            f"  cost at the full price:     {usd(est.cost_usd)}{mark[0]}",
            f"  with prompt caching:       {usd(est.cost_cached_usd)}{mark[1]}",
            f"  with caching and batches:  {usd(est.cost_batch_usd)}{mark[2]}",
        ]
    )


def demo_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    if args.dir:
        return _demo(Path(args.dir).resolve(), args, ctx)
    root = Path(tempfile.mkdtemp(prefix="skillopt-sleep-demo-"))
    try:
        return _demo(root, args, ctx)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)  # a demo that could not run leaves nothing behind
        raise


def _demo(root: Path, args: argparse.Namespace, ctx: Ctx) -> int:
    from ..night.demo import next_steps, prepare_demo
    from ..night.project import build_backends, run_project_night
    from ..store import Store

    flags = _flags(args)
    if not args.backend:
        flags.update({f"roles.{r}.backend": "simulated" for r in ("target", "optimizer", "judge")})
    # A bad setting is refused before the sample project is written (a new project has no
    # settings file of its own, so none is read for it).
    settings = ctx.settings(None, flags).settings
    demo = prepare_demo(root, ctx.clock)
    paths = resolve_paths(str(demo.home)).ensure()
    store = Store.open(paths.db)
    store.upsert_tasks(demo.tasks, ctx.clock.now())
    ctx.say(f"demo project: {demo.project} ({len(demo.tasks)} sample tasks)")
    with night_progress(ctx) as progress:
        result = run_project_night(
            project=demo.project,
            settings=settings,
            store=store,
            paths=paths,
            backends=build_backends(settings, ctx.env),
            clock=ctx.clock,
            progress=progress,
        )
    s = result.summary
    if ctx.json:
        ctx.emit(s, "")
        return night_exit(s, ctx)
    review, adopt = next_steps(demo, self_command(ctx.env))
    text = [night_text(s, review="the commands below")]
    if s.proposal_dir:
        for diff in sorted(Path(s.proposal_dir, "diffs").glob("*.diff")):
            text += [
                "",
                f"--- proposed change to {diff.stem} ---",
                diff.read_text(encoding="utf-8").rstrip(),
            ]
        text += [
            "",
            "Nothing live changed. To review the proposal and adopt it into the demo project:",
            f"  {review}",
            f"  {adopt}",
        ]
    ctx.emit(s, "\n".join(text))
    return night_exit(s, ctx)


def self_command(
    env: Mapping[str, str], argv0: str | None = None, executable: str | None = None
) -> str:
    """How to spell this program in a command line we print, so that it runs as printed: the bare
    name when the shell finds it on PATH, else the path it was started by."""
    name = "skillopt-sleep"
    if shutil.which(name, path=env.get("PATH", "")):
        return name
    started = Path(argv0 if argv0 is not None else sys.argv[0])
    if started.name == name and started.is_file():
        return shlex.quote(str(started.absolute()))
    return f"{shlex.quote(executable or sys.executable)} -m skillopt_sleep"
