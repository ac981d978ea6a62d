"""``skillopt_sleep.train``: train a skill over a task set, as a library call.

::

    from skillopt_sleep import train, TrainConfig
    from skillopt_sleep.backends.simulated import SimulatedBackend

    result = train("tasks.jsonl", "SKILL.md", "runs/one", target=SimulatedBackend(),
                   config=TrainConfig(epochs=2, steps_per_epoch=3, seed=1))
    print(result.summary.best.test_hard, result.summary.gain_hard)
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Callable
from pathlib import Path

from ..backends.base import Backend
from ..backends.budget import Budget
from ..backends.retry import CircuitBreaker, RetryPolicy
from ..checks.judge import RubricJudge
from ..clock import Clock, SystemClock
from ..envs.base import Environment
from ..envs.extras import configure
from ..envs.registry import load_env
from ..envs.task_record import TaskRecordEnv
from ..errors import ConfigError, InputError
from ..night.pipeline import rubric_from_backend
from ..optimize.optimizer import Optimizer
from ..optimize.prompts import Prompts, load_prompts
from ..rollouts.agent_dispatch import AgentReplays
from ..rollouts.replay import Calls, Replayer
from ..settings import BudgetSettings
from ..store import sha256_text
from .budget_stop import resume_hint
from .config import TrainConfig, TrainResult, TrainSummary
from .data import TaskSet, load_task_set
from .framing import system_for
from .loop import Trainer
from .rundir import RunDir, RunState
from .step_gate import StepGate


def read_skill(path: Path, mode: str = "rules") -> str:
    """The skill file's text (frontmatter optional: a skill is trained as the model sees it)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(
            f"no such skill file: {path}", hint="give the SKILL.md (or prompt) to train"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path}: {exc}", hint="save it as UTF-8 text") from None
    return text


def task_set(data: str | Path | TaskSet | None, config: TrainConfig, env: object) -> TaskSet:
    """The run's items: ``data`` (a path or a :class:`TaskSet`), else the environment's own (a
    skillrl ``SkillEnv``'s or a SkillOpt ``EnvAdapter``'s). An environment that scores the items
    itself takes items without checks."""
    if isinstance(data, TaskSet):
        return data
    splits = getattr(env, "splits", None)
    if data is not None:
        path = Path(data)
        return load_task_set(
            path, split_ratio=config.split_ratio, seed=config.seed, need_checks=splits is None
        )
    if splits is None:
        raise InputError(
            "no task set to train on",
            hint="give DATA (a .jsonl task set), or an environment with its own items "
            "(--env module:Class naming a SkillEnv or an EnvAdapter)",
        )
    return TaskSet(*splits(config.seed))


def env_skill(env: object, mode: str) -> str:
    """The environment's own initial skill (``get_initial_skill``), for a run given no skill."""
    get = getattr(env, "initial_skill", None)
    text = get() if callable(get) else None
    if not isinstance(text, str):
        raise InputError(
            "no skill to train",
            hint="give --skill FILE or --skill-text TEXT, or an environment with "
            "get_initial_skill()",
        )
    return text


def initial_skill(skill: str | Path | None, skill_text: str | None, env: object, mode: str) -> str:
    """The skill a run starts from: a file, a text, or the environment's own."""
    if skill is not None and skill_text is not None:
        raise InputError(
            "the skill is given twice (a file and a text)",
            hint="give --skill FILE or --skill-text TEXT, not both",
        )
    if skill_text is not None:
        return skill_text
    return env_skill(env, mode) if skill is None else read_skill(Path(skill), mode)


def _env(spec: str, rubric: RubricJudge | None, agents: AgentReplays | None) -> Environment:
    """The environment of ``spec``: for ``agent``, text for the items ``agents`` leaves out."""
    if spec != "agent":
        return load_env(spec, rubric)
    if agents is None:
        raise ConfigError(
            "the agent environment needs the agents to replay with",
            hint="pass agents=agent_replays('agent', os.environ), or run `skillopt-sleep train "
            "--env agent`",
        )
    return TaskRecordEnv(rubric)


def _given_env(config: TrainConfig, env: Environment | None) -> Environment | None:
    """The environment given, or named as ``module:Class`` (made once: a seed's environment
    holds its items), handed the run's extras before it is asked for its items."""
    if env is None and ":" in config.env:
        return load_env(config.env, extras=config.extras)
    if env is not None:
        configure(env, config.extras)
    return env


def _prompts(folder: str | Path | None, config: TrainConfig, env: object = None) -> Prompts:
    """The optimizer's prompts (``folder``'s in place of the shipped ones; else a SkillOpt
    adapter's own analyst prompts, where it has some), the run's extras written into their
    templates."""
    prompts = load_prompts(Path(folder) if folder is not None else None)
    own = getattr(env, "analyst_prompts", None)
    texts, sources = dict(prompts.texts), dict(prompts.sources)
    shipped = set(load_prompts().texts.values())  # an adapter's default is one of these
    for name, (text, source) in (own() if callable(own) else {}).items():
        if sources.get(name) == "package" and text not in shipped:
            texts[name], sources[name] = text, source
    return Prompts(texts, sources).with_extras(config.extras)


def _identity(tasks: TaskSet, skill: str) -> dict[str, object]:
    """What a resumed run must be given again: the items of each split and the skill's hash."""
    return {
        "train": [t.id for t in tasks.train],
        "val": [t.id for t in tasks.val],
        "test": [t.id for t in tasks.test],
        "skill_sha256": sha256_text(skill),
    }


