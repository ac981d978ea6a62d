"""Commands: config show | path | init — the effective settings and where each came from."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from .common import add_backend_flags, add_project_flag, backend_flags
from .context import Ctx

if TYPE_CHECKING:
    pass


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser("config", help="show the effective settings, their files, a starter")
    actions = p.add_subparsers(
        dest="config_command", metavar="ACTION", required=True, parser_class=type(p)
    )
    show = actions.add_parser(
        "show", parents=[common], help="every effective setting and where it came from"
    )
    add_project_flag(show)
    add_backend_flags(show)
    show.set_defaults(func=show_cmd)
    path = actions.add_parser("path", parents=[common], help="where the config files are")
    add_project_flag(path)
    path.set_defaults(func=path_cmd)
    init = actions.add_parser(
        "init", parents=[common], help="write a commented starter user config"
    )
    init.set_defaults(func=init_cmd)


def _value_at(data: dict[str, Any], dotted: str) -> Any:
    for part in dotted.split("."):
        data = data[part]
    return data


def _source_text(dotted: str, source: str) -> str:
    from ..settings import ENV_PREFIX

    if source == "env":
        return f"env {ENV_PREFIX}{'__'.join(p.upper() for p in dotted.split('.'))}"
    return source


def show_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..backends.registry import backend_class, known_backends
    from ..harvest.agents import names
    from ..settings import PROJECT_FILE, load_what_loads, settings_layers
    from ..settings.template import toml_value

    project = ctx.project(args.project)
    layers = settings_layers(
        config_file=ctx.read_paths.config_file,
        project=project,
        env=ctx.env,
        flags=backend_flags(args),
        cwd=ctx.cwd,
    )
    loaded, problem = load_what_loads(layers, agents=names())
    for role in ("target", "optimizer", "judge"):
        name = getattr(loaded.settings.roles, role).backend
        if name is not None and name not in known_backends():
            backend_class(name)  # raises the one-line ConfigError that lists the choices
    values = loaded.settings.model_dump(mode="json")
    rows = {
        key: (_value_at(values, key), _source_text(key, src))
        for key, src in sorted(loaded.sources.items())
    }
    payload = {
        "problem": problem.one_line() if problem else None,
        "project": str(project),
        "files": {"user": str(ctx.read_paths.config_file), "project": str(project / PROJECT_FILE)},
        "settings": {key: {"value": value, "source": src} for key, (value, src) in rows.items()},
    }
    shown = {
        key: ("(unset)" if value is None else toml_value(value)) for key, (value, _) in rows.items()
    }
    width = max(len(f"{k} = {v}") for k, v in shown.items())
    lines = [f"{f'{key} = {shown[key]}':<{width}}  # {src}" for key, (_, src) in rows.items()]
    ctx.emit(payload, "\n".join(lines))
    if problem is not None:  # shown last, where the eye lands, and as the exit code
        ctx.err.write(f"skillopt-sleep: error: {problem.one_line()}\n")
        return problem.exit_code
    return 0


def path_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..settings import PROJECT_FILE

    project = ctx.project(args.project)
    entries = {
        "user config": ctx.read_paths.config_file,
        "project config": project / PROJECT_FILE,
        "secrets file": ctx.read_paths.env_file,
        "database": ctx.read_paths.db,
        "nights": ctx.read_paths.nights_dir,
        "backups": ctx.read_paths.backups_dir,
        "logs": ctx.read_paths.log_dir,
    }
    payload = {
        key.replace(" ", "_"): {"path": str(p), "exists": p.exists()} for key, p in entries.items()
    }
    lines = [
        f"{key + ':':<16}{p}" + ("" if p.exists() else "  (not created yet)")
        for key, p in entries.items()
    ]
    ctx.emit(payload, "\n".join(lines))
    return 0


def init_cmd(args: argparse.Namespace, ctx: Ctx) -> int:
    from ..settings.template import starter_config
    from ..store.files import atomic_write_text

    path = ctx.paths.config_file
    if path.exists():
        ctx.emit(
            {"path": str(path), "written": False},
            f"{path} already exists; left as it is (`skillopt-sleep config show` prints what it sets)",
        )
        return 0
    atomic_write_text(path, starter_config(), mode=0o644)
    ctx.emit(
        {"path": str(path), "written": True},
        f"wrote {path}: every setting is commented out at its default; uncomment what you want to change",
    )
    return 0
