"""OpenCode replays, offline against the model endpoint the user's OpenCode config names::

    opencode run --format json --pure --title "skillopt-sleep replay" --dir COPY [-m P/M] PROMPT...

OpenCode has no login of its own to borrow: it talks to the provider of its ``model``
(``opencode.json``: ``"model": "<provider>/<model>"``), and a replay needs that provider's
``options.baseURL`` to pin the one address the sandbox lets it reach. The temporary home gets a
config of its own holding only that model and that provider (no MCP servers, plugins,
instructions or permissions of the user's), the provider's key from OpenCode's ``auth.json`` when
it keeps one there, and the ``{env:NAME}`` variables the provider's block names. ``--pure``: no
external plugins; the user's own plugins (skillopt-sleep's included) live in the user's config
directory, which the replay never reads.

Everything OpenCode writes (its SQLite store, snapshots, logs, locks, its cache and its
``.so`` file finder in ``$TMPDIR``) lands in the temporary home; the session is read from
``opencode.db`` there after the run, with harvest's own reader and parser, into actions. Its
cache is always the rollout's own: OpenCode downloads nothing into it for a bundled provider
package (``@ai-sdk/openai-compatible``, ``@ai-sdk/anthropic``, ...) and would wipe a cache of
another version, so the user's cache is never shown to it. Its per-agent ``steps`` limit ends a
run with a forced reply rather than an error, so the inner proxy counts its ``tool_use`` events
instead, as for codex and copilot. The prompt goes in as one argument per word: OpenCode wraps a
single argument that holds a space in double quotes before the model sees it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..harvest.actions import to_models
from ..harvest.jsonl import as_dict
from ..harvest.opencode import SOURCE
from ..harvest.opencode_store import changed_sessions, connect, read_session
from .environment import base_env, xdg_home
from .events import AgentOutput, stopped_by_proxy
from .spec import Launch, ReplayAgent

NAME = SOURCE
TITLE = "skillopt-sleep replay"  # a title given: no tools-less title request to the model
_CONFIGS = ("config.json", "opencode.json", "opencode.jsonc")  # merged in this order
_QUIET = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "npm_config_offline": "true",  # its plugin install at start fails at once, not on a timeout
    "npm_config_update_notifier": "false",
}
_ENV_REF = re.compile(r"\{env:([A-Za-z_][A-Za-z0-9_]*)\}")
_JSONC_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def _user_home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or "/nonexistent")


def _config_dir(env: Mapping[str, str]) -> Path:
    return Path(env.get("XDG_CONFIG_HOME") or _user_home(env) / ".config") / "opencode"


def _data_dir(env: Mapping[str, str]) -> Path:
    share = _user_home(env) / ".local" / "share"
    return Path(env.get("XDG_DATA_HOME") or share) / "opencode"


def _jsonc(text: str) -> dict[str, Any]:
    """A JSON-with-comments config as OpenCode accepts it; {} when it is not one."""
    plain = _JSONC_TOKEN.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
    try:
        data = json.loads(_TRAILING_COMMA.sub(r"\1", plain))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def user_config(env: Mapping[str, str]) -> dict[str, Any]:
    """The user's global OpenCode config: the ``OPENCODE_CONFIG`` file over the config
    directory's files, each provider merged by its id (as OpenCode merges them)."""
    paths = [_config_dir(env) / name for name in _CONFIGS]
    paths += [Path(env["OPENCODE_CONFIG"])] if env.get("OPENCODE_CONFIG") else []
    merged: dict[str, Any] = {}
    for path in paths:
        if not path.is_file():
            continue
        data = _jsonc(path.read_text(encoding="utf-8", errors="replace"))
        providers = {**as_dict(merged.get("provider")), **as_dict(data.get("provider"))}
        merged.update(data)
        merged["provider"] = providers
    return merged


def _model(config: Mapping[str, Any], chosen: str | None) -> tuple[str, str]:
    """``(provider id, model id)`` of the night's model, else of the config's ``model``."""
    name = chosen or str(config.get("model") or "")
    provider, _, model = name.partition("/")
    if not model and chosen:  # a bare model name: of the config's provider
        provider, model = str(config.get("model") or "").partition("/")[0], chosen
    return provider, model


def _provider(config: Mapping[str, Any], chosen: str | None = None) -> tuple[str, dict[str, Any]]:
    provider, _ = _model(config, chosen)
    return provider, as_dict(as_dict(config.get("provider")).get(provider))


def _base_url(block: Mapping[str, Any]) -> str:
    return str(as_dict(block.get("options")).get("baseURL") or "")


def _login(env: Mapping[str, str]) -> str:
    """ "" when the user's config names a model whose provider has a base URL, else the fix."""
    config = user_config(env)
    provider, block = _provider(config)
    if provider and _base_url(block):
        return ""
    where = env.get("OPENCODE_CONFIG") or str(_config_dir(env) / "opencode.json")
    return (
        "opencode replays run offline against a model endpoint of your own, and none is set:"
        f' in {where} set "model": "<provider>/<model>" and that provider\'s options.baseURL'
    )


