"""Where settings come from and how they merge: the TOML files, the environment and the flags,
layered lowest first, validated once, each value traced to its origin for ``config show``.

A setting that names a path is read where it was written: a relative one from the folder of the
config file that set it (from the working directory for the environment and the flags), so it
does not move with the directory a command runs in; what it names is checked as the settings
load (``[night] prompts``: a directory of prompt files), before a command writes anything.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import ConfigError, InputError, UsageError
from .env_values import aliases, env_value
from .gate import PRESETS, GateSettings
from .prompts import prompt_files
from .sections import ENV_PREFIX, PROJECT_FILE, LayerName, Settings
from .training import RENAMED as TRAIN_RENAMED

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10
    import tomli as tomllib


@dataclass(frozen=True)
class Layer:
    """One source of settings: its name, where it came from, its nested values, and the folder a
    relative path among them is read from (None: the process's working directory)."""

    name: LayerName
    origin: str
    values: Mapping[str, Any]
    base: Path | None = None


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
        raise ConfigError(
            f"cannot read {path}: {exc.strerror}", hint="check its permissions"
        ) from exc
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}", hint=f"fix or remove {path}") from exc
    return Layer(name, str(path), data, path.parent)


def env_layer(env: Mapping[str, str], base: Path | None = None) -> Layer:
    """``SKILLOPT_SLEEP_NIGHT__K=2`` -> ``{"night": {"k": 2}}``: each text read as its setting's
    type where it is one (:func:`.env_values.env_value`), lists and tables from JSON. ``base``:
    the working directory, which a relative path is read from."""
    values: dict[str, Any] = {}
    for key, raw in env.items():
        if not key.startswith(ENV_PREFIX) or "__" not in key:
            continue
        path = [p.lower() for p in key[len(ENV_PREFIX) :].split("__")]
        _set_dotted(values, path, env_value(path, raw))
    return Layer("env", "environment", values, base)


def flag_layer(flags: Mapping[str, Any], base: Path | None = None) -> Layer:
    """Flags as dotted keys (``{"night.k": 2}``); None values are flags not given. ``base``: the
    working directory, which a relative path is read from."""
    values: dict[str, Any] = {}
    for dotted, value in flags.items():
        if value is not None:
            _set_dotted(values, dotted.split("."), value)
    return Layer("flag", "command line", values, base)


def _set_dotted(target: dict[str, Any], path: list[str], value: Any) -> None:
    for part in path[:-1]:
        target = target.setdefault(part, {})
    target[path[-1]] = value


# Settings of the whole-holdout gate, which is no longer part of the product.
RETIRED = dict.fromkeys(
    (
        "night.gate",
        "night.min_gain",
        "night.max_task_drop",
        "night.gate_test",
        "night.min_holdout_tasks",
    ),
    "every edit is judged alone, where it acts: the edit-by-edit gate is the only gate",
)
# The gate spends its rollouts one way; the classic allocation is a benchmark's baseline now.
RETIRED["night.allocation"] = (
    "the gate spends its rollouts one way, lean; the classic allocation is kept in bench/ as a "
    "baseline"
)

# Settings read under another name now, refused with the new one (never read as something else).
RENAMED = {f"train.{old}": (f"train.{new}", why) for old, (new, why) in TRAIN_RENAMED.items()}

# Settings that name coding agents. The agents are the harvest's registry, a floor above: whoever
# loads the settings passes their names in (the command line does), and each name is checked.
AGENT_KEYS = ("harvest.sources", "files.agents")

_DICT_KEYS = {"budget.prices", "files.max_bytes"}  # settings whose value is itself a table
_PATH_KEYS = ("night.prompts",)  # settings that name a path, read from where they were written


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


def _alias_keys() -> dict[str, str]:
    """``train.num_epochs`` -> ``train.epochs``: a key written under another name it is read as,
    shown and traced under its own."""
    out = {}
    for section, field in Settings.model_fields.items():
        model = field.annotation
        if isinstance(model, type) and issubclass(model, BaseModel):
            for name, inner in model.model_fields.items():
                out.update({f"{section}.{a}": f"{section}.{name}" for a in aliases(inner)})
    return out


