"""Settings: defaults, user TOML, project TOML, environment and flags, validated once.

Layers, lowest first: ``default`` < ``user`` (``<config_dir>/config.toml``) < ``project``
(``<project>/.skillopt-sleep.toml``) < ``env`` (``SKILLOPT_SLEEP_<SECTION>__<KEY>``, e.g.
``SKILLOPT_SLEEP_NIGHT__K=2``) < ``flag``. :func:`load_settings` returns the validated
:class:`Settings` and, for ``config show``, where each value came from.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import ConfigError

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - 3.10
    import tomli as tomllib  # type: ignore[no-redef]

ENV_PREFIX = "SKILLOPT_SLEEP_"
PROJECT_FILE = ".skillopt-sleep.toml"
LayerName = Literal["default", "user", "project", "env", "flag"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class RoleSettings(_Section):
    """Which backend and model serve one role (target, optimizer or judge)."""

    backend: str | None = None  # None: the first usable backend (see backends.registry.detect)
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int = Field(default=1024, gt=0, le=200_000)
    timeout_s: float = Field(default=120.0, gt=0, le=3600)
    max_retries: int = Field(default=4, ge=0, le=20)
    # Mark the stable prefix (the replay instructions, skill and memory) for the provider's
    # prompt cache; off: every call pays the full input price.
    prompt_cache: bool = True


class RolesSettings(_Section):
    target: RoleSettings = Field(default_factory=RoleSettings)
    optimizer: RoleSettings = Field(default_factory=RoleSettings)
    judge: RoleSettings = Field(default_factory=RoleSettings)


class NightSettings(_Section):
    """How one night replays, reflects, edits and gates."""

    k: int = Field(default=4, ge=1, le=64)
    concurrency: int = Field(default=16, ge=1, le=256)
    edit_budget: int = Field(default=3, ge=0, le=50)
    edit_budget_min: int = Field(default=1, ge=0, le=50)
    edit_schedule: Literal["constant", "linear", "cosine"] = "constant"
    schedule_horizon: int = Field(default=10, ge=1, le=1000)
    alpha: float = Field(default=0.03, gt=0, lt=1)
    steps: int = Field(default=2, ge=1, le=10)
    efficacy_rollouts: int = Field(default=24, ge=2, le=512)
    efficacy_looks: int = Field(default=3, ge=1, le=8)
    harm_rollouts: int = Field(default=48, ge=2, le=1024)
    harm_looks: int = Field(default=3, ge=1, le=8)
    harm_alpha: float = Field(default=0.1, gt=0, lt=1)
    harm_conclusive: float = Field(default=0.01, gt=0, lt=1)
    unseen_alpha: float = Field(default=0.2, gt=0, le=1)
    unseen_rollouts: int = Field(default=8, ge=1, le=512)
    evidence_alpha: float = Field(default=0.005, gt=0, lt=1)
    evidence_odds: float = Field(default=4.0, gt=1, le=1000)
    min_effect: float = Field(default=0.25, gt=0, le=1)
    harm_max_tasks: int = Field(default=64, ge=1)
    holdout_fraction: float = Field(default=0.35, gt=0, lt=1)
    max_error_rate: float = Field(default=0.3, ge=0, le=1)
    max_tasks: int = Field(default=200, ge=1)
    recall: int = Field(default=40, ge=0)
    reflect_tasks: int = Field(default=6, ge=1, le=100)
    seed: int = 0
    auto_adopt: bool = False
    # Send the night's model calls (replays, rubric checks, reflection) through the provider's
    # batch API (half price, results within 24 hours, usually minutes). Off by default, scheduled
    # nights included: a night's phases run one after another, so a slow batch can hold back the
    # morning's proposal.
    batch: bool = False
    batch_poll_s: float = Field(default=30.0, gt=0, le=3600)


class Price(_Section):
    """USD per million tokens. ``cache_write`` / ``cache_read``: input written to / read from the
    prompt cache (unset: Anthropic's 1.25x / 0.1x of input for Claude models, OpenAI's cached
    price for its models, else the input price)."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cache_write: float | None = Field(default=None, ge=0)
    cache_read: float | None = Field(default=None, ge=0)
    cache_write_1h: float | None = Field(default=None, ge=0)  # unset: 2x input for Claude models


