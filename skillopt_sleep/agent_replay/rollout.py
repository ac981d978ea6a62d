"""One agent rollout: the real agent in a sandboxed throwaway copy of the project, scored while
the copy exists, then removed.

The narrow entry is :func:`agent_rollout`; :func:`prepare` checks once a night that the agent CLI
and a sandbox are there (or says in one line why not).
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..backends.runner import Runner, SubprocessRunner
from ..checks.action_judge import Effects
from ..errors import BackendUnavailable, MalformedOutput, TransientError, TurnLimit
from ..models import TaskRecord
from .agents import Agent, replay_agent
from .checkout import build_copy
from .environment import TRUST_FILES
from .events import AgentOutput
from .forward import endpoint, tunnel
from .sandbox import Sandbox, probe
from .spec import Launch
from .workspace import CopyTooLarge, place_files

INNER_PROXY = Path(__file__).with_name("inner_proxy.py")
Score = Callable[[str, Effects], Awaitable[object]]


@dataclass(frozen=True)
class AgentLimits:
    """Bounds of one rollout: wall time, agent turns, and the time of a check run afterwards."""

    timeout_s: float = 600.0
    max_turns: int = 30
    check_timeout_s: float = 300.0


@dataclass(frozen=True)
class AgentSetup:
    """What every agent rollout of a night shares."""

    agent: Agent
    binary: str
    env: Mapping[str, str]
    sandbox: Sandbox
    limits: AgentLimits = AgentLimits()
    model: str | None = None
    runner: Runner = field(default_factory=SubprocessRunner)
    note: str = ""  # a one-line remark for the night's summary ("" when none)


@dataclass(frozen=True)
class AgentResult:
    """A scored rollout: what the agent said and did, what it cost, and the score's verdict."""

    output: AgentOutput
    verdict: object
    copy: str = ""  # what the agent worked in: "commit <hash>" or "working tree"


def prepare(
    agent: Agent,
    env: Mapping[str, str],
    *,
    limits: AgentLimits = AgentLimits(),
    model: str | None = None,
    runner: Runner | None = None,
) -> AgentSetup | str:
    """An :class:`AgentSetup`, or a one-line reason why this agent cannot be replayed here."""
    spec = replay_agent(agent)
    name = spec.binary
    binary = shutil.which(name, path=env.get("PATH"))
    if binary is None:
        return f"{name} is not installed, so tasks with action checks are replayed as text"
    sandbox = probe(
        env, [binary, sys.executable, str(INNER_PROXY)], prefixes=[sys.prefix, sys.base_prefix]
    )
    if isinstance(sandbox, str):
        return f"agent replay refused: {sandbox}"
    login = spec.login(env)
    if login:
        return login
    note = spec.note(env)
    runner = runner or SubprocessRunner()
    return AgentSetup(agent, binary, env, sandbox, limits, model, runner, note)


def _prompt(task: TaskRecord) -> str:
    return f"{task.context}\n\n{task.intent}".strip() if task.context else task.intent


def _hosts(root: Path, host: str) -> Path:
    path = root / "hosts"
    path.write_text(f"127.0.0.1 localhost {host}\n::1 localhost\n", encoding="utf-8")
    return path


async def _checks_after(
    setup: AgentSetup, task: TaskRecord, copy: Path, home: Path, env: Mapping[str, str]
) -> dict[str, int]:
    """Exit status of each ``passes_after`` command, run in the sandbox (no network at all)."""
    out: dict[str, int] = {}
    for check in task.checks:
        if check.kind != "passes_after" or str(check.value) in out:
            continue
        argv = setup.sandbox.wrap(
            ["/bin/sh", "-c", str(check.value)], writable=[copy, home], chdir=copy, env=env
        )
        try:
            done = await setup.runner.run(argv, env=env, timeout=setup.limits.check_timeout_s)
            out[str(check.value)] = done.returncode
        except TimeoutError:
            out[str(check.value)] = 124
    return out


@dataclass(frozen=True)
class _Rig:
    """One rollout's throwaway directories and the agent's environment."""

    root: Path
    copy: Path
    home: Path
    sockets: Path
    env: dict[str, str]
    made: str  # what the copy is: "commit <hash>" or "working tree"