_ALIAS_KEYS = _alias_keys()


def _known_keys() -> list[str]:
    return sorted(_flatten(Settings().model_dump()))


def load_settings(layers: list[Layer], *, agents: Collection[str] | None = None) -> LoadedSettings:
    """Merge ``layers`` (lowest first) over the defaults and validate once, strictly: a file's
    ``true`` is no number and its ``"5"`` no number either (an environment variable's text was
    read as its setting's type by :func:`env_layer`). ``agents``: the coding agents' names, which
    every setting naming an agent (:data:`AGENT_KEYS`) must be one of (None: not checked)."""
    merged: dict[str, Any] = {}
    sources = dict.fromkeys(_known_keys(), "default")
    for layer in layers:
        for dotted in _flatten(layer.values):
            sources[_ALIAS_KEYS.get(dotted, dotted)] = (
                layer.name if layer.name in ("env", "flag") else f"{layer.name} ({layer.origin})"
            )
        merged = _deep_merge(merged, _anchored(layer))
    try:
        settings = Settings.model_validate(merged, strict=True)
    except ValidationError as exc:
        raise _config_error(exc, sources) from exc
    _check_prompts(settings, sources)
    if agents is not None:
        _check_agents(settings, sources, agents)
    return LoadedSettings(settings, _preset_sources(settings, sources))


def _anchored(layer: Layer) -> Mapping[str, Any]:
    """``layer``'s values, each path setting made absolute: ``~`` is the home, and a relative
    path is read from the layer's folder."""
    values = layer.values
    for dotted in _PATH_KEYS:
        section, key = dotted.split(".")
        raw = _flatten(values).get(dotted)
        if not isinstance(raw, str) or not raw:
            continue
        path = Path(raw).expanduser()
        if not path.is_absolute() and layer.base is not None:
            path = layer.base / path
        values = _deep_merge(dict(values), {section: {key: str(path)}})
    return values


def _check_prompts(settings: Settings, sources: Mapping[str, str]) -> None:
    """``[night] prompts`` names a directory of prompt files, each one a prompt's, none empty."""
    if not settings.night.prompts:
        return
    try:
        prompt_files(Path(settings.night.prompts))
    except InputError as exc:
        origin = _origin_of("night.prompts", sources)
        raise ConfigError(
            f"[night] prompts from {_origin_text(origin)}: {exc.message}",
            hint=f"{exc.hint}; {_where_to_fix('night.prompts', origin)}",
        ) from exc


def _check_agents(settings: Settings, sources: Mapping[str, str], agents: Collection[str]) -> None:
    """Every name of :data:`AGENT_KEYS` is one of ``agents``, or one line names the setting, where
    it was written and the agents there are."""
    for dotted in AGENT_KEYS:
        section, key = dotted.split(".")
        named = getattr(getattr(settings, section), key) or []
        unknown = next((name for name in named if name not in agents), None)
        if unknown is None:
            continue
        origin = _origin_of(dotted, sources)
        close = difflib.get_close_matches(unknown, list(agents), n=1)
        hint = (f"did you mean {close[0]}? " if close else "") + (
            f"choose from {', '.join(agents)}; {_where_to_fix(dotted, origin)}"
        )
        message = f"unknown agent {unknown!r} in {dotted} from {_origin_text(origin)}"
        if origin == "flag":
            raise UsageError(message, hint=hint)
        raise ConfigError(message, hint=hint)


def _preset_sources(settings: Settings, sources: dict[str, str]) -> dict[str, str]:
    """A value no layer set but the section's ``rigor`` did is shown as the preset's."""
    for section, model in settings:
        if isinstance(model, GateSettings):
            for key in PRESETS[model.rigor]:
                if sources.get(f"{section}.{key}") == "default":
                    sources[f"{section}.{key}"] = f"rigor {model.rigor}"
    return sources


