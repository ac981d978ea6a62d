"""Commands: train DATA --skill FILE --out DIR | train stage DIR --project P."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from ..errors import BackendError, BudgetExhausted, ConfigError, UsageError
from .common import add_backend_flags, backend_flags
from .context import Ctx
from .terminal import printable


def plural(n: int, word: str) -> str:
    """``1 step``, ``2 steps``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


if TYPE_CHECKING:
    from ..night.root import Backends
    from ..rollouts.agent_dispatch import AgentReplays
    from ..settings import Settings
    from ..train import TrainConfig
    from ..train.config import TrainSummary
    from ..train.data import TaskSet


FLAGS = (
    "epochs",
    "steps_per_epoch",
    "batch_size",
    "k",
    "edit_budget",
    "schedule",
    "mode",
    "run_alpha",
    "env",
    "seed",
    "split_ratio",
    "gate_metric",
    "gate_mixed_weight",
    "failure_only",
    "frame",
    "minibatch",
)


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "train",
        parents=[common],
        help="train a skill over a task set (or: train stage DIR)",
        description="Train a skill over a task set: `train DATA --skill FILE --out DIR`. "
        "`train stage DIR --project P` stages the best skill of a run as a proposal.",
    )
    data = "a .jsonl task set, or a directory of train/val/test.jsonl (or the --env's own items)"
    p.add_argument("data", metavar="DATA", nargs="?", help=data)
    p.add_argument("dir", metavar="DIR", nargs="?", help=argparse.SUPPRESS)
    p.add_argument("--skill", metavar="FILE", help="the skill (SKILL.md or prompt) to train")
    p.add_argument("--skill-text", metavar="TEXT", help="the initial skill, given as text")
    p.add_argument(
        "--out", metavar="DIR", help="the run directory (a run already there is resumed)"
    )
    p.add_argument(
        "--project", "-p", metavar="DIR", help="(train stage) the project to stage the skill for"
    )
    p.add_argument("--epochs", "--num-epochs", type=int, metavar="N")
    p.add_argument("--steps-per-epoch", type=int, metavar="N", help="steps in each epoch")
    p.add_argument("--steps", type=int, dest="old_steps", help=argparse.SUPPRESS)
    p.add_argument("--batch-size", type=int, metavar="N")
    p.add_argument("--k", type=int, metavar="N", help="rollouts per item")
    p.add_argument("--edit-budget", type=int, metavar="N", help="edits a step may accept, at most")
    p.add_argument(
        "--schedule", choices=("constant", "linear", "cosine"), help="how the edit budget decays"
    )
    p.add_argument(
        "--mode", choices=("rules", "document"), help="edit learned rules, or the whole document"
    )
    _gate_and_prompt_flags(p)
    p.add_argument("--env", metavar="NAME", help="task-record, qa, agent, or module:Class")
    p.add_argument("--seed", type=int, metavar="N")
    p.add_argument(
        "--split-ratio", metavar="T:V:T", help="split a file without split fields (default 2:1:7)"
    )
    p.add_argument(
        "--prompts",
        metavar="DIR",
        help="override optimizer prompts by name (NAME.txt); default: [night] prompts",
    )
    p.add_argument("--optimizer-model", metavar="M", help="model of the optimizer role")
    p.add_argument(
        "--estimate",
        action="store_true",
        help="print the expected calls, tokens and cost, spend nothing",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="resume the run in --out from what it recorded: its DATA, skill, backend and "
        "settings (a run there is also resumed by the command that started it)",
    )
    add_backend_flags(p)
    p.set_defaults(func=train_cmd)


def _gate_and_prompt_flags(p: argparse.ArgumentParser) -> None:
    """The gate's flags and what the target and the analysts are shown."""
    p.add_argument("--gate", dest="old_gate", help=argparse.SUPPRESS)  # refused unless evidence
    p.add_argument(
        "--rigor",
        choices=("light", "standard", "strict"),
        help="the gate's levels: fewer calls and less power, today's, or more calls and fewer "
        "false accepts (default: [train] rigor, standard)",
    )
    p.add_argument(
        "--run-alpha",
        type=float,
        metavar="A",
        help="the error rate of the whole run, spent across its gates (default 0.05)",
    )
    p.add_argument("--alpha", type=float, dest="old_alpha", help=argparse.SUPPRESS)
    p.add_argument(
        "--gate-metric",
        choices=("hard", "soft", "mixed"),
        help="what validation and the gate score: passes, partial credit, or both (default hard)",
    )
    p.add_argument(
        "--gate-mixed-weight", type=float, metavar="W", help="mixed: (1-W)*hard + W*soft"
    )
    p.add_argument(
        "--failure-only", action="store_true", default=None, help="show analysts failures only"
    )
    p.add_argument(
        "--frame",
        choices=("env", "none", "agent"),
        help="a rollout's system prompt: the environment's framing of the skill (default), the "
        "skill alone, or a night's coding-agent framing",
    )
    p.add_argument(
        "--minibatch", "--minibatch-size", type=int, metavar="N", help="cases per analyst call"
    )
    p.add_argument(
        "--extras", metavar="JSON", help="a JSON object for the environment and prompt templates"
    )


