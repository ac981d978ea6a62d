"""The model an agent replay runs on when the night names none: what the agent itself would pick
in the replay's environment. Claude Code: ``ANTHROPIC_MODEL`` (the replay passes it through, and
not the user's settings.json), else its default, ``claude-code-default``; Codex: the top-level
``model`` of its ``config.toml`` (copied into the replay's home), else ``codex-default``; any
other agent: ``<agent>-default``. The budget prices an agent rollout, and refuses a money cap it
cannot hold, by this name (:data:`~..backends.budget.DEFAULT_PRICES`, ``[budget.prices]``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

_TOP_MODEL = re.compile(r'^\s*model\s*=\s*"([^"]+)"', re.MULTILINE)


def _codex_model(env: Mapping[str, str]) -> str | None:
    home = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else None
    home = home or Path(env.get("HOME") or "/nonexistent") / ".codex"
    try:
        text = (home / "config.toml").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    top = re.split(r"^\s*\[", text, maxsplit=1, flags=re.MULTILINE)[0]  # before any [section]
    found = _TOP_MODEL.search(top)
    return found.group(1) if found else None


def own_model(agent: str, env: Mapping[str, str]) -> str:
    """The model ``agent`` runs on in a replay given no ``--model``, in the user's ``env``."""
    chosen: str | None = None
    if agent == "claude-code":
        chosen = env.get("ANTHROPIC_MODEL") or None
    elif agent == "codex":
        chosen = _codex_model(env)
    return chosen or f"{agent}-default"
