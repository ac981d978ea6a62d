"""Claude Code replays::

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

with a temporary ``HOME`` and ``CLAUDE_CONFIG_DIR`` in it holding only Claude's
``.credentials.json`` (copied from the user's) when no ``ANTHROPIC_API_KEY`` is set.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path

from ..harvest.claude_code import SOURCE
from .environment import base_env
from .events import claude_output
from .spec import Launch, ReplayAgent

SETTINGS = "claude-replay-settings.json"  # in the temporary home, given to ``--settings``
CLAUDE_TOOLS = "Bash,Read,Write,Edit,MultiEdit,Glob,Grep,LS,NotebookEdit,TodoWrite"


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


def _claude_url(env: Mapping[str, str], home: Path) -> str:
    return env.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"


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


REPLAY = ReplayAgent(
    name=SOURCE,
    binary="claude",
    argv=_claude_argv,
    home=_claude_home,
    api_url=_claude_url,
    login=_claude_login,
    parse=lambda stdout, copy, home: claude_output(stdout, copy),
    note=_claude_note,
    model_backends=frozenset({"anthropic", "claude-code"}),
    # ANTHROPIC_MODEL: the replay passes it through, and not the user's settings.json
    own_model=lambda env: env.get("ANTHROPIC_MODEL") or None,
)