class BudgetSettings(_Section):
    """Per-night spending limits, checked before every model call. None: no limit."""

    max_calls: int | None = Field(default=2000, ge=1)
    # a 40-task night with a 5,000-token skill and memory sends about 5M tokens, most of them
    # cached; money is what max_cost_usd bounds, tokens only a runaway night
    max_tokens: int | None = Field(default=15_000_000, ge=1)
    max_cost_usd: float | None = Field(default=5.0, ge=0)
    prices: dict[str, Price] = Field(default_factory=dict)


class FilesSettings(_Section):
    """Which files a night may change, relative to the project root."""

    skill: str | None = None  # None: the project's single skill, else .claude/skills/project/SKILL.md
    memory: list[str] = Field(default_factory=lambda: ["CLAUDE.md", "AGENTS.md"])
    max_bytes: dict[str, int] = Field(
        default_factory=lambda: {"AGENTS.md": 32 * 1024, "CLAUDE.md": 40 * 1024, "SKILL.md": 24 * 1024}
    )


_SOURCES: tuple[Literal["claude-code", "codex"], ...] = ("claude-code", "codex")


class HarvestSettings(_Section):
    lookback_days: int = Field(default=7, ge=1, le=3650)
    all_projects: bool = False
    sources: list[Literal["claude-code", "codex"]] = Field(default_factory=lambda: list(_SOURCES))
    claude_config_dir: str | None = None  # else $CLAUDE_CONFIG_DIR, else ~/.claude
    codex_home: str | None = None  # else $CODEX_HOME, else ~/.codex
    # Model calls a harvest may make to mine checks from corrections the heuristics could not
    # read (only when roles.optimizer.backend is set); 0: heuristics only.
    llm_checks: int = Field(default=20, ge=0, le=1000)
    # Ask the judge backend (roles.judge) what a user turn is when the rules cannot tell, at
    # most llm_classify_calls a run; off: unsure turns are kept and marked unsure.
    llm_classify: bool = False
    llm_classify_calls: int = Field(default=50, ge=0, le=5000)


class ScheduleSettings(_Section):
    cron: str = "17 3 * * *"
    method: Literal["auto", "crontab", "systemd", "launchd", "schtasks", "loop"] = "auto"
    projects: list[str] = Field(default_factory=list)


class Settings(_Section):
    """All settings. Build with :func:`load_settings`; ``Settings()`` gives the defaults."""

    night: NightSettings = Field(default_factory=NightSettings)
    roles: RolesSettings = Field(default_factory=RolesSettings)
    budget: BudgetSettings = Field(default_factory=BudgetSettings)
    files: FilesSettings = Field(default_factory=FilesSettings)
    harvest: HarvestSettings = Field(default_factory=HarvestSettings)
    schedule: ScheduleSettings = Field(default_factory=ScheduleSettings)


@dataclass(frozen=True)
class Layer:
    """One source of settings: its name, where it came from, and its nested values."""

    name: LayerName
    origin: str
    values: Mapping[str, Any]


@dataclass(frozen=True)
class LoadedSettings:
    settings: Settings
    sources: Mapping[str, str]  # dotted key -> "user (/path/config.toml)" etc.