def load_what_loads(
    layers: list[Layer], *, agents: Collection[str] | None = None
) -> tuple[LoadedSettings, ConfigError | UsageError | None]:
    """The settings, or, when some are wrong, the settings without each value that fails on its
    own, and the first error: what ``config show`` prints, so a user sees the problem in place.
    ``agents``: as for :func:`load_settings`."""
    try:
        return load_settings(layers, agents=agents), None
    except (ConfigError, UsageError) as exc:
        problem = exc
    kept = []
    for layer in layers:
        values: dict[str, Any] = {}
        for dotted, value in _flatten(layer.values).items():
            try:
                load_settings([replace(layer, values=_nested(dotted, value))], agents=agents)
            except (ConfigError, UsageError):
                continue
            values = _deep_merge(values, _nested(dotted, value))
        kept.append(replace(layer, values=values))
    return load_settings(kept, agents=agents), problem


def _nested(dotted: str, value: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    _set_dotted(out, dotted.split("."), value)
    return out


def _config_error(exc: ValidationError, sources: Mapping[str, str]) -> ConfigError | UsageError:
    err = exc.errors()[0]
    dotted = ".".join(str(p) for p in err["loc"])
    origin = _origin_of(dotted, sources)
    if origin == "flag":  # a flag's value is the command line's fault, not a setting's
        return UsageError(
            f"invalid value {dotted} = {err.get('input')!r} from the command line: {err['msg']}",
            hint="fix the command-line flag",
        )
    where = _origin_text(origin)
    if err["type"] == "extra_forbidden" and dotted in RETIRED:
        return ConfigError(
            f"setting {dotted} from {where} is retired: {RETIRED[dotted]}",
            hint=_where_to_remove(dotted, origin),
        )
    if err["type"] == "extra_forbidden" and dotted in RENAMED:
        new, why = RENAMED[dotted]
        return ConfigError(
            f"setting {dotted} from {where} is named {new} now: {why}",
            hint=f"write {new.split('.')[-1]} instead; {_where_to_fix(dotted, origin)}",
        )
    if err["type"] == "extra_forbidden":
        return _unknown_key(dotted, origin, where, sources)
    fix = _where_to_fix(dotted, origin)
    return ConfigError(
        f"invalid setting {dotted} = {err.get('input')!r} from {where}: {err['msg']}", hint=fix
    )


def _origin_of(dotted: str, sources: Mapping[str, str]) -> str:
    """Where ``dotted`` (a key, or a whole section) was set."""
    dotted = _ALIAS_KEYS.get(dotted, dotted)
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
        env_key = next(
            (
                k
                for k, src in sorted(sources.items())
                if k.startswith(dotted + ".") and src == "env"
            ),
            dotted,
        )
    else:
        close = difflib.get_close_matches(dotted, _known_keys(), n=1)
        what, guess, env_key = (
            f"setting {dotted}",
            f"did you mean {close[0]}? " if close else "",
            dotted,
        )
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


def _where_to_remove(dotted: str, origin: str) -> str:
    if origin == "env":
        return f"unset {ENV_PREFIX}{'__'.join(p.upper() for p in dotted.split('.'))}"
    return f"remove it from {_origin_text(origin)}"


def settings_layers(
    *,
    config_file: Path,
    project: Path | None,
    env: Mapping[str, str],
    flags: Mapping[str, Any],
    cwd: Path | None = None,
) -> list[Layer]:
    """The standard layer stack for a project; ``cwd``, the command's working directory, is where
    a relative path from the environment or a flag is read from."""
    layers = [read_toml(config_file, "user")]
    if project is not None:
        layers.append(read_toml(project / PROJECT_FILE, "project"))
    layers += [env_layer(env, cwd), flag_layer(flags, cwd)]
    return [layer for layer in layers if layer is not None]
