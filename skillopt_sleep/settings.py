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

from .errors import ConfigError, UsageError

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

    backend: str | None = Field(
        default=None, description="simulated | anthropic | openai | claude-code | codex; default: the first usable")
    model: str | None = Field(default=None, description="the model's name; default: the backend's own")
    base_url: str | None = Field(
        default=None, description="an OpenAI-compatible server such as vLLM or Ollama, or a proxy")
    api_key_env: str | None = Field(default=None, description="the environment variable that holds the key")
    temperature: float | None = Field(default=None, ge=0, le=2, description="sampling temperature; default: the model's")
    max_tokens: int = Field(default=1024, gt=0, le=200_000, description="longest answer a call may ask for, in tokens")
    timeout_s: float = Field(default=120.0, gt=0, le=3600, description="seconds one call may take before it is retried")
    max_retries: int = Field(default=4, ge=0, le=20,
                             description="retries of a call that failed for a passing reason (429, 5xx, a timeout)")
    prompt_cache: bool = Field(
        default=True, description="cache the skill and memory every replay shares (a read costs 0.1x input); "
        "off: every call pays the full input price")


class RolesSettings(_Section):
    """The backend of each role: ``target`` replays the tasks, ``optimizer`` proposes edits, ``judge`` scores rubrics."""

    target: RoleSettings = Field(default_factory=RoleSettings, description="replays the tasks")
    optimizer: RoleSettings = Field(default_factory=RoleSettings, description="proposes the edits")
    judge: RoleSettings = Field(default_factory=RoleSettings, description="scores rubric checks")


class NightSettings(_Section):
    """How one night replays, reflects, edits and judges each edit."""

    k: int = Field(default=4, ge=1, le=64, description="rollouts per task, before and after an edit")
    concurrency: int = Field(default=16, ge=1, le=256, description="model calls in flight at once")
    edit_budget: int = Field(default=3, ge=0, le=50, description="at most this many edits a night, see edit_schedule")
    edit_budget_min: int = Field(default=1, ge=0, le=50, description="the edit budget it decays to")
    edit_schedule: Literal["constant", "linear", "cosine"] = Field(
        default="constant", description="constant | linear | cosine: decay from edit_budget to edit_budget_min")
    schedule_horizon: int = Field(default=10, ge=1, le=1000, description="nights over which the edit budget decays")
    alpha: float = Field(default=0.03, gt=0, lt=1,
                         description="family-wise error of tonight's efficacy tests, split over the edits (Holm)")
    steps: int = Field(default=2, ge=1, le=10, description="rounds of reflect -> test a night")
    efficacy_rollouts: int = Field(default=24, ge=2, le=512,
                                   description="fresh rollouts per side where an edit should act, over all looks")
    efficacy_looks: int = Field(default=3, ge=1, le=8,
                                description="looks at the efficacy evidence; a decided comparison stops early")
    harm_rollouts: int = Field(default=48, ge=2, le=1024, description="fresh rollouts per side and look on every other task")
    harm_looks: int = Field(default=3, ge=1, le=8,
                            description="looks at most while the pass rate there fell and harm is not yet conclusive")
    harm_alpha: float = Field(default=0.1, gt=0, lt=1,
                              description="an edit with fewer passes elsewhere at this level is refused tonight")
    harm_conclusive: float = Field(default=0.01, gt=0, lt=1,
                                   description="and at this level it is remembered as harmful, never proposed again")
    unseen_alpha: float = Field(default=0.2, gt=0, le=1,
                                description="unseen tasks of the edit's kind must show a gain at this level")
    unseen_rollouts: int = Field(default=8, ge=1, le=512, description="fresh rollouts per side on those unseen tasks, at least")
    evidence_alpha: float = Field(default=0.005, gt=0, lt=1,
                                  description="evidence carried across nights (e-values) accepts at 1/this")
    evidence_odds: float = Field(default=4.0, gt=1, le=1000,
                                 description="the odds ratio of a pass after an edit that the e-values across nights bet on")
    min_effect: float = Field(default=0.25, gt=0, le=1,
                              description="a refused edit that rules out this gain is not proposed again")
    harm_max_tasks: int = Field(default=64, ge=1, description="other tasks a harm test replays, at most")
    holdout_fraction: float = Field(default=0.35, gt=0, lt=1,
                                    description="share of tasks never shown to the optimizer (fixed per task)")
    max_error_rate: float = Field(default=0.3, ge=0, le=1, description="more errored rollouts than this: no evidence")
    max_tasks: int = Field(default=200, ge=1, description="tasks a night works on, at most")
    recall: int = Field(default=40, ge=0, description="older tasks recalled next to the new ones, at most")
    reflect_tasks: int = Field(default=6, ge=1, le=100, description="cases the optimizer is shown a round")
    seed: int = Field(default=0, description="the same seed, tasks, files and backend give the same night")
    auto_adopt: bool = Field(default=False, description="adopt accepted proposals without review; rollback still works")
    batch: bool = Field(
        default=False, description="the night's calls through the provider's batch API: half price, results within "
        "24 hours (usually minutes); off, scheduled nights too, so the proposal is ready by morning")
    batch_poll_s: float = Field(default=30.0, gt=0, le=3600, description="seconds between two looks at a running batch")
    allocation: Literal["lean", "classic"] = Field(default="lean", description=(
        "lean: tests start small and stop once decided, harm checked on the accepted edits together; "
        "classic: every look full, harm checked edit by edit"))
    replay: Literal["auto", "text", "agent"] = Field(
        default="auto", description="auto: tasks with action checks replayed by the real agent in a sandboxed copy "
        "of the project (needs bubblewrap), else as text; agent: every agent task so; text: never")
    agent_timeout_s: float = Field(default=600.0, gt=0, le=7200, description="wall-time limit of one agent rollout")
    agent_max_turns: int = Field(default=30, ge=1, le=500, description="turn limit of one agent rollout (claude --max-turns)")