def _config(args: argparse.Namespace, settings: Settings, ctx: Ctx) -> TrainConfig:
    """The run's configuration: the ``[train]`` settings (``--rigor`` among their layers), then the
    flags given."""
    from ..train import TrainConfig

    if args.old_alpha is not None:
        raise UsageError(
            "--alpha is named --run-alpha now (the error rate of the whole run)",
            hint=f"skillopt-sleep train ... --run-alpha {args.old_alpha:g}",
        )
    if args.old_gate not in (None, "evidence"):
        raise UsageError(
            f"--gate {args.old_gate} is no longer a choice: a run has one gate, the evidence gate",
            hint="remove --gate (the older gates are compared in the benchmarks: bench/train.py)",
        )
    if args.old_steps is not None:
        ctx.err.write("skillopt-sleep: warning: --steps is named --steps-per-epoch now\n")
        args.steps_per_epoch = args.steps_per_epoch or args.old_steps
    given: dict[str, Any] = {**settings.train.model_dump(), **getattr(args, "recorded", {})}
    given.update({name: getattr(args, name) for name in FLAGS if getattr(args, name) is not None})
    if args.extras is not None:
        given["extras"] = _extras(args.extras)
    given.update(
        backend=args.backend or "",
        model=args.model or "",
        optimizer_model=args.optimizer_model or "",
        concurrency=settings.night.concurrency,
    )
    try:
        return TrainConfig(**given)
    except ValueError as exc:
        first = exc.errors()[0] if hasattr(exc, "errors") else {"loc": ("",), "msg": str(exc)}
        name = "--" + str(first["loc"][0]).replace("_", "-")
        raise UsageError(
            f"{name}: {str(first['msg']).removeprefix('Value error, ')}",
            hint="see `skillopt-sleep train --help`",
        ) from None


def _extras(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"--extras is not JSON: {exc.msg}",
            hint='give an object, e.g. --extras \'{"lang": "fr"}\'',
        ) from None


def _own_env(args: argparse.Namespace) -> bool:
    """Whether ``--env`` names a module:Class environment (which may bring its items and skill);
    a UsageError when DATA, --skill or --out is missing."""
    if args.dir is not None:
        raise UsageError(f"unexpected argument {args.dir!r}", hint="train takes one DATA path")
    own = ":" in (args.env or "")
    if args.env and not own:
        from ..envs.registry import SHIPPED, unknown_env

        if args.env not in SHIPPED:  # a bad flag value, as a bad --mode is (exit 2)
            bad = unknown_env(args.env)
            raise UsageError(bad.message, hint=bad.hint)
    if not args.out or not (args.skill or args.skill_text is not None or own):
        raise UsageError(
            "train needs --skill FILE and --out DIR",
            hint="skillopt-sleep train DATA --skill FILE --out DIR (--skill may be left out with "
            "an --env module:Class that has its own initial skill)",
        )
    if not (args.data or own):
        raise UsageError(
            "train needs DATA, the task set",
            hint="skillopt-sleep train DATA --skill FILE --out DIR (DATA may be left out with an "
            "--env module:Class that has its own items)",
        )
    return own


def train_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..backends.retry import RetryPolicy
    from ..envs.registry import load_env
    from ..night.project import batched_backends, build_backends
    from ..optimize.prompts import user_prompts
    from ..train.api import initial_skill, task_set

    if args.data == "stage":
        from .train_stage import stage_cmd

        return stage_cmd(args, ctx)
    if args.resume:
        from .train_resume import resume_args

        args.recorded = resume_args(args, ctx, FLAGS)
    own = _own_env(args)
    flags = backend_flags(args)
    flags["roles.optimizer.model"] = args.optimizer_model or args.model
    flags["train.rigor"] = args.rigor
    settings = ctx.settings(ctx.project(None), flags).settings
    config = _config(args, settings, ctx)
    env = load_env(config.env, extras=config.extras) if own else None
    data = task_set(ctx.cwd / args.data if args.data else None, config, env)
    skill_path = ctx.cwd / args.skill if args.skill else None
    backends = build_backends(settings, ctx.env)
    if args.estimate:
        skill = initial_skill(skill_path, args.skill_text, env, config.mode)
        return _estimate(ctx, config, data, skill, settings, backends)
    if settings.night.batch:
        backends = batched_backends(backends, ctx.store, settings.night.batch_poll_s)
    from ..train.api import train

    result = train(
        data,
        skill_path,
        ctx.cwd / args.out,
        target=backends.target,
        optimizer=backends.optimizer,
        judge=backends.judge,
        config=config,
        env=env,
        prompts_dir=ctx.cwd / args.prompts
        if args.prompts
        else user_prompts(settings.night.prompts),
        budget=settings.budget,
        retry=RetryPolicy(max_retries=settings.roles.target.max_retries),
        clock=ctx.clock,
        progress=ctx.say,
        agents=_agents(config, data, settings, ctx, backends.target.name)
        if config.env == "agent"
        else None,
        skill_text=args.skill_text,
    )
    s = result.summary
    ctx.emit(s, summary_text(s, args.out))
    code = _STOPPED.get(s.stopped_by, 0)
    if code:
        ctx.err.write(f"skillopt-sleep: error: {printable(_stop_line(s))}\n")
    return code


