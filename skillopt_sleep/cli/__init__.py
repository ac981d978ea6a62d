"""The command line: argparse, one module per command group, errors mapped to exit codes here.

This package is the only place that reads ``os.environ``; it hands a snapshot to everything else.

SIGTERM (and SIGHUP) end a command the way Ctrl-C does. Python's default for SIGTERM is to die on
the spot: no ``finally`` runs, so the agent CLIs a night started (each in its own process group)
would keep running, and their private homes would stay on disk. Here SIGTERM is turned into the
interrupt Ctrl-C sends: a running night's event loop cancels its replays, the runner kills each
child's process group, and every temporary directory is removed on the way out. The exit code
then says which signal it was.

Every command's ``--help`` has a description and an example (:data:`EXAMPLES`), filled in once
for all the command modules when the parser is built, so a new command without an example fails
its test rather than ships.

Building the parser imports every command module (the overall help lists them all), so a command
module imports at its top only what registering its flags needs; what its handlers run (a night,
the schedulers, training, the store) is imported inside the handlers, and the names that only
type it under ``TYPE_CHECKING``. tests/test_cli_startup.py holds which commands load what.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import io
import os
import signal
import sys
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import TextIO

from .. import __version__
from ..clock import Clock, SystemClock
from ..errors import INTERNAL_ERROR_EXIT, SleepError, StoreNotWritable, UsageError
from ..paths import in_sandbox
from .terminal import printable

# Each module has ``register(subparsers, common)`` adding its commands with ``func=handler``;
# a handler is ``handler(args, ctx) -> int``.
COMMAND_MODULES = {
    "night_cmds": ("demo", "run", "dry-run"),
    "status_cmd": ("status",),
    "review_cmds": ("review", "adopt", "reject", "rollback"),
    "tasks_cmds": ("tasks",),
    "config_cmd": ("config",),
    "harvest_cmds": ("log", "harvest"),
    "doctor_cmd": ("doctor",),
    "schedule_cmds": ("schedule", "unschedule"),
    "setup_cmd": ("setup",),
    "train_cmds": ("train",),
    "rules_cmd": ("rules", "report"),
    "nudge_cmd": ("nudge",),
}


# One example (or two) per command, as a user would type it.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "run": ("skillopt-sleep run --estimate", "skillopt-sleep run --backend anthropic"),
    "dry-run": ("skillopt-sleep dry-run --backend simulated",),
    "demo": ("skillopt-sleep demo --dir /tmp/sleep-demo",),
    "status": ("skillopt-sleep status", "skillopt-sleep status --all-projects --json"),
    "review": ("skillopt-sleep review", "skillopt-sleep review 20261124-031702 --color never"),
    "adopt": ("skillopt-sleep adopt",),
    "reject": ("skillopt-sleep reject",),
    "rollback": ("skillopt-sleep rollback", "skillopt-sleep rollback 20261124-0317 --force"),
    "tasks": ("skillopt-sleep tasks list",),
    "tasks add": ("skillopt-sleep tasks add --intent 'Run the tests' --check 'contains=passed'",),
    "tasks import": ("skillopt-sleep tasks import tasks.jsonl",),
    "tasks list": ("skillopt-sleep tasks list --all-projects",),
    "tasks show": ("skillopt-sleep tasks show t_1a2b",),
    "tasks rm": ("skillopt-sleep tasks rm t_1a2b",),
    "config": ("skillopt-sleep config show",),
    "config show": ("skillopt-sleep config show --backend openai",),
    "config path": ("skillopt-sleep config path",),
    "config init": ("skillopt-sleep config init",),
    "log": ("skillopt-sleep log < hook-payload.json",),
    "nudge": ("skillopt-sleep nudge", "skillopt-sleep nudge --for claude-code < hook-payload.json"),
    "harvest": ("skillopt-sleep harvest", "skillopt-sleep harvest --all-projects"),
    "doctor": ("skillopt-sleep doctor", "skillopt-sleep doctor --backend codex --json"),
    "schedule": ("skillopt-sleep schedule --time 03:17", "skillopt-sleep schedule --print"),
    "schedule status": ("skillopt-sleep schedule status --ack",),
    "schedule run": ("skillopt-sleep schedule run --once",),
    "schedule run-job": ("skillopt-sleep schedule run-job --project ~/work/app",),
    "unschedule": ("skillopt-sleep unschedule",),
    "train": (
        "skillopt-sleep train train.jsonl --skill SKILL.md --out /tmp/train-one --epochs 2 --steps-per-epoch 3",
        "skillopt-sleep train stage /tmp/train-one --project ~/work/app",
    ),
    "rules": ("skillopt-sleep rules", "skillopt-sleep rules --json"),
    "rules remove": ("skillopt-sleep rules remove r1a2b3c4d",),
    "report": ("skillopt-sleep report", "skillopt-sleep report --out /tmp/sleep-history.html"),
}


def commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> list[tuple[str, argparse.ArgumentParser, str]]:
    """Every (sub)command as ``(path, parser, one-line help)``, depth first."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {c.dest: c.help or "" for c in action._choices_actions}
            for name, sub in action.choices.items():
                key = (*path, name)
                found.append((" ".join(key), sub, helps.get(name, "")))
                found += commands(sub, key)
    return found


