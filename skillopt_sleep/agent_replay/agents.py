"""How each agent CLI is run for a replay: its argv, its environment, its temporary home.

Claude Code::

    claude -p PROMPT --output-format stream-json --verbose
        --no-session-persistence       no transcript: nothing for tomorrow's harvest
        --setting-sources project      the copy's CLAUDE.md and skills, never the user's settings
                                       (so none of the user's hooks fire)
        --strict-mcp-config            no MCP servers
        --allowedTools Bash,Read,...   the tools it may use without asking
        --permission-mode acceptEdits
        --max-turns N
        --settings FILE                Claude Code's own sandbox on, hooks off, no web tools
        [--model M]

Codex::

    codex exec --json --ephemeral --skip-git-repo-check -s workspace-write
        -c sandbox_workspace_write.network_access=false -c analytics.enabled=false -C COPY PROMPT
        (its own workspace-write sandbox: writes only in COPY and its temp dirs, no network;
        no metrics export, which in a sandbox without network would hold every exit ~5 s;
        its turn limit is enforced on its ``--json`` events by the inner proxy)

GitHub Copilot CLI: see :mod:`.copilot`. OpenCode: see :mod:`.opencode`.

Each is a :class:`~.spec.ReplayAgent` in :data:`REPLAY`, keyed by the registry's agent name.
Both run with a temporary ``HOME`` (and ``CLAUDE_CONFIG_DIR`` / ``CODEX_HOME`` in it) that holds
only the login they need, copied from the user's: Claude's ``.credentials.json`` when no
``ANTHROPIC_API_KEY`` is set; Codex's ``auth.json`` and its ``config.toml`` without ``notify``,
hooks or MCP servers. The copy is removed with the rest after the rollout.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping
from pathlib import Path

from ..errors import UsageError
from ..harvest import agents as registry
from ..markers import REPLAY_ENV
from .copilot import copilot_replay
from .events import claude_output, codex_output
from .opencode import opencode_replay
from .spec import Launch, ReplayAgent

Agent = str  # a registered agent's name that :data:`REPLAY` holds
SETTINGS = "claude-replay-settings.json"  # in the temporary home, given to ``--settings``
CLAUDE_TOOLS = "Bash,Read,Write,Edit,MultiEdit,Glob,Grep,LS,NotebookEdit,TodoWrite"
# Passed through from the user's environment; nothing else is (the sandbox clears the rest).
_KEEP = (
    "PATH",
    "LANG",
    "LC_ALL",
    "TZ",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "SSL_CERT_FILE",
    "NODE_EXTRA_CA_CERTS",
    "CODEX_CA_CERTIFICATE",
)
# Certificate files the agent trusts (a company proxy's CA): readable inside the sandbox too.
TRUST_FILES = ("SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "CODEX_CA_CERTIFICATE")
_QUIET = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_MAX_RETRIES": "0",
    "TERM": "dumb",
    "NO_COLOR": "1",
    REPLAY_ENV: "1",
}
_CODEX_DROP = re.compile(r"^\s*\[(?:mcp_servers|hooks|notice)\b")
_CODEX_DROP_KEY = re.compile(r"^\s*(?:notify|hooks)\s*=")


def claude_settings() -> dict[str, object]:
    """The replay's Claude Code settings (``--settings``, above the project's own): its sandbox
    on for every Bash command with no unsandboxed fallback and no network, no hooks, no web
    tools, no bypass of permissions. Writes are allowed only in the working directory (the copy)
    by ``acceptEdits``; the outer sandbox (bubblewrap) holds whatever this one misses."""
    return {
        "permissions": {
            "defaultMode": "acceptEdits",
            "deny": ["WebFetch", "WebSearch", "Bash(curl:*)", "Bash(wget:*)", "Bash(git push:*)"],
            "disableBypassPermissionsMode": "disable",
        },
        "sandbox": {
            "enabled": True,
            "autoAllowBashIfSandboxed": True,
            "allowUnsandboxedCommands": False,
            "enableWeakerNestedSandbox": True,  # inside bubblewrap already: no nested /proc
            "network": {"allowedDomains": []},
        },
        "disableAllHooks": True,
        "enableAllProjectMcpServers": False,
    }


def claude_argv(
    binary: str, prompt: str, *, max_turns: int, model: str | None, settings: Path | None = None
) -> list[str]:
    argv = [
        binary,
        "-p",
        prompt,
        "--output-format",
        "stream-json",
        "--verbose",
        "--no-session-persistence",
        "--setting-sources",
        "project",
        "--strict-mcp-config",
        "--allowedTools",
        CLAUDE_TOOLS,
        "--permission-mode",
        "acceptEdits",
        "--max-turns",
        str(max_turns),
    ]
    argv += ["--settings", str(settings)] if settings is not None else []
    return [*argv, "--model", model] if model else argv


def codex_argv(binary: str, prompt: str, *, copy: Path, model: str | None) -> list[str]:
    argv = [
        binary,
        "exec",
        "--json",
        "--ephemeral",
        "--skip-git-repo-check",
        "-s",
        "workspace-write",
        "-c",
        "sandbox_workspace_write.network_access=false",  # whatever the user's config says
        "-c",
        "analytics.enabled=false",  # no metrics export: nothing leaves but the model's calls
        "-C",
        str(copy),
    ]
    return [*argv, "-m", model, prompt] if model else [*argv, prompt]


def _codex_config(text: str) -> str:
    """The user's codex config without what could run or reach anything but the model."""
    out: list[str] = []
    dropping = False
    for line in text.splitlines():
        if line.lstrip().startswith("["):
            dropping = bool(_CODEX_DROP.match(line))
        if dropping or _CODEX_DROP_KEY.match(line):
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def base_env(home: Path, env: Mapping[str, str]) -> dict[str, str]:
    """What every agent gets: the kept variables, the quiet ones, ``HOME`` the temporary one."""
    out = {k: env[k] for k in _KEEP if env.get(k)}
    out.update(_QUIET)
    out["HOME"] = str(home)
    return out