# A run stopped short exits as a night stopped by the same thing does (so a script or cron
# wrapper can tell), with the reason on stderr; its run directory resumes where it stopped.
_STOPPED = {"outage": BackendError.exit_code, "budget": BudgetExhausted.exit_code}
_RESUME = "run the same command again to resume"


def _stop_line(s: TrainSummary) -> str:
    """Why the run stopped and how it resumes: a budget stop says itself which limit to raise
    (the same budget again would stop at once), an outage resumes as it is."""
    return s.stopped if s.stopped_by == "budget" else f"{s.stopped}; {_RESUME}"


def _agents(
    config: TrainConfig, data: TaskSet, settings: Settings, ctx: Ctx, backend: str
) -> AgentReplays:
    """The agents that replay a run's items under ``--env agent`` (an item of no agent's by the
    first one here), on ``backend``'s model where they run it; an error naming the fix if none."""
    from ..agent_replay import AGENTS, replay_models
    from ..rollouts.agent_dispatch import agent_replays

    replays = agent_replays(
        "agent",
        ctx.env,
        timeout_s=settings.night.agent_timeout_s,
        max_turns=settings.night.agent_max_turns,
        models=replay_models(backend, settings.roles.target.model),
    )
    first = [*data.train, *data.val, *data.test][0]
    for agent in AGENTS:
        if replays.setup_for(first.model_copy(update={"source": agent})) is not None:
            replays.default = agent
            return replays
    raise ConfigError(
        "--env agent: no agent can be replayed here: " + "; ".join(replays.notes),
        hint="install claude or codex and bubblewrap, or train with --env task-record",
    )


def _estimate(
    ctx: Ctx, config: TrainConfig, data: TaskSet, skill: str, settings: Settings, backends: Backends
) -> int:
    """``train --estimate``: what the run would spend, printed; nothing is called."""
    from ..rollouts.agent_dispatch import rollout_tokens
    from ..train.estimate import estimate_train

    est = estimate_train(
        config,
        data,
        skill,
        settings.budget,
        target_model=backends.target.model,
        optimizer_model=backends.optimizer.model,
        # an agent rollout spends what the last nights' did (any project), or a flat prior
        agent_tokens=(
            rollout_tokens([n.summary for n in ctx.store.nights(limit=5)])
            if config.env == "agent"
            else None
        ),
    )
    cost = "unknown" if est.cost_usd is None else f"${est.cost_usd:.4f}"
    fits = (
        "within the budget"
        if est.within_budget
        else "over the budget: the run may stop early, cleanly, and resume when run again with more"
    )
    ctx.emit(
        est.__dict__,
        f"estimate: about {est.calls} calls ({est.target_calls} replays, "
        f"{est.optimizer_calls} optimizer), ~{est.input_tokens + est.output_tokens} tokens, {cost}; {fits}"
        + (f"\n{est.note}" if est.note else ""),
    )
    return 0


def summary_text(s: TrainSummary, run_dir: str) -> str:
    def num(v: float | None) -> str:
        return "n/a" if v is None else f"{v:.2f}"

    head = (
        f"trained {plural(s.steps, 'step')} and {plural(s.slow_updates, 'slow update')}: "
        f"{plural(len(s.accepted_edits), 'edit')} accepted, "
        f"{s.refused} refused (error rate {s.alpha:g}, {s.alpha_spent:.3g} spent)"
    )
    lines = [head]
    if s.stopped:
        lines.append(f"stopped early: {_stop_line(s)}")
    else:
        g = s.gain_hard
        ci = (
            f" (gain {g.mean:+.2f}, 95% CI {g.ci_low:+.2f} to {g.ci_high:+.2f}, p = {g.p_value:.3g})"
            if g
            else ""
        )
        lines.append(
            f"test pass rate: initial {num(s.baseline.test_hard)}, best {num(s.best.test_hard)}{ci}; "
            f"best: {s.best_at()}"
        )
    if s.stopped:  # unfinished: nothing to stage until it is resumed to its end
        where = (
            "its finished steps are kept there"
            if s.steps or s.slow_updates
            else "no step finished yet"
        )
        lines.append(f"run directory: {run_dir} ({where})")
    elif not s.accepted_edits:
        lines.append(f"run directory: {run_dir} (no edit accepted: nothing to stage)")
    else:
        lines.append(
            f"run directory: {run_dir} (best skill: best.md; stage it with "
            f"`skillopt-sleep train stage {run_dir} --project DIR`)"
        )
    return "\n".join(lines)