def read_toml(path: Path, name: LayerName) -> Layer | None:
    """A TOML layer, or None if the file does not exist."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}", hint="check its permissions") from exc
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}", hint=f"fix or remove {path}") from exc
    return Layer(name, str(path), data)


def env_layer(env: Mapping[str, str]) -> Layer:
    """``SKILLOPT_SLEEP_NIGHT__K=2`` -> ``{"night": {"k": "2"}}``; JSON values are decoded."""
    values: dict[str, Any] = {}
    for key, raw in env.items():
        if not key.startswith(ENV_PREFIX) or "__" not in key:
            continue
        path = [p.lower() for p in key[len(ENV_PREFIX) :].split("__")]
        value: Any = raw
        if raw[:1] in "[{" or raw in ("true", "false"):
            try:
                value = json.loads(raw)
            except json.JSONDecodeError:
                value = raw
        _set_dotted(values, path, value)
    return Layer("env", "environment", values)


def flag_layer(flags: Mapping[str, Any]) -> Layer:
    """Flags as dotted keys (``{"night.k": 2}``); None values are flags not given."""
    values: dict[str, Any] = {}
    for dotted, value in flags.items():
        if value is not None:
            _set_dotted(values, dotted.split("."), value)
    return Layer("flag", "command line", values)


def _set_dotted(target: dict[str, Any], path: list[str], value: Any) -> None:
    for part in path[:-1]:
        target = target.setdefault(part, {})
    target[path[-1]] = value


# Settings of the whole-holdout gate, which is no longer part of the product.
RETIRED = {name: "every edit is judged alone, where it acts (the edit-by-edit gate is the only gate)"
           for name in ("night.gate", "night.min_gain", "night.max_task_drop", "night.gate_test",
                        "night.min_holdout_tasks")}

_DICT_KEYS = {"budget.prices", "files.max_bytes"}  # settings whose value is itself a table


def _flatten(values: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in values.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and dotted not in _DICT_KEYS:
            flat.update(_flatten(value, dotted + "."))
        else:
            flat[dotted] = value
    return flat


def _deep_merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _known_keys() -> list[str]:
    return sorted(_flatten(Settings().model_dump()))


def load_settings(layers: list[Layer]) -> LoadedSettings:
    """Merge ``layers`` (lowest first) over the defaults and validate once."""
    merged: dict[str, Any] = {}
    sources = {key: "default" for key in _known_keys()}
    for layer in layers:
        for dotted in _flatten(layer.values):
            sources[dotted] = layer.name if layer.name in ("env", "flag") else f"{layer.name} ({layer.origin})"
        merged = _deep_merge(merged, layer.values)
    try:
        settings = Settings.model_validate(merged)
    except ValidationError as exc:
        raise _config_error(exc, sources) from exc
    return LoadedSettings(settings, sources)


def _config_error(exc: ValidationError, sources: Mapping[str, str]) -> ConfigError:
    err = exc.errors()[0]
    dotted = ".".join(str(p) for p in err["loc"])
    origin = sources.get(dotted, "default")
    if err["type"] == "extra_forbidden" and dotted in RETIRED:
        return ConfigError(f"setting {dotted} from {origin} is retired: {RETIRED[dotted]}",
                           hint=f"remove it ({_where_to_fix(dotted, origin)})")
    if err["type"] == "extra_forbidden":
        close = difflib.get_close_matches(dotted, _known_keys(), n=1)
        hint = f"did you mean {close[0]}?" if close else "see `skillopt-sleep config show`"
        return ConfigError(f"unknown setting {dotted} from {origin}", hint=hint)
    fix = _where_to_fix(dotted, origin)
    return ConfigError(
        f"invalid setting {dotted} = {err.get('input')!r} from {origin}: {err['msg']}", hint=fix
    )


def _where_to_fix(dotted: str, origin: str) -> str:
    if origin == "env":
        env_name = ENV_PREFIX + "__".join(p.upper() for p in dotted.split("."))
        return f"fix or unset {env_name}"
    if origin == "flag":
        return "fix the command-line flag"
    if "(" in origin:
        return f"fix it in {origin[origin.index('(') + 1 : -1]}"
    return "see `skillopt-sleep config show`"


def settings_layers(
    *, config_file: Path, project: Path | None, env: Mapping[str, str], flags: Mapping[str, Any]
) -> list[Layer]:
    """The standard layer stack for a project."""
    layers = [read_toml(config_file, "user")]
    if project is not None:
        layers.append(read_toml(project / PROJECT_FILE, "project"))
    layers += [env_layer(env), flag_layer(flags)]
    return [layer for layer in layers if layer is not None]