def _claude_home(home: Path, env: Mapping[str, str]) -> dict[str, str]:
    user_home = Path(env.get("HOME") or "/nonexistent")
    out = base_env(home, env)
    config = home / ".claude"
    config.mkdir(parents=True, exist_ok=True)
    source = (
        Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else user_home / ".claude"
    )
    creds = source / ".credentials.json"
    if not env.get("ANTHROPIC_API_KEY") and creds.is_file():
        shutil.copy2(creds, config / ".credentials.json")
    out["CLAUDE_CONFIG_DIR"] = str(config)
    (home / SETTINGS).write_text(json.dumps(claude_settings()), encoding="utf-8")
    return out


def _codex_home(home: Path, env: Mapping[str, str]) -> dict[str, str]:
    user_home = Path(env.get("HOME") or "/nonexistent")
    out = base_env(home, env)
    codex = home / ".codex"
    codex.mkdir(parents=True, exist_ok=True)
    source = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else user_home / ".codex"
    if (source / "auth.json").is_file():
        shutil.copy2(source / "auth.json", codex / "auth.json")
    if (source / "config.toml").is_file():
        text = (source / "config.toml").read_text(encoding="utf-8", errors="replace")
        (codex / "config.toml").write_text(_codex_config(text), encoding="utf-8")
        for key in re.findall(r'env_key\s*=\s*"([A-Za-z_][A-Za-z0-9_]*)"', text):
            if env.get(key):
                out[key] = env[key]
    out["CODEX_HOME"] = str(codex)
    return out


def _claude_url(env: Mapping[str, str], home: Path) -> str:
    return env.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"


