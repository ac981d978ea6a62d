"""What the two agent-CLI backends (``claude-code``, ``codex``) share: finding the binary, the
child environment, the prompt they are given, and the run that turns OS trouble into errors."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence

from ..errors import AuthError, BackendError, BackendUnavailable, BadRequestError, TransientError
from ..markers import REPLAY_ENV, REPLAY_MARKER
from .base import Request
from .http_errors import TRANSIENT_STATUS
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


def child_env(
    env: Mapping[str, str], extra: Mapping[str, str], drop: Sequence[str] = ()
) -> dict[str, str]:
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
        turns = [
            f"{'User' if m.role == 'user' else 'Assistant'}: {m.content}" for m in request.messages
        ]
        body = (
            "The conversation so far:\n\n" + "\n\n".join(turns) + "\n\nAnswer the last user turn."
        )
    return f"{REPLAY_MARKER}\n{body}"


async def run_cli(
    runner: Runner,
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: str | None,
    stdin: str | None,
    timeout: float,
    name: str,
    install: str,
) -> RunResult:
    """Run the CLI; a missing binary and a timeout become backend errors."""
    try:
        return await runner.run(argv, env=env, cwd=cwd, stdin=stdin, timeout=timeout)
    except FileNotFoundError as exc:
        raise BackendUnavailable(
            f"{name} is not installed: cannot run {argv[0]}", hint=install
        ) from exc
    except TimeoutError as exc:
        raise TransientError(
            f"{name} did not finish within {timeout:g}s",
            hint="raise roles.<role>.timeout_s if this keeps happening",
        ) from exc


def tail(text: str, limit: int = 300) -> str:
    """The last non-empty lines of ``text``, on one line, for an error message."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and "WARNING" not in ln]
    return " ".join(lines)[-limit:]


def cli_error(
    name: str,
    code: int | None,
    text: str,
    *,
    auth: bool,
    model: bool,
    login_fix: str,
    model_hint: str,
    model_name: str,
) -> BackendError:
    """The error for a CLI's failed turn: ``code`` is the HTTP status it reported (if any);
    ``auth``/``model`` say whether its own wording already showed a login or model problem."""
    if auth or code in (401, 403):
        return AuthError(f"{name} could not authenticate: {tail(text, 160)}", hint=login_fix)
    if model or code == 404:
        return BadRequestError(
            f"{name} cannot use model {model_name}: {tail(text, 120)}", hint=model_hint
        )
    if code is not None and code not in TRANSIENT_STATUS and 400 <= code < 500:
        return BadRequestError(f"{name}'s request was refused ({code}): {tail(text, 160)}")
    return TransientError(f"{name} failed: {tail(text, 200)}")
