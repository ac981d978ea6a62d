"""GitHub Copilot CLI replays, offline against a model endpoint of the user's own (BYOK)::

    copilot -p PROMPT --allow-all-tools --output-format json --disable-builtin-mcps [--model M]

with ``COPILOT_OFFLINE=true`` (no GitHub login, telemetry, web tools or update) and the user's
``COPILOT_PROVIDER_*`` / ``COPILOT_MODEL`` passed in: the provider's base URL is the one address
the sandbox lets it reach. A replay through a GitHub login is not offered (its traffic goes to
GitHub, not to a model endpoint the night can pin).

Everything copilot writes (config, logs, its session index and the session's
``~/.copilot/session-state/<uuid>/events.jsonl``) lands in the temporary home; the session is read
from there after the run, with harvest's own :class:`~..harvest.copilot.CopilotParser`, into
actions. It has no turn limit of its own: the inner proxy counts its ``tool.execution_start``
events. Its unpacked package (``$XDG_CACHE_HOME/copilot/pkg``, ~235 MB) is read from the user's
cache, read-only, so a rollout does not unpack it again; where the user's cache holds none yet,
the rollout's own cache in the temporary home takes it (copilot unpacks itself there, ~2 s).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from ..harvest.actions import to_models
from ..harvest.copilot import EVENTS, SOURCE, CopilotParser
from ..harvest.jsonl import as_dict
from .environment import base_env, xdg_home
from .events import AgentOutput, json_objects, stopped_by_proxy
from .spec import Launch, ReplayAgent

NAME = SOURCE
# The user's BYOK settings, passed in; COPILOT_PROVIDER_API_KEY_COMMAND (a command) is not.
_PASS = (
    "COPILOT_PROVIDER_BASE_URL",
    "COPILOT_PROVIDER_TYPE",
    "COPILOT_PROVIDER_API_KEY",
    "COPILOT_PROVIDER_BEARER_TOKEN",
    "COPILOT_PROVIDER_WIRE_API",
    "COPILOT_MODEL",
)


def copilot_argv(run: Launch) -> list[str]:
    argv = [
        run.binary,
        "-p",
        run.prompt,
        "--allow-all-tools",
        "--output-format",
        "json",  # the events the inner proxy counts
        "--disable-builtin-mcps",
    ]
    return [*argv, "--model", run.model] if run.model else argv


def _cache(env: Mapping[str, str]) -> Path:
    return Path(env.get("XDG_CACHE_HOME") or Path(env.get("HOME") or "/nonexistent") / ".cache")


def _package(env: Mapping[str, str]) -> tuple[Path, ...]:
    """The user's unpacked copilot package, shown read-only inside the sandbox."""
    pkg = _cache(env) / "copilot" / "pkg"
    return (pkg,) if pkg.is_dir() else ()


def _login(env: Mapping[str, str]) -> str:
    if env.get("COPILOT_PROVIDER_BASE_URL"):
        return ""
    return (
        "copilot replays run offline against a model endpoint of your own, and none is set:"
        " set COPILOT_PROVIDER_BASE_URL (with COPILOT_PROVIDER_API_KEY and COPILOT_MODEL)"
    )


def copilot_output(stdout: str, copy: str, home: Path) -> AgentOutput:
    """The session copilot wrote in the temporary ``home``: its actions (harvest's parser), its
    last reply, its tokens and turns; a ``turn_limit`` event of the inner proxy on ``stdout``."""
    limited = stopped_by_proxy(stdout)
    logs = sorted((home / ".copilot" / "session-state").glob(f"*/{EVENTS}"))
    raw = b"".join(p.read_bytes() for p in logs[-1:])
    parser, offset = CopilotParser(), 0
    for line in raw.splitlines(keepends=True):
        parser.feed(offset, line)
        offset += len(line)
    actions = [a for turn in parser.finish().turns for a in to_models(turn, copy)]
    texts, errors = [], []
    tokens_in = tokens_out = turns = 0
    for obj in json_objects(raw.decode("utf-8", "replace")):
        data, kind = as_dict(obj.get("data")), obj.get("type")
        if obj.get("agentId"):
            continue  # a sub-agent's work
        if kind == "assistant.message" and str(data.get("content") or "").strip():
            texts.append(str(data["content"]))
        elif kind == "session.usage_record":
            usage = as_dict(data.get("usage"))
            tokens_in += int(usage.get("inputTokens") or 0)
            tokens_out += int(usage.get("outputTokens") or 0)
        elif kind == "assistant.turn_end":
            turns += 1
        elif kind == "session.error":
            errors.append(str(data.get("message") or data.get("errorType") or "an error"))
    error = ""
    if limited:
        error = "copilot stopped at the turn limit: it began more tool calls than allowed"
    elif not logs:
        error = "copilot wrote no session"
    elif errors:
        error = f"copilot stopped: {errors[-1][:200]}"
    elif not turns:
        error = "copilot finished no turn"
    return AgentOutput(
        texts[-1] if texts else "",
        tuple(actions),
        tokens_in,
        tokens_out,
        None,
        turns,
        error,
        limited,
    )


def copilot_replay(base_env: Callable[[Path, Mapping[str, str]], dict[str, str]]) -> ReplayAgent:
    """Copilot's :class:`ReplayAgent`, its environment built on ``base_env`` (what every agent
    gets)."""

    def home(temp: Path, env: Mapping[str, str]) -> dict[str, str]:
        out = base_env(temp, env)
        out.update({k: env[k] for k in _PASS if env.get(k)})
        out.update(
            {
                "COPILOT_OFFLINE": "true",
                "COPILOT_AUTO_UPDATE": "false",
                **xdg_home(temp),
                # the user's unpacked package, read-only, where it has one
                **({"XDG_CACHE_HOME": str(_cache(env))} if _package(env) else {}),
            }
        )
        return out

    return ReplayAgent(
        name=NAME,
        binary="copilot",
        argv=copilot_argv,
        home=home,
        api_url=lambda env, temp: env.get("COPILOT_PROVIDER_BASE_URL") or "",
        login=_login,
        parse=copilot_output,
        count_tools=True,
        readable=_package,
    )


REPLAY = copilot_replay(base_env)
