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
from ..errors import BackendUnavailable, MalformedOutput, TransientError
from ..models import TaskRecord
from ..night.action_judge import Effects
from .agents import Agent, agent_home, api_url, claude_argv, codex_argv
from .events import AgentOutput, claude_output, codex_output
from .forward import endpoint, tunnel
from .sandbox import Sandbox, probe
from .workspace import CopyTooLarge, copy_project, place_files

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


@dataclass(frozen=True)
class AgentResult:
    """A scored rollout: what the agent said and did, what it cost, and the score's verdict."""

    output: AgentOutput
    verdict: object


def prepare(
    agent: Agent,
    env: Mapping[str, str],
    *,
    limits: AgentLimits = AgentLimits(),
    model: str | None = None,
    runner: Runner | None = None,
) -> AgentSetup | str:
    """An :class:`AgentSetup`, or a one-line reason why this agent cannot be replayed here."""
    name = "claude" if agent == "claude-code" else "codex"
    binary = shutil.which(name, path=env.get("PATH"))
    if binary is None:
        return f"{name} is not installed, so tasks with action checks are replayed as text"
    sandbox = probe(env, [binary, str(Path(binary).resolve()), sys.executable, str(INNER_PROXY)])
    if isinstance(sandbox, str):
        return f"agent replay refused: {sandbox}"
    return AgentSetup(agent, binary, env, sandbox, limits, model, runner or SubprocessRunner())


def _prompt(task: TaskRecord) -> str:
    return f"{task.context}\n\n{task.intent}".strip() if task.context else task.intent


def _argv(setup: AgentSetup, prompt: str, copy: Path) -> list[str]:
    if setup.agent == "claude-code":
        return claude_argv(
            setup.binary, prompt, max_turns=setup.limits.max_turns, model=setup.model
        )
    return codex_argv(setup.binary, prompt, copy=copy, model=setup.model)


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


async def agent_rollout(
    task: TaskRecord, files: Mapping[str, str], sample: int, *, setup: AgentSetup, score: Score
) -> AgentResult:
    """Run the agent on ``task`` under ``files`` in a sandboxed copy of the task's project, score
    the rollout with ``score(text, effects)`` while the copy exists, remove everything.

    An agent that fails, times out or reports an error is a ``TransientError`` / ``MalformedOutput``
    (an errored rollout, no evidence), never a score.
    """
    project = Path(task.project)
    if not project.is_dir():
        raise MalformedOutput(
            f"the project {task.project} is not on this machine; cannot replay the agent"
        )
    root = Path(tempfile.mkdtemp(prefix="skillopt-agent-"))
    try:
        copy, home, sock_dir = (
            root / "work" / (project.name or "project"),
            root / "home",
            root / "sock",
        )
        tmp = root / "tmp"  # the agent's TMPDIR: codex makes no helpers under the system temp dir
        for path in (copy, home, sock_dir, tmp):
            path.mkdir(parents=True)
        try:
            copy_project(project, copy)
            place_files(copy, files)
            env = {**agent_home(setup.agent, home, setup.env), "TMPDIR": str(tmp)}
        except (CopyTooLarge, OSError) as exc:
            raise MalformedOutput(
                f"cannot prepare the copy of {project} for the agent: {exc}"
            ) from exc
        try:
            api = endpoint(api_url(setup.agent, setup.env, home))
        except ValueError as exc:
            raise BackendUnavailable(
                str(exc), hint="set the agent's base URL to http(s)://host[:port]"
            ) from exc
        hosts = None if api.loopback else _hosts(root, api.host)
        inner = [
            sys.executable,
            "-S",
            str(INNER_PROXY),
            str(sock_dir / "api"),
            str(api.port),
            "--",
            *_argv(setup, _prompt(task), copy),
        ]
        argv = setup.sandbox.wrap(
            inner, writable=[copy, home, sock_dir, tmp], chdir=copy, env=env, hosts=hosts
        )
        async with tunnel(sock_dir / "api", api):
            try:
                done = await setup.runner.run(argv, env=env, timeout=setup.limits.timeout_s)
            except TimeoutError as exc:
                raise TransientError(
                    f"the {setup.agent} rollout ran longer than {setup.limits.timeout_s:g}s"
                ) from exc
        parse = claude_output if setup.agent == "claude-code" else codex_output
        output = parse(done.stdout, str(copy))
        if output.error:
            raise MalformedOutput(
                f"{output.error} (exit {done.returncode}): {done.stderr.strip()[-200:]}"
            )
        results = await _checks_after(setup, task, copy, home, env)
        effects = Effects(
            actions=output.actions, tree=copy, run=lambda cmd, _tree: results.get(cmd, 1)
        )
        verdict = await score(output.text, effects)
        return AgentResult(output, verdict)
    finally:
        await asyncio.to_thread(shutil.rmtree, root, True)