def finish_help(parser: argparse.ArgumentParser) -> None:
    """Give every subcommand a description (its one-line help, as a sentence, when it has none)
    and its examples."""
    for path, sub, help_line in commands(parser):
        if not sub.description and help_line:
            sub.description = help_line[0].upper() + help_line[1:] + "."
        examples = EXAMPLES.get(path, ())
        if examples:
            sub.epilog = "example:\n" + "\n".join(f"  {e}" for e in examples)
            sub.formatter_class = argparse.RawDescriptionHelpFormatter


class _Parser(argparse.ArgumentParser):
    """argparse that raises a one-line UsageError instead of printing usage and exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        if "invalid choice" in message and self._commands():
            bad = message.split("'")[1] if "'" in message else ""
            choices = sorted(self._commands())
            close = difflib.get_close_matches(bad, choices, n=1)
            hint = f"did you mean `{close[0]}`? " if close else ""
            raise UsageError(f"unknown command {bad!r}", hint=f"{hint}see `skillopt-sleep --help`")
        # The one prefix is the CLI's ("skillopt-sleep: error: "); the command is in the hint.
        raise UsageError(message, hint=f"see `{self.prog} --help`")

    def _commands(self) -> list[str]:
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return list(action.choices)
        return []


def _command_parser(
    parser: argparse.ArgumentParser, argv: Sequence[str]
) -> argparse.ArgumentParser:
    """The (sub)command parser that ``argv`` names, the deepest one."""
    words = iter(a for a in argv if not a.startswith("-"))
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            name = next(words, None)
            if name in action.choices:
                sub = action.choices[name]
                return _command_parser(sub, argv[list(argv).index(name) + 1 :])
    return parser


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    args, extra = parser.parse_known_args(argv)
    if extra:
        prog = _command_parser(parser, argv).prog
        raise UsageError(f"unrecognized arguments: {' '.join(extra)}", hint=f"see `{prog} --help`")
    return args


def _modules_for(argv: Sequence[str] | None) -> list[str]:
    """Only the module of the command being run, for the command and for its help, so that `log`
    (run at every session end) and a command's `--help` start fast; none for `--version`; every
    module for the overall help and for anything unrecognised (to suggest a command)."""
    args = set(argv or ())
    first = next((a for a in argv or () if not a.startswith("-")), None)
    if first is None and {"-V", "--version"} & args and not {"-h", "--help"} & args:
        return []
    for module, names in COMMAND_MODULES.items():
        if first in names:
            return [module]
    return list(COMMAND_MODULES)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print one JSON document")
    common.add_argument("-q", "--quiet", action="store_true", help="no progress output (for cron)")
    common.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    parser = _Parser(
        prog="skillopt-sleep",
        description="A nightly sleep for your coding agent: learn from the day's tasks, safely.",
    )
    parser.add_argument(
        "-V", "--version", action="version", version=f"skillopt-sleep {__version__}"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in _modules_for(argv):
        importlib.import_module(f"{__name__}.{name}").register(sub, common)
    finish_help(parser)
    return parser


def _open_or_nowhere(stream: TextIO | None) -> TextIO:
    """``stream``, or a sink when its file is closed: a process started with its standard streams
    closed has None here, or a stream whose descriptor is gone. Writing to nowhere rather than
    failing keeps the SessionEnd hook's exit 0 whatever its caller left open (a buffered write to
    a closed descriptor fails only when the interpreter flushes it at exit, with status 120)."""
    if stream is None:
        return io.StringIO()
    try:
        os.fstat(stream.fileno())
    except (OSError, ValueError):
        return io.StringIO()
    return stream


def _session_start_hook(
    argv: list[str],
    env: Mapping[str, str] | None,
    stdin: TextIO | None,
    stdout: TextIO,
    cwd: Path | None,
) -> int | None:
    """`nudge` as its hook runs it, or None for any other command: before argparse and the
    command context, whose imports (settings, store, pydantic) take longer than its budget."""
    if argv[:1] != ["nudge"]:
        return None
    from .nudge_cmd import hook_argv, run_hook

    hook = hook_argv(argv[1:])
    if hook is None:
        return None
    return run_hook(
        env=os.environ if env is None else env,
        stdin=stdin or sys.stdin or io.StringIO(),
        stdout=stdout,
        cwd=cwd or Path.cwd(),
        agent=hook[0],
        budget_ms=hook[1],
    )


def main(
    argv: Sequence[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    cwd: Path | None = None,
    clock: Clock | None = None,
) -> int:
    """Run one command; returns the process exit code. Everything outside can be injected."""
    stdout = stdout or _open_or_nowhere(sys.stdout)
    stderr = stderr or _open_or_nowhere(sys.stderr)
    argv = list(sys.argv[1:] if argv is None else argv)
    hooked = _session_start_hook(argv, env, stdin, stdout, cwd)
    if hooked is not None:
        return hooked
    debug = "--debug" in argv
    try:
        from .context import Ctx  # not at the top: the session-start hook never needs it

        parser = build_parser(argv)
        args = _parse(parser, argv)
        if not getattr(args, "command", None):
            parser.print_help(stdout)
            return 0
        ctx = Ctx(
            env=dict(os.environ if env is None else env),
            cwd=cwd or Path.cwd(),
            stdin=stdin or sys.stdin or io.StringIO(),
            out=stdout,
            err=stderr,
            json=getattr(args, "json", False),
            quiet=getattr(args, "quiet", False),
            clock=clock or SystemClock(),
        )
        if getattr(args, "repair", True):  # not the hooks: `log` spools, `nudge` only reads
            if getattr(args, "shows_repairs", False):
                ctx.repairs_said = True  # status lists the repair with its notices
            ctx.finish_interrupted()
        return int(args.func(args, ctx) or 0)
    except SleepError as exc:
        if isinstance(exc, StoreNotWritable):
            exc = in_sandbox(exc, os.environ if env is None else env)
        stderr.write(f"skillopt-sleep: error: {printable(exc.one_line())}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        stderr.write(f"skillopt-sleep: error: {interrupted_message()}\n")
        return interrupted_exit_code()
    except Exception as exc:
        if debug:
            traceback.print_exc(file=stderr)
        stderr.write(
            f"skillopt-sleep: error: internal error: {type(exc).__name__}: {printable(str(exc))} "
            "(rerun with --debug for the trace and report it)\n"
        )
        return INTERNAL_ERROR_EXIT


def entry() -> None:
    """Console-script entry point."""
    end_on_signals()
    if sys.argv[1:2] == ["nudge"]:
        from .nudge_cmd import arm_watchdog

        arm_watchdog(sys.argv[2:])
    sys.exit(main())


_received: list[int] = []


def _as_interrupt(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL, None):
        raise KeyboardInterrupt  # no Ctrl-C handler to defer to (a job started with it ignored)
    signal.raise_signal(
        signal.SIGINT
    )  # asyncio's own handler, while a night runs, cancels it cleanly


def end_on_signals() -> None:
    """Install the handlers (the console entry point does; an in-process caller keeps its own)."""
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None:
            signal.signal(sig, _as_interrupt)


def interrupted_exit_code() -> int:
    """128 + the signal that ended the command (SIGINT when none was recorded)."""
    return 128 + (_received[-1] if _received else int(signal.SIGINT))


def interrupted_message() -> str:
    if _received and _received[-1] != signal.SIGINT:
        return f"terminated by {signal.Signals(_received[-1]).name}; nothing was left running"
    return "interrupted"
