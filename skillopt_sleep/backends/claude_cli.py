"""The ``claude-code`` backend: ``claude -p --output-format json``, for a Claude subscription.

A replay runs the user's own ``claude`` (their login, their subscription) as a plain model call
that leaves no trace in their history and sees nothing but the instructions under test. Each
call runs in a fresh empty working directory, with the prompt on stdin and::

    claude -p --output-format json
        --no-session-persistence     no transcript under ~/.claude/projects (nothing to harvest)
        --setting-sources ""         no user/project/local settings: no hooks fire (so no
                                     SessionEnd logger), no CLAUDE.md (user or project), no
                                     user skills, no enabled plugins
        --strict-mcp-config          no MCP servers from ~/.claude.json are started
        --tools ""                   no tools: a replay answers, it does not act
        --disable-slash-commands     no skills as commands
        --system-prompt-file FILE    the skill + memory under test replace Claude Code's prompt
        [--model M]

and the environment ``SKILLOPT_SLEEP_REPLAY=1`` (``markers.REPLAY_ENV``: the hook logger and the
harvester skip such sessions), ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`` (no side request
for a session title), ``DISABLE_AUTOUPDATER=1``, ``CLAUDE_CODE_MAX_RETRIES=0`` (retries happen
in :mod:`~skillopt_sleep.backends.retry`, under the budget) and
``CLAUDE_CODE_MAX_OUTPUT_TOKENS`` (the request's ``max_tokens``). The prompt starts with
``markers.REPLAY_MARKER``, which also keeps a task that starts with ``/`` from being run as a
built-in slash command (``--disable-slash-commands`` does not cover those).

Verified with claude 2.1.197 against a loopback Messages server, with a user home holding a
CLAUDE.md, a skill, a SessionEnd hook and a project CLAUDE.md: without the flags the request
carried all three texts, the hook fired and ``projects/<cwd>/<id>.jsonl`` was written; with them
the request held only the given system prompt and no tools, the hook did not fire, and no file
under the home changed (``tests/backends/test_real_clis.py`` repeats this).

The user's ``~/.claude`` is used as it is, not copied: a copied OAuth login could refresh its
token in the copy and leave the user's own login stale, and on macOS the login is in the
keychain. Settings-based auth (``apiKeyHelper`` in settings.json) is not loaded because of
``--setting-sources ""``; such users set ``ANTHROPIC_API_KEY`` (or ``api_key_env``) instead.
``base_url`` becomes ``ANTHROPIC_BASE_URL`` (a gateway or proxy), ``api_key_env`` names the
variable copied into ``ANTHROPIC_API_KEY``. The cost is Claude's own ``total_cost_usd``.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import AuthError, BackendError, MalformedOutput, TransientError
from ..settings import RoleSettings
from .agent_cli import (
    Which,
    child_env,
    cli_error,
    find_binary,
    render_prompt,
    require_binary,
    run_cli,
    tail,
)
from .base import Completion, Health, Message, Request
from .runner import Runner, SubprocessRunner, run_sync

INSTALL = "npm install -g @anthropic-ai/claude-code"
LOGIN_FIX = "run `claude` once and log in, or set ANTHROPIC_API_KEY"
REPLAY_FLAGS = (
    "-p",
    "--output-format",
    "json",
    "--no-session-persistence",
    "--setting-sources",
    "",
    "--strict-mcp-config",
    "--tools",
    "",
    "--disable-slash-commands",
)
QUIET_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_MAX_RETRIES": "0",
}
# Set when the night itself runs inside a Claude Code session; the replay is not a child of it.
PARENT_SESSION_ENV = (
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDE_CODE_CHILD_SESSION",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_ENV_FILE",
)


class ClaudeCodeBackend:
    """Claude Code in print mode, as a plain model: no tools, no history, no user context."""

    name = "claude-code"

    def __init__(
        self,
        binary: str,
        env: Mapping[str, str],
        *,
        model: str | None = None,
        runner: Runner | None = None,
        timeout_s: float = 300.0,
    ) -> None:
        self.binary = binary
        self.model = model or "claude-code-default"
        self._model_flag = model
        self.env = env
        self.runner = runner or SubprocessRunner()
        self.timeout_s = timeout_s

    @classmethod
    def from_settings(
        cls, role: RoleSettings, env: Mapping[str, str], *, runner: Runner | None = None
    ) -> ClaudeCodeBackend:
        binary = require_binary("claude", env, INSTALL)
        extra: dict[str, str] = {}
        if role.base_url:
            extra["ANTHROPIC_BASE_URL"] = role.base_url
        if role.api_key_env:
            key = env.get(role.api_key_env, "").strip()
            if not key:
                raise AuthError(
                    f"{role.api_key_env} is not set", hint=f"export {role.api_key_env}=..."
                )
            extra["ANTHROPIC_API_KEY"] = key
        return cls(
            binary, {**env, **extra}, model=role.model, runner=runner, timeout_s=role.timeout_s
        )

    @classmethod
    def usable(
        cls, env: Mapping[str, str], which: Which | None = None, *, runner: Runner | None = None
    ) -> bool:
        """``claude`` is on PATH and ``claude auth status`` says it is logged in.

        A ``claude`` that never ran here (no ``~/.claude``, no ``~/.claude.json``) and has no
        credentials in the environment is not logged in, and asking would write
        ``~/.claude.json``: it is not asked."""
        binary = find_binary("claude", env, which)
        if binary is None or not _may_be_logged_in(env):
            return False
        status = run_sync(
            runner or SubprocessRunner(), [binary, "auth", "status"], env=child_env(env, QUIET_ENV)
        )
        return status.returncode == 0 and _logged_in(status.stdout)

    async def login(self) -> None:
        """:class:`AuthError` in seconds when claude is not logged in (``claude auth status``),
        before the first replay."""
        env = child_env(self.env, QUIET_ENV, drop=PARENT_SESSION_ENV)
        status = await run_cli(
            self.runner,
            [self.binary, "auth", "status"],
            env=env,
            cwd=None,
            stdin=None,
            timeout=30,
            name="claude",
            install=INSTALL,
        )
        if status.returncode != 0 or not _logged_in(status.stdout):
            raise AuthError("claude is not logged in", hint=LOGIN_FIX)

    def _env(self, request: Request) -> dict[str, str]:
        extra = {**QUIET_ENV, "CLAUDE_CODE_MAX_OUTPUT_TOKENS": str(request.max_tokens)}
        return child_env(self.env, extra, drop=PARENT_SESSION_ENV)

    async def complete(self, request: Request) -> Completion:
        with tempfile.TemporaryDirectory(prefix="skillopt-replay-") as work:
            system_file = Path(work, ".system-prompt.md")
            system_file.write_text(
                request.system or "You are a helpful assistant.", encoding="utf-8"
            )
            argv = [self.binary, *REPLAY_FLAGS, "--system-prompt-file", str(system_file)]
            if self._model_flag:
                argv += ["--model", self._model_flag]
            done = await run_cli(
                self.runner,
                argv,
                env=self._env(request),
                cwd=work,
                stdin=render_prompt(request),
                timeout=self.timeout_s,
                name="claude",
                install=INSTALL,
            )
        result = _result_json(done.stdout)
        if result is None:
            raise _no_result(done.returncode, done.stderr or done.stdout)
        if result.get("is_error") or result.get("subtype") != "success":
            raise self._error(result)
        return self._completion(result)

    def _completion(self, result: dict[str, Any]) -> Completion:
        usage = result.get("usage") or {}
        tokens_in = sum(
            int(usage.get(k) or 0)
            for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        )
        models = [m.split("[")[0] for m in (result.get("modelUsage") or {})]
        cost = result.get("total_cost_usd")
        return Completion(
            text=str(result.get("result") or ""),
            input_tokens=tokens_in,
            output_tokens=int(usage.get("output_tokens") or 0),
            cost_usd=float(cost) if isinstance(cost, (int, float)) else None,
            model=models[0] if models else self.model,
        )

    def _error(self, result: dict[str, Any]) -> BackendError:
        return classify(
            result.get("api_error_status"),
            str(result.get("result") or result.get("subtype")),
            model=self._model_flag or "the default model",
        )

    async def check(self) -> Health:
        """Version, login state, and one tiny authenticated replay."""
        env = child_env(self.env, QUIET_ENV, drop=PARENT_SESSION_ENV)
        try:
            version = await run_cli(
                self.runner,
                [self.binary, "--version"],
                env=env,
                cwd=None,
                stdin=None,
                timeout=30,
                name="claude",
                install=INSTALL,
            )
            status = await run_cli(
                self.runner,
                [self.binary, "auth", "status"],
                env=env,
                cwd=None,
                stdin=None,
                timeout=30,
                name="claude",
                install=INSTALL,
            )
        except BackendError as exc:
            return Health(False, exc.message, fix=exc.hint or "")
        ver = version.stdout.strip().split(" ")[0]
        if status.returncode != 0 or not _logged_in(status.stdout):
            return Health(False, "claude is not logged in", fix=LOGIN_FIX, version=ver)
        method = _auth_method(status.stdout)
        try:
            await self.complete(
                Request(
                    "judge",
                    "Reply with OK.",
                    (Message("user", "ping"),),
                    max_tokens=16,
                    tag="probe",
                )
            )
        except BackendError as exc:
            return Health(False, exc.message, fix=exc.hint or "", version=ver)
        return Health(
            True,
            f"claude {ver}, logged in ({method}), a replay answered",
            version=ver,
            extra={"auth": method},
        )


def classify(status: Any, text: str, *, model: str) -> BackendError:
    """The error for a failed ``claude -p`` result (``api_error_status`` and ``result`` text)."""
    low = text.lower()
    code = status if isinstance(status, int) else None
    if "not logged in" in low or "/login" in low:
        return AuthError("claude is not logged in", hint=LOGIN_FIX)
    return cli_error(
        "claude",
        code,
        text,
        auth="failed to authenticate" in low or "invalid api key" in low,
        model="issue with the selected model" in low,
        login_fix=LOGIN_FIX,
        model_hint="pass --model with a model claude accepts (sonnet, opus, ...)",
        model_name=model,
    )


def _result_json(stdout: str) -> dict[str, Any] | None:
    for line in reversed(stdout.strip().splitlines()):
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and data.get("type") == "result":
            return data
    return None


def _no_result(returncode: int, output: str) -> BackendError:
    low = output.lower()
    if "not logged in" in low or "/login" in low:
        return AuthError("claude is not logged in", hint=LOGIN_FIX)
    if returncode == 0:
        return MalformedOutput(f"claude printed no JSON result: {tail(output, 160)}")
    return TransientError(f"claude exited with {returncode}: {tail(output, 200)}")


def _logged_in(stdout: str) -> bool:
    try:
        return bool(json.loads(stdout).get("loggedIn"))
    except (json.JSONDecodeError, AttributeError):
        return False


def _auth_method(stdout: str) -> str:
    try:
        return str(json.loads(stdout).get("authMethod", "unknown"))
    except (json.JSONDecodeError, AttributeError):
        return "unknown"


# Variables that log claude in (or send it to another provider) without a file in its home.
_AUTH_ENV = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
)


def _may_be_logged_in(env: Mapping[str, str]) -> bool:
    """Claude Code has run here (its config directory or ``.claude.json`` exists) or the
    environment logs it in."""
    if any(env.get(k, "").strip() for k in _AUTH_ENV):
        return True
    home = Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())
    config = Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"
    return config.is_dir() or (home / ".claude.json").is_file()