class Price(_Section):
    """USD per million tokens. ``cache_write`` / ``cache_read``: input written to / read from the
    prompt cache (unset: Anthropic's 1.25x / 0.1x of input for Claude models, OpenAI's cached
    price for its models, else the input price)."""

    input: float = Field(ge=0, description="USD per million input tokens")
    output: float = Field(ge=0, description="USD per million output tokens")
    cache_write: float | None = Field(default=None, ge=0, description="USD per million tokens written to the cache")
    cache_read: float | None = Field(default=None, ge=0, description="USD per million tokens read from the cache")
    cache_write_1h: float | None = Field(
        default=None, ge=0, description="USD per million tokens written to the one-hour cache (unset: 2x input for Claude)")


class BudgetSettings(_Section):
    """Per-night spending limits, checked before every model call. None: no limit."""

    max_calls: int | None = Field(default=2000, ge=1, description="model calls a night, at most")
    # a 40-task night with a 5,000-token skill and memory sends about 5M tokens, most of them
    # cached; money is what max_cost_usd bounds, tokens only a runaway night
    max_tokens: int | None = Field(default=15_000_000, ge=1, description="tokens a night, at most (a runaway's bound)")
    max_cost_usd: float | None = Field(default=5.0, ge=0, description="a night stops cleanly before it would spend more")
    prices: dict[str, Price] = Field(
        default_factory=dict, description="USD per million tokens, by model (cache_write / cache_read: cached input)")


class FilesSettings(_Section):
    """Which files a night may change, relative to the project root."""

    skill: str | None = Field(
        default=None, description="the skill file, relative to the project; default: its single skill, else "
        ".claude/skills/project/SKILL.md")
    memory: list[str] = Field(default_factory=lambda: ["CLAUDE.md", "AGENTS.md"],
                              description="the memory files a rule is written into, once each")
    max_bytes: dict[str, int] = Field(description="size caps; Codex cuts AGENTS.md at 32 KiB", default_factory=lambda: {
        "AGENTS.md": 32 * 1024, "CLAUDE.md": 40 * 1024, "SKILL.md": 24 * 1024})
    max_rules: int = Field(default=30, ge=1, description="learned rules a file's managed block may hold")


_SOURCES: tuple[Literal["claude-code", "codex"], ...] = ("claude-code", "codex")


class HarvestSettings(_Section):
    """Where the day's tasks come from."""

    lookback_days: int = Field(default=7, ge=1, le=3650, description="sessions older than this are not read")
    all_projects: bool = Field(default=False, description="harvest every project, not only the current one")
    sources: list[Literal["claude-code", "codex"]] = Field(
        default_factory=lambda: list(_SOURCES), description="the agents whose sessions are read")
    claude_config_dir: str | None = Field(default=None, description="default: $CLAUDE_CONFIG_DIR, else ~/.claude")
    codex_home: str | None = Field(default=None, description="default: $CODEX_HOME, else ~/.codex")
    llm_checks: int = Field(
        default=20, ge=0, le=1000, description="model calls a harvest may make to mine checks from corrections the "
        "heuristics could not read (only when roles.optimizer.backend is set); 0: heuristics only")
    llm_classify: bool = Field(
        default=False, description="ask the judge backend what a user turn is when the rules cannot tell; off: "
        "unsure turns are kept and marked unsure")
    llm_classify_calls: int = Field(default=50, ge=0, le=5000, description="at most this many of those calls a run")


