"""The installer's options, shared by `skillopt-sleep setup` and `python -m skillopt_sleep.setup`
(which the install scripts run)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from .agent_plugins import parse_agents

DESCRIPTION = (
    "Install skillopt-sleep from a checkout: the engine (pipx, else uv, else a private "
    "virtual environment), the Claude Code plugin, the Codex skill and the Copilot CLI, "
    "OpenCode, Gemini CLI, Qwen Code and Pi plugins for the agents found here, and, if "
    "asked, the nightly schedule. Every change goes into a manifest, so --uninstall "
    "removes exactly those."
)


@dataclass(frozen=True)
class Options:
    """What the user asked for; ``claude``, ``codex`` and ``schedule`` are yes, no or auto/ask."""

    dry_run: bool = False
    uninstall: bool = False
    schedule: str = "ask"
    yes: bool = False
    tool: str | None = None
    claude: str = "auto"
    codex: str = "auto"
    package: str | None = None
    source: Path | None = None
    agents: tuple[str, ...] | None = None  # the newer agents; None: each one found here


def add_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dry-run", action="store_true", help="say what it would do, change nothing")
    p.add_argument(
        "--uninstall",
        action="store_true",
        help="remove exactly what the installation added (the task log stays)",
    )
    p.add_argument(
        "--schedule",
        dest="schedule",
        action="store_const",
        const="yes",
        default="ask",
        help="also schedule the nightly run",
    )
    p.add_argument(
        "--no-schedule",
        dest="schedule",
        action="store_const",
        const="no",
        help="do not schedule it, and do not ask",
    )
    p.add_argument("--yes", "-y", action="store_true", help="ask nothing")
    p.add_argument(
        "--with",
        dest="tool",
        choices=("pipx", "uv", "venv", "pip"),
        help="how to install the engine (default: pipx, else uv, else venv)",
    )
    for agent in ("claude", "codex"):
        p.add_argument(
            f"--{agent}",
            dest=agent,
            action="store_const",
            const="yes",
            default="auto",
            help=f"install for {agent} even if it is not found",
        )
        p.add_argument(
            f"--no-{agent}",
            dest=agent,
            action="store_const",
            const="no",
            help=f"do not install for {agent}",
        )
    _add_agents(p)
    p.add_argument(
        "--package",
        metavar="SPEC",
        help="install this wheel or requirement instead of building one from the checkout",
    )
    p.add_argument(
        "--source",
        metavar="DIR",
        type=Path,
        help="the skillopt-sleep checkout (default: the one this runs from)",
    )


def _add_agents(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--agents",
        metavar="NAMES",
        help="install the plugin of these agents only (comma-separated: copilot, opencode, "
        "gemini, qwen, pi; or none); default: each one found here",
    )


def options_from(ns: argparse.Namespace) -> Options:
    return Options(
        dry_run=ns.dry_run,
        uninstall=ns.uninstall,
        schedule=ns.schedule,
        yes=ns.yes,
        tool=ns.tool,
        claude=ns.claude,
        codex=ns.codex,
        package=ns.package,
        source=ns.source,
        agents=None if ns.agents is None else parse_agents(ns.agents),
    )


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message, hint=f"see `{self.prog} --help`")


def parse(argv: list[str], prog: str) -> Options:
    p = _Parser(prog=prog, description=DESCRIPTION)
    add_options(p)
    return options_from(p.parse_args(argv))