def _source(data: str | Path | TaskSet | None, prompts: str | Path | None) -> dict[str, str | None]:
    """Where a run's task set and prompts were read from (a task set given as items: None)."""
    where = {"data": data.source if isinstance(data, TaskSet) else data, "prompts": prompts}
    return {
        k: str(Path(v).resolve()) if isinstance(v, str | Path) else None for k, v in where.items()
    }


def _replayer(
    config: TrainConfig,
    target: Backend,
    judge: Backend | RubricJudge | None,
    calls: Calls,
    env: Environment | None,
    clock: Clock | None,
    agents: AgentReplays | None = None,
) -> Replayer:
    """The run's replayer: the target through the run's calls, scored by ``judge`` (or the target);
    the items ``agents`` chooses replayed by the real agent."""
    judge = judge if judge is not None else target
    rubric = rubric_from_backend(judge, calls) if isinstance(judge, Backend) else judge
    env = env if env is not None else _env(config.env, rubric, agents)
    return Replayer(
        target,
        calls,
        k=config.k,
        concurrency=config.concurrency,
        rubric=rubric,
        store=None,
        clock=clock or SystemClock(),
        max_tokens=config.max_tokens,
        env=env,
        agents=agents,
        system=system_for(config.frame, env),
    )


def train(
    data: str | Path | TaskSet | None,
    skill: str | Path | None,
    out: str | Path,
    *,
    target: Backend,
    optimizer: Backend | None = None,
    judge: Backend | RubricJudge | None = None,
    config: TrainConfig | None = None,
    env: Environment | None = None,
    prompts_dir: str | Path | None = None,
    budget: BudgetSettings | None = None,
    retry: RetryPolicy | None = None,
    clock: Clock | None = None,
    progress: Callable[[str], None] | None = None,
    agents: AgentReplays | None = None,
    skill_text: str | None = None,
    gate: StepGate | None = None,
) -> TrainResult:
    """Train the skill at ``skill`` over ``data`` (a task-set path or a :class:`TaskSet`), recording
    the run in ``out``; a run already in ``out`` is resumed after its last finished step. No
    ``data`` or ``skill``: the environment's own (a ``SkillEnv``'s or an ``EnvAdapter``'s);
    ``skill_text``: the initial skill given as text (``skill`` left None).

    ``target`` replays the items, ``optimizer`` (default: ``target``) reflects, ``judge`` scores rubric
    checks. ``env`` replaces ``config.env``. ``budget`` bounds the calls, tokens and money of the run;
    ``retry`` says how often a failed call is tried again. ``agents`` replays the items it
    chooses with the real agent (the ``agent`` environment: ``config.env = "agent"`` needs it).
    ``gate``: None, the evidence gate; a benchmark passes the gate it compares with."""
    config = config or TrainConfig()
    env = _given_env(config, env)
    tasks = task_set(data, config, env)
    text = initial_skill(skill, skill_text, env, config.mode)
    prompts = _prompts(prompts_dir, config, env)
    run = RunDir(Path(out))
    made = not run.path.exists()
    budget_ = _budget(budget, run)
    calls = Calls(budget_, retry or RetryPolicy(), random.Random(config.seed))
    calls.breaker = CircuitBreaker(span="", then="")  # a run resumes when started again: no night
    replayer = _replayer(config, target, judge, calls, env, clock, agents)  # a bad env: no run dir
    run.start(config, prompts.record(), _identity(tasks, text), _source(data, prompts_dir))
    opt = _optimizer(optimizer or target, calls, config)
    trainer = Trainer(config, tasks, text, replayer=replayer, optimizer=opt, budget=budget_,
                      prompts=prompts, run=run, progress=progress, gate=gate)  # fmt: skip
    st, summary = _train(trainer, run, made)
    if summary.stopped_by == "budget":  # the same budget again would stop at once: say how much
        models = (target.model, (optimizer or target).model)
        hint = resume_hint(config, tasks, text, run.state(), budget_, models)
        summary.stopped = f"{_RAISE.sub('', summary.stopped)}; {hint}"
    return TrainResult(
        summary=summary,
        initial_skill=text,
        best_skill=st.best,
        current_skill=st.current,
        run_dir=str(run.path),
        history=st.history,
        evidence=st.evidence,
    )


_RAISE = re.compile(r"\s*\(raise budget\.\w+\)$")


def _optimizer(backend: Backend, calls: Calls, config: TrainConfig) -> Optimizer:
    """The optimizer through the run's calls, at most ``concurrency`` of its calls at once."""
    return Optimizer(backend, calls, config.optimizer_max_tokens, config.concurrency)


def _budget(settings: BudgetSettings | None, run: RunDir) -> Budget:
    """The run's budget, with what a resumed run spent already counted."""
    state = run.state() if run.has_run() else None
    return Budget(settings or BudgetSettings(), by_role=dict(state.usage_by_role) if state else {})


def _train(trainer: Trainer, run: RunDir, made: bool) -> tuple[RunState, TrainSummary]:
    """The run, to its end or its stop; a run directory this call made is removed when the run
    fails before its first step (a rejected key, ...), so the fixed command starts anew."""
    try:
        return asyncio.run(trainer.train())
    except BaseException:
        if made:
            run.discard()
        raise