def replay_config(config: Mapping[str, Any], chosen: str | None = None) -> dict[str, Any]:
    """The replay's ``opencode.json``: the model and its provider, nothing that runs or reaches
    anything else (MCP servers, plugins, instructions, sharing, updates)."""
    provider, block = _provider(config, chosen)
    _, model = _model(config, chosen)
    name = f"{provider}/{model}"
    return {
        "autoupdate": False,
        "share": "disabled",
        "model": name,
        "small_model": name,  # no second provider for summaries
        "provider": {provider: block},
    }


def _login_file(env: Mapping[str, str], temp: Path, provider: str) -> None:
    """The provider's entry of the user's ``auth.json`` (``opencode auth login``), alone."""
    source = _data_dir(env) / "auth.json"
    try:
        entry = as_dict(json.loads(source.read_text(encoding="utf-8"))).get(provider)
    except (OSError, ValueError):
        return
    if entry:
        target = temp / ".local" / "share" / "opencode" / "auth.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({provider: entry}), encoding="utf-8")
        target.chmod(0o600)


def opencode_argv(run: Launch) -> list[str]:
    argv = [run.binary, "run", "--format", "json", "--pure", "--title", TITLE, "--dir"]
    argv.append(str(run.copy))
    if run.model:  # a bare model name is one of the config's provider
        config = _jsonc(_temp_config(run.home).read_text(encoding="utf-8"))
        argv += ["-m", "/".join(_model(config, run.model))]
    return [*argv, *[word for word in run.prompt.split(" ") if word]]


def _temp_config(temp: Path) -> Path:
    return temp / ".config" / "opencode" / "opencode.json"


def _api_url(env: Mapping[str, str], temp: Path) -> str:
    path = _temp_config(temp)
    config = _jsonc(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return _base_url(_provider(config)[1])


def _session_text(db: Path, session_id: str) -> tuple[str, int, int, int, list[str]]:
    """Last reply, input and output tokens, assistant turns and the model errors of a session."""
    texts: list[str] = []
    errors: list[str] = []
    tokens_in = tokens_out = turns = 0
    con = connect(db)
    try:
        rows = con.execute(
            "SELECT m.data, p.data FROM message m LEFT JOIN part p ON p.message_id = m.id"
            " WHERE m.session_id = ? ORDER BY m.time_created, m.id, p.id",
            (session_id,),
        ).fetchall()
    finally:
        con.close()
    seen: set[str] = set()
    for message, part in rows:
        info, piece = as_dict(_load(message)), as_dict(_load(part))
        if info.get("role") != "assistant":
            continue
        if message not in seen:
            seen.add(message)
            turns += 1
            tokens = as_dict(info.get("tokens"))
            tokens_in += int(tokens.get("input") or 0)
            tokens_out += int(tokens.get("output") or 0)
            error = as_dict(info.get("error"))
            if error:
                detail = as_dict(error.get("data")).get("message") or error.get("name")
                errors.append(str(detail or "an error"))
        if piece.get("type") == "text" and str(piece.get("text") or "").strip():
            texts.append(str(piece["text"]))
    return (texts[-1] if texts else ""), tokens_in, tokens_out, turns, errors


def _load(raw: object) -> object:
    try:
        return json.loads(str(raw)) if raw is not None else None
    except ValueError:
        return None


def opencode_output(stdout: str, copy: str, home: Path) -> AgentOutput:
    """The session OpenCode stored in the temporary ``home``: its actions (harvest's reader and
    parser), its last reply, tokens and turns; a ``turn_limit`` event of the inner proxy on
    ``stdout``."""
    limited = stopped_by_proxy(stdout)
    db = home / ".local" / "share" / "opencode" / "opencode.db"
    problems: list[tuple[str, str]] = []
    marks = changed_sessions(db, {}, problems) if db.is_file() else []
    if limited:
        error = "opencode stopped at the turn limit: it made more tool calls than allowed"
        return AgentOutput("", (), error=error, turn_limit=True)
    if not marks:
        return AgentOutput("", (), error="opencode stored no session")
    session = marks[-1].session_id
    chunk, _ = read_session(db, session)
    actions = [a for turn in chunk.turns for a in to_models(turn, copy)]
    text, tokens_in, tokens_out, turns, errors = _session_text(db, session)
    error = ""
    if errors:
        error = f"opencode stopped: {errors[-1][:200]}"
    elif not turns:
        error = "opencode finished no turn"
    return AgentOutput(text, tuple(actions), tokens_in, tokens_out, None, turns, error, False)


def opencode_replay(base_env: Callable[[Path, Mapping[str, str]], dict[str, str]]) -> ReplayAgent:
    """OpenCode's :class:`ReplayAgent`, its environment built on ``base_env`` (what every agent
    gets)."""

    def home(temp: Path, env: Mapping[str, str]) -> dict[str, str]:
        config = user_config(env)
        provider, block = _provider(config)
        path = _temp_config(temp)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(replay_config(config)), encoding="utf-8")
        _login_file(env, temp, provider)
        out = base_env(temp, env)
        out.update({k: env[k] for k in _ENV_REF.findall(json.dumps(block)) if env.get(k)})
        out.update(_QUIET)
        out.update(xdg_home(temp))
        return out

    return ReplayAgent(
        name=NAME,
        binary="opencode",
        argv=opencode_argv,
        home=home,
        api_url=_api_url,
        login=_login,
        parse=opencode_output,
        count_tools=True,
    )


REPLAY = opencode_replay(base_env)
