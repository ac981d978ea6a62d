"""What every replayed agent's environment starts from: the few variables passed through from
the user's, the quiet ones, and the temporary ``HOME`` (the sandbox clears everything else)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..markers import REPLAY_ENV

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


def base_env(home: Path, env: Mapping[str, str]) -> dict[str, str]:
    """What every agent gets: the kept variables, the quiet ones, ``HOME`` the temporary one."""
    out = {k: env[k] for k in _KEEP if env.get(k)}
    out.update(_QUIET)
    out["HOME"] = str(home)
    return out


def xdg_home(home: Path) -> dict[str, str]:
    """The XDG base directories inside the temporary ``home``, for an agent that keeps its
    config, sessions and cache where XDG says rather than under ``~/.NAME``."""
    return {
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
    }
