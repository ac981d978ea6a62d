"""The ``codex`` backend: ``codex exec --json --ephemeral``, for a ChatGPT/Codex subscription.

A replay runs the user's ``codex`` as a plain model call that leaves no trace in their history
and sees only the instructions under test::

    codex exec --json --ephemeral --skip-git-repo-check -s read-only -C <empty dir>
        -c model_instructions_file="<file holding the skill + memory under test>"
        [-m MODEL] -- "<prompt>"          (stdin closed)

``--ephemeral`` writes no rollout file under ``sessions/`` and no row in ``state_5.sqlite``
(nothing for the harvester); ``model_instructions_file`` replaces Codex's base prompt; the final
answer is the last ``agent_message`` item and the usage comes from ``turn.completed.usage``.

No codex 0.169 flag keeps ``$CODEX_HOME/AGENTS.md`` out of the prompt, so every call runs with
``CODEX_HOME`` pointing at a private directory holding only:

* ``auth.json``: a symbolic link to the user's (their login), so no copy of the credential is
  made; only where links cannot be made is it copied, owner-only. When Codex refreshes the login
  (writing a file of its own in place of the link), the refreshed file is written back to the
  user's home (only if theirs did not change meanwhile), so a refresh never leaves the user's
  own login stale. The directory is removed when the backend is closed, at exit, on a signal
  (the CLI turns SIGTERM into an interrupt), and, after a kill that left no chance, by the next
  run (:func:`sweep_private_homes`: each directory names its owner's pid);
* a ``config.toml`` with the user's ``model``, ``model_provider`` and that provider's table (and
  ``openai_base_url``), plus ``project_doc_max_bytes = 0`` (no AGENTS.md from the working tree),
  ``skills.include_instructions = false`` and ``skills.bundled.enabled = false`` (no skill list:
  ``~/.agents/skills`` is still on disk but never shown). Nothing else of theirs: no hooks, no
  MCP servers, no plugins, no profiles.

``base_url`` defines a provider ``skillopt`` (Responses wire API) at that URL, keyed by the
variable ``api_key_env`` names (no key when unset: a local server). Providers we define get
``request_max_retries = 0`` so retries happen in :mod:`~skillopt_sleep.backends.retry`.

Verified with codex 0.169.0 against a loopback Responses server, with a Codex home holding an
AGENTS.md and a skill, ``~/.agents/skills`` and a project AGENTS.md: without this, the request
carried all of them and the home got a rollout; with it, the request held only the given
instructions and no file appeared under ``sessions/`` (``tests/backends/test_real_clis.py``).
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import AuthError, BackendError, MalformedOutput
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
from .codex_home import (
    OWNER_FILE,
    PRIVATE_PREFIX,
    PrivateHome,
    codex_home,
    replay_config,
    sweep_private_homes,
    user_config,
)
from .runner import Runner, SubprocessRunner, run_sync

INSTALL = "npm install -g @openai/codex"
LOGIN_FIX = "run `codex login` (or set the key the configured provider needs)"
EXEC_FLAGS = ("exec", "--json", "--ephemeral", "--skip-git-repo-check", "-s", "read-only")


class CodexBackend:
    """Codex in exec mode, as a plain model: read-only sandbox, no history, no user context."""

    name = "codex"

    def __init__(
        self,
        binary: str,
        env: Mapping[str, str],
        config: Mapping[str, Any],
        *,
        runner: Runner | None = None,
        timeout_s: float = 300.0,
    ) -> None:
        self.binary = binary
        self.env = env
        self.config = dict(config)
        self.model = str(config.get("model") or "codex-default")
        self.runner = runner or SubprocessRunner()
        self.timeout_s = timeout_s
        self._home: PrivateHome | None = None

    @classmethod
    def from_settings(
        cls, role: RoleSettings, env: Mapping[str, str], *, runner: Runner | None = None
    ) -> CodexBackend:
        binary = require_binary("codex", env, INSTALL)
        if role.api_key_env and not env.get(role.api_key_env, "").strip():
            raise AuthError(f"{role.api_key_env} is not set", hint=f"export {role.api_key_env}=...")
        config = replay_config(user_config(codex_home(env)), role)
        return cls(binary, env, config, runner=runner, timeout_s=role.timeout_s)

    @classmethod
    def usable(
        cls, env: Mapping[str, str], which: Which | None = None, *, runner: Runner | None = None
    ) -> bool:
        """``codex`` is on PATH and logged in, or its config names a provider whose key is set.

        Codex keeps both its login and its config in its home: with no home it is neither, and
        ``codex login status`` would create one (``~/.codex/tmp``, ``skills/.system``), so it
        is not asked."""
        binary = find_binary("codex", env, which)
        if binary is None or not codex_home(env).is_dir():
            return False
        status = run_sync(runner or SubprocessRunner(), [binary, "login", "status"], env=env)
        return status.returncode == 0 or _provider_ready(user_config(codex_home(env)), env)

    @property
    def home(self) -> PrivateHome:
        if self._home is None:
            self._home = PrivateHome(codex_home(self.env), self.config)
        return self._home

    def close(self) -> None:
        """Remove the private home (and with it any refreshed login it holds)."""
        if self._home is not None:
            self._home.remove()
            self._home = None

    async def login(self) -> None:
        """:class:`AuthError` in about a second when codex is not logged in and no configured
        provider has its key: before the first replay, not after a night of timeouts."""
        status = await run_cli(
            self.runner,
            [self.binary, "login", "status"],
            env=self.env,
            cwd=None,
            stdin=None,
            timeout=30,
            name="codex",
            install=INSTALL,
        )
        if status.returncode != 0 and not _provider_ready(self.config, self.env):
            raise AuthError("codex is not logged in", hint=LOGIN_FIX)

    async def complete(self, request: Request) -> Completion:
        home = self.home
        with tempfile.TemporaryDirectory(prefix="skillopt-replay-") as work:
            instructions = Path(work, ".instructions.md")
            instructions.write_text(
                request.system or "You are a helpful assistant.", encoding="utf-8"
            )
            argv = [
                self.binary,
                *EXEC_FLAGS,
                "-C",
                work,
                "-c",
                f"model_instructions_file={json.dumps(str(instructions))}",
                "--",
                render_prompt(request),
            ]
            try:
                done = await run_cli(
                    self.runner,
                    argv,
                    env=child_env(self.env, {"CODEX_HOME": str(home.path)}),
                    cwd=work,
                    stdin=None,
                    timeout=self.timeout_s,
                    name="codex",
                    install=INSTALL,
                )
            finally:
                home.sync_back()
        return self._parse(done.stdout, done.returncode, done.stderr)

    def _parse(self, stdout: str, returncode: int, stderr: str) -> Completion:
        text: str | None = None
        usage: dict[str, Any] | None = None
        for event in _events(stdout):
            kind = event.get("type")
            item = event.get("item") or {}
            if kind == "item.completed" and item.get("type") == "agent_message":
                text = str(item.get("text") or "")
            elif kind == "turn.completed":
                usage = event.get("usage") or {}
            elif kind == "turn.failed":
                raise classify(
                    str((event.get("error") or {}).get("message") or "turn failed"),
                    model=self.model,
                )
        if text is None or usage is None:
            if returncode != 0:
                raise classify(tail(stderr) or f"exit code {returncode}", model=self.model)
            raise MalformedOutput(f"codex printed no final message: {tail(stdout, 160)}")
        return Completion(
            text=text,
            input_tokens=int(usage.get("input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
            model=self.model,
        )

    async def check(self) -> Health:
        """Version, login state, and one tiny authenticated replay."""
        try:
            version = await run_cli(
                self.runner,
                [self.binary, "--version"],
                env=self.env,
                cwd=None,
                stdin=None,
                timeout=30,
                name="codex",
                install=INSTALL,
            )
            status = await run_cli(
                self.runner,
                [self.binary, "login", "status"],
                env=self.env,
                cwd=None,
                stdin=None,
                timeout=30,
                name="codex",
                install=INSTALL,
            )
        except BackendError as exc:
            return Health(False, exc.message, fix=exc.hint or "")
        ver = version.stdout.strip().split(" ")[-1]
        if status.returncode != 0 and not _provider_ready(self.config, self.env):
            return Health(False, "codex is not logged in", fix=LOGIN_FIX, version=ver)
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
        return Health(True, f"codex {ver}, model {self.model}, a replay answered", version=ver)


def _events(stdout: str) -> list[dict[str, Any]]:
    out = []
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            out.append(event)
    return out


def _provider_ready(config: Mapping[str, Any], env: Mapping[str, str]) -> bool:
    """A non-OpenAI provider is configured and its ``env_key`` (if any) is set."""
    provider = config.get("model_provider")
    table = (config.get("model_providers") or {}).get(provider) if provider else None
    if not isinstance(table, dict):
        return False
    key = table.get("env_key")
    return not key or bool(env.get(str(key), "").strip())


_STATUS = re.compile(r"(?:unexpected status|last status:?)\s*(\d{3})", re.IGNORECASE)


def classify(message: str, *, model: str) -> BackendError:
    """The error for a failed ``codex exec`` turn, from its message."""
    low = message.lower()
    missing = re.search(
        r"missing environment variable:?\s*`?([A-Za-z_][A-Za-z0-9_]*)", message, re.IGNORECASE
    )
    if missing:
        return AuthError(
            f"{missing.group(1)} is not set (codex needs it)", hint=f"export {missing.group(1)}=..."
        )
    found = _STATUS.search(message)
    code = int(found.group(1)) if found else None
    return cli_error(
        "codex",
        code,
        message,
        auth="not logged in" in low or "please log in" in low,
        model="model metadata" in low,
        login_fix=LOGIN_FIX,
        model_hint="pass --model with a model your Codex provider serves",
        model_name=model,
    )


__all__ = [
    "OWNER_FILE",
    "PRIVATE_PREFIX",
    "CodexBackend",
    "PrivateHome",
    "classify",
    "codex_home",
    "replay_config",
    "sweep_private_homes",
    "user_config",
]