def _rig(
    task: TaskRecord,
    files: Mapping[str, str],
    setup: AgentSetup,
    root: Path,
    skill_at: tuple[str, ...] = (),
) -> _Rig:
    """The copy of the task's project with ``files`` placed (the skill at ``skill_at``), and the
    temporary home."""
    project = Path(task.project)
    copy = root / "work" / (project.name or "project")
    home, sockets = root / "home", root / "sock"
    tmp = root / "tmp"  # the agent's TMPDIR: codex makes no helpers under the system temp dir
    for path in (copy, home, sockets, tmp):
        path.mkdir(parents=True)
    try:
        made = build_copy(project, copy, task.commit)
        place_files(copy, files, setup.agent, skill_at)
        env = {**replay_agent(setup.agent).home(home, setup.env), "TMPDIR": str(tmp)}
    except (CopyTooLarge, OSError) as exc:
        raise MalformedOutput(f"cannot prepare the copy of {project} for the agent: {exc}") from exc
    return _Rig(root, copy, home, sockets, env, made)


def _inner(setup: AgentSetup, task: TaskRecord, rig: _Rig, port: int) -> list[str]:
    """The command the sandbox runs: the inner proxy, then the agent."""
    spec = replay_agent(setup.agent)
    run = Launch(
        setup.binary, _prompt(task), rig.copy, rig.home, setup.limits.max_turns, setup.model
    )
    agent = spec.argv(run)
    # an agent with no turn limit of its own: the inner proxy counts its tool calls
    limit = [str(setup.limits.max_turns)] if spec.count_tools else []
    proxy = [sys.executable, "-S", str(INNER_PROXY), str(rig.sockets / "api"), str(port)]
    return [*proxy, *limit, "--", *agent]


async def _run_agent(setup: AgentSetup, task: TaskRecord, rig: _Rig) -> AgentOutput:
    """Run the agent in the sandbox, its only way out the tunnel to the model API."""
    spec = replay_agent(setup.agent)
    try:
        api = endpoint(spec.api_url(setup.env, rig.home))
    except ValueError as exc:
        raise BackendUnavailable(
            str(exc), hint="set the agent's base URL to http(s)://host[:port]"
        ) from exc
    hosts = None if api.loopback else _hosts(rig.root, api.host)
    writable = [rig.copy, rig.home, rig.sockets, Path(rig.env["TMPDIR"])]
    trusted = [Path(rig.env[k]) for k in TRUST_FILES if Path(rig.env.get(k) or "/-").is_file()]
    trusted += spec.readable(setup.env)
    argv = setup.sandbox.wrap(
        _inner(setup, task, rig, api.port),
        writable=writable,
        chdir=rig.copy,
        env=rig.env,
        hosts=hosts,
        readable=trusted,
        low_port=api.port < 1024,
    )
    async with tunnel(rig.sockets / "api", api):
        try:
            done = await setup.runner.run(argv, env=rig.env, timeout=setup.limits.timeout_s)
        except TimeoutError as exc:
            raise TransientError(
                f"the {setup.agent} rollout ran longer than {setup.limits.timeout_s:g}s"
            ) from exc
    output = spec.parse(done.stdout, str(rig.copy), rig.home)
    if output.turn_limit:
        raise TurnLimit(output.error)
    if output.error:
        raise MalformedOutput(
            f"{output.error} (exit {done.returncode}): {done.stderr.strip()[-200:]}"
        )
    return output


async def agent_rollout(
    task: TaskRecord,
    files: Mapping[str, str],
    sample: int,
    *,
    setup: AgentSetup,
    score: Score,
    skill_at: tuple[str, ...] = (),
) -> AgentResult:
    """Run the agent on ``task`` under ``files`` in a sandboxed copy of the task's project (at the
    commit its session started from, when known; the skill where ``skill_at`` says it lives in
    the project), score the rollout with ``score(text, effects)`` while the copy exists, remove
    everything.

    An agent that fails, times out or reports an error is a ``TransientError`` / ``MalformedOutput``
    (an errored rollout, no evidence), never a score.
    """
    if not Path(task.project).is_dir():
        raise MalformedOutput(
            f"the project {task.project} is not on this machine; cannot replay the agent"
        )
    root = Path(tempfile.mkdtemp(prefix="skillopt-agent-"))
    try:
        rig = _rig(task, files, setup, root, skill_at)
        output = await _run_agent(setup, task, rig)
        results = await _checks_after(setup, task, rig.copy, rig.home, rig.env)
        effects = Effects(
            actions=output.actions, tree=rig.copy, run=lambda cmd, _tree: results.get(cmd, 1)
        )
        verdict = await score(output.text, effects)
        return AgentResult(output, verdict, rig.made)
    finally:
        await asyncio.to_thread(shutil.rmtree, root, True)
