"""Codex replays::

    codex exec --json --ephemeral --skip-git-repo-check -s workspace-write
        -c sandbox_workspace_write.network_access=false -c analytics.enabled=false -C COPY PROMPT

(its own workspace-write sandbox: writes only in COPY and its temp dirs, no network; no metrics
export, which in a sandbox without network would hold every exit ~5 s; its turn limit is
enforced on its ``--json`` events by the inner proxy), with a temporary ``HOME`` and
``CODEX_HOME`` in it holding only Codex's ``auth.json`` and its ``config.toml`` without
``notify``, hooks or MCP servers, copied from the user's.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from pathlib import Path

from ..harvest.codex import SOURCE
from .environment import base_env
from .events import codex_output
from .spec import ReplayAgent

_CODEX_DROP = re.compile(r"^\s*\[(?:mcp_servers|hooks|notice)\b")
_CODEX_DROP_KEY = re.compile(r"^\s*(?:notify|hooks)\s*=")


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


def _users_codex(env: Mapping[str, str]) -> Path:
    """The user's Codex home: ``CODEX_HOME``, else ``~/.codex``."""
    if env.get("CODEX_HOME"):
        return Path(env["CODEX_HOME"])
    return Path(env.get("HOME") or "/nonexistent") / ".codex"


def _codex_home(home: Path, env: Mapping[str, str]) -> dict[str, str]:
    out = base_env(home, env)
    codex = home / ".codex"
    codex.mkdir(parents=True, exist_ok=True)
    source = _users_codex(env)
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


_TOP_MODEL = re.compile(r'^\s*model\s*=\s*"([^"]+)"', re.MULTILINE)


def _codex_model(env: Mapping[str, str]) -> str | None:
    """The top-level ``model`` of the user's ``config.toml`` (copied into the replay's home)."""
    codex = _users_codex(env)
    try:
        text = (codex / "config.toml").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    top = re.split(r"^\s*\[", text, maxsplit=1, flags=re.MULTILINE)[0]  # before any [section]
    found = _TOP_MODEL.search(top)
    return found.group(1) if found else None


def _codex_login(env: Mapping[str, str]) -> str:
    """ "" when codex has a key or a login file a replay can use, else a one-line reason."""
    codex = _users_codex(env)
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


REPLAY = ReplayAgent(
    name=SOURCE,
    binary="codex",
    argv=lambda run: codex_argv(run.binary, run.prompt, copy=run.copy, model=run.model),
    home=_codex_home,
    api_url=_codex_url,
    login=_codex_login,
    parse=lambda stdout, copy, home: codex_output(stdout, copy),
    count_tools=True,  # codex exec has no turn limit: the inner proxy counts its calls
    model_backends=frozenset({"openai", "codex"}),
    own_model=_codex_model,
)
