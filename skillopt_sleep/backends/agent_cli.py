"""What the two agent-CLI backends (``claude-code``, ``codex``) share: finding the binary, the
child environment, the prompt they are given, and the run that turns OS trouble into errors."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence

from ..errors import BackendUnavailable, TransientError
from ..markers import REPLAY_ENV, REPLAY_MARKER
from .base import Request
from .runner import Runner, RunResult

Which = Callable[[str], "str | None"]


def find_binary(name: str, env: Mapping[str, str], which: Which | None = None) -> str | None:
    """``name`` on the environment's PATH (or through ``which`` when given)."""
    if which is not None:
        return which(name)
    return shutil.which(name, path=env.get("PATH"))


def require_binary(name: str, env: Mapping[str, str], install: str) -> str:
    """The binary's path, or ``BackendUnavailable`` naming the install command."""
    path = find_binary(name, env)
    if path is None:
        raise BackendUnavailable(f"{name} is not installed: not found on PATH", hint=install)
    return path


def child_env(env: Mapping[str, str], extra: Mapping[str, str], drop: Sequence[str] = ()) -> dict[str, str]:
    """The parent's environment, marked as a replay, with ``extra`` set and ``drop`` removed."""
    out = {k: v for k, v in env.items() if k not in drop}
    out.update(extra)
    out[REPLAY_ENV] = "1"
    return out


def render_prompt(request: Request) -> str:
    """The whole conversation as one prompt, behind the replay marker.

    The marker keeps a task that starts with ``/`` from being taken for a slash command, and
    flags the prompt in any transcript written despite the precautions.
    """
    if len(request.messages) == 1:
        body = request.messages[0].content
    else:
        turns = [f"{'User' if m.role == 'user' else 'Assistant'}: {m.content}" for m in request.messages]
        body = "The conversation so far:\n\n" + "\n\n".join(turns) + "\n\nAnswer the last user turn."
    return f"{REPLAY_MARKER}\n{body}"


async def run_cli(runner: Runner, argv: Sequence[str], *, env: Mapping[str, str], cwd: str | None,
                  stdin: str | None, timeout: float, name: str, install: str) -> RunResult:
    """Run the CLI; a missing binary and a timeout become backend errors."""
    try:
        return await runner.run(argv, env=env, cwd=cwd, stdin=stdin, timeout=timeout)
    except FileNotFoundError as exc:
        raise BackendUnavailable(f"{name} is not installed: cannot run {argv[0]}", hint=install) from exc
    except TimeoutError as exc:
        raise TransientError(f"{name} did not finish within {timeout:g}s",
                             hint="raise roles.<role>.timeout_s if this keeps happening") from exc


def tail(text: str, limit: int = 300) -> str:
    """The last non-empty lines of ``text``, on one line, for an error message."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and "WARNING" not in ln]
    return " ".join(lines)[-limit:]