class ScheduleSettings(_Section):
    """When the nightly run starts, and how."""

    cron: str = Field(default="17 3 * * *", description="when the nightly run starts (cron syntax, local time)")
    method: Literal["auto", "crontab", "systemd", "launchd", "schtasks", "loop"] = Field(
        default="auto", description="the scheduler: auto picks the system's own")
    projects: list[str] = Field(default_factory=list, description="the projects the nightly run works on")


class Settings(_Section):
    """All settings. Build with :func:`load_settings`; ``Settings()`` gives the defaults."""

    night: NightSettings = Field(default_factory=NightSettings, description="one night")
    roles: RolesSettings = Field(default_factory=RolesSettings, description="the backends")
    budget: BudgetSettings = Field(default_factory=BudgetSettings, description="a night's spending limits")
    files: FilesSettings = Field(default_factory=FilesSettings, description="the files a night may change")
    harvest: HarvestSettings = Field(default_factory=HarvestSettings, description="the day's tasks")
    schedule: ScheduleSettings = Field(default_factory=ScheduleSettings, description="the nightly run")


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


def load_what_loads(layers: list[Layer]) -> tuple[LoadedSettings, ConfigError | UsageError | None]:
    """The settings, or, when some are wrong, the settings without each value that fails on its
    own, and the first error: what ``config show`` prints, so a user sees the problem in place."""
    try:
        return load_settings(layers), None
    except (ConfigError, UsageError) as exc:
        problem = exc
    kept = []
    for layer in layers:
        values: dict[str, Any] = {}
        for dotted, value in _flatten(layer.values).items():
            try:
                load_settings([Layer(layer.name, layer.origin, _nested(dotted, value))])
            except (ConfigError, UsageError):
                continue
            values = _deep_merge(values, _nested(dotted, value))
        kept.append(Layer(layer.name, layer.origin, values))
    return load_settings(kept), problem


def _nested(dotted: str, value: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    _set_dotted(out, dotted.split("."), value)
    return out


def _config_error(exc: ValidationError, sources: Mapping[str, str]) -> ConfigError | UsageError:
    err = exc.errors()[0]
    dotted = ".".join(str(p) for p in err["loc"])
    origin = _origin_of(dotted, sources)
    if origin == "flag":  # a flag's value is the command line's fault, not a setting's
        return UsageError(f"invalid value {dotted} = {err.get('input')!r} from the command line: "
                          f"{err['msg']}", hint="fix the command-line flag")
    where = _origin_text(origin)
    if err["type"] == "extra_forbidden" and dotted in RETIRED:
        return ConfigError(f"setting {dotted} from {origin} is retired: {RETIRED[dotted]}",
                           hint=f"remove it ({_where_to_fix(dotted, origin)})")
    if err["type"] == "extra_forbidden":
        return _unknown_key(dotted, origin, where, sources)
    fix = _where_to_fix(dotted, origin)
    return ConfigError(
        f"invalid setting {dotted} = {err.get('input')!r} from {where}: {err['msg']}", hint=fix
    )


def _origin_of(dotted: str, sources: Mapping[str, str]) -> str:
    """Where ``dotted`` (a key, or a whole section) was set."""
    if dotted in sources:
        return sources[dotted]
    inside = sorted(src for key, src in sources.items() if key.startswith(dotted + "."))
    return next((src for src in inside if src != "default"), "default")


def _origin_text(origin: str) -> str:
    """``user (/x/config.toml)`` -> ``/x/config.toml``; ``env`` -> ``the environment``."""
    if "(" in origin:
        return origin[origin.index("(") + 1 : -1]
    return {"env": "the environment", "flag": "the command line"}.get(origin, origin)


def _unknown_key(dotted: str, origin: str, where: str, sources: Mapping[str, str]) -> ConfigError:
    sections = sorted(Settings.model_fields)
    if "." not in dotted:
        close = difflib.get_close_matches(dotted, sections, n=1)
        what, guess = f"section [{dotted}]", f"did you mean [{close[0]}]? " if close else ""
        env_key = next((k for k, src in sorted(sources.items()) if k.startswith(dotted + ".") and src == "env"),
                       dotted)
    else:
        close = difflib.get_close_matches(dotted, _known_keys(), n=1)
        what, guess, env_key = f"setting {dotted}", f"did you mean {close[0]}? " if close else "", dotted
    return ConfigError(f"unknown {what} in {where}", hint=guess + _where_to_fix(env_key, origin))


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