def _codex_url(env: Mapping[str, str], home: Path) -> str:
    config = home / ".codex" / "config.toml"
    text = config.read_text(encoding="utf-8") if config.is_file() else ""
    provider = re.search(r'^\s*model_provider\s*=\s*"([^"]+)"', text, re.MULTILINE)
    if provider:
        section = re.search(
            rf"^\[model_providers\.{re.escape(provider.group(1))}\]([^\[]*)", text, re.MULTILINE
        )
        url = re.search(r'base_url\s*=\s*"([^"]+)"', section.group(1)) if section else None
        if url:
            return url.group(1)
    if (home / ".codex" / "auth.json").is_file() and not env.get("OPENAI_API_KEY"):
        return "https://chatgpt.com"
    return env.get("OPENAI_BASE_URL") or "https://api.openai.com"


def _claude_login(env: Mapping[str, str]) -> str:
    """ "" when claude has a key or a login file a replay can use, else a one-line reason."""
    if env.get("ANTHROPIC_API_KEY") or env.get("ANTHROPIC_AUTH_TOKEN"):
        return ""
    user_home = Path(env.get("HOME") or "/nonexistent")
    config = (
        Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else user_home / ".claude"
    )
    if (config / ".credentials.json").is_file():
        return ""
    return (
        f"claude is not logged in (no ANTHROPIC_API_KEY, no {config / '.credentials.json'}):"
        " run `claude` and log in, or set ANTHROPIC_API_KEY"
    )


def _codex_login(env: Mapping[str, str]) -> str:
    """ "" when codex has a key or a login file a replay can use, else a one-line reason."""
    user_home = Path(env.get("HOME") or "/nonexistent")
    codex = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else user_home / ".codex"
    if env.get("OPENAI_API_KEY") or (codex / "auth.json").is_file():
        return ""
    config = codex / "config.toml"
    text = config.read_text(encoding="utf-8", errors="replace") if config.is_file() else ""
    keys = re.findall(r'env_key\s*=\s*"([A-Za-z_][A-Za-z0-9_]*)"', text)
    if any(env.get(key) for key in keys):
        return ""
    return (
        f"codex is not logged in (no OPENAI_API_KEY, no {codex / 'auth.json'}):"
        " run `codex login`, or set OPENAI_API_KEY"
    )


def _claude_argv(run: Launch) -> list[str]:
    return claude_argv(
        run.binary,
        run.prompt,
        max_turns=run.max_turns,
        model=run.model,
        settings=run.home / SETTINGS,
    )


def _claude_note(env: Mapping[str, str]) -> str:
    if shutil.which("socat", path=env.get("PATH")) is not None:
        return ""
    return (
        "Claude Code's own sandbox needs socat (apt-get install socat), which is missing: "
        "its commands in agent replays are confined by bubblewrap alone"
    )


REPLAY: dict[str, ReplayAgent] = {
    agent.name: agent
    for agent in (
        ReplayAgent(
            name=registry.get("claude-code").name,
            binary="claude",
            argv=_claude_argv,
            home=_claude_home,
            api_url=_claude_url,
            login=_claude_login,
            parse=lambda stdout, copy, home: claude_output(stdout, copy),
            note=_claude_note,
        ),
        ReplayAgent(
            name=registry.get("codex").name,
            binary="codex",
            argv=lambda run: codex_argv(run.binary, run.prompt, copy=run.copy, model=run.model),
            home=_codex_home,
            api_url=_codex_url,
            login=_codex_login,
            parse=lambda stdout, copy, home: codex_output(stdout, copy),
            count_tools=True,  # codex exec has no turn limit: the inner proxy counts its calls
        ),
        copilot_replay(base_env),
        opencode_replay(base_env),
    )
}
AGENTS: tuple[Agent, ...] = tuple(REPLAY)


def replay_agent(name: str) -> ReplayAgent:
    """The replay part of agent ``name``; an unknown name is an error listing the replayable."""
    try:
        return REPLAY[name]
    except KeyError:
        raise UsageError(
            f"agent {name!r} cannot be replayed", hint=f"choose one of: {', '.join(AGENTS)}"
        ) from None


def login_problem(agent: Agent, env: Mapping[str, str]) -> str:
    """ "" when the agent has a login or key a replay can use, else a one-line reason (offline:
    the key in the environment, or the login file the temporary home is given)."""
    return replay_agent(agent).login(env)
