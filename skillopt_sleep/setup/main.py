"""The installer's steps in order, and its entry point for the install scripts.

The last step is the nightly schedule, installed through the engine's own `schedule` command. A
schedule that cannot be installed (no backend yet, no scheduler) is skipped with the reason, never
a failed install: the rest works, and `skillopt-sleep schedule` can be run once the reason is
fixed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from .. import __version__
from ..errors import SleepError
from .agent_plugins import install_agent_plugins
from .claude import install_claude
from .codex import install_codex
from .command_path import Verified, ensure_on_path, link_command, verify
from .commands import Commands, SubprocessCommands, child_env, neutral_dir
from .context import Ctx, SetupFailed
from .engine import EngineRequest, check_route, checkout_version, install_engine
from .layout import NAME, Layout, engine_dirs, layout_for
from .manifest import Manifest
from .options import Options, parse
from .tree import missing_dirs, remove_deepest_first
from .uninstall import uninstall


def main(
    argv: list[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    commands: Commands | None = None,
    out: TextIO | None = None,
    layout: Layout | None = None,
) -> int:
    """`python -m skillopt_sleep.setup`: returns the exit code; errors are one line on stderr."""
    prog = (env or os.environ).get("SKILLOPT_SLEEP_INSTALLER") or f"{NAME} setup"
    try:
        opts = parse(list(sys.argv[1:] if argv is None else argv), prog)
        return run(
            opts, env=os.environ if env is None else env, commands=commands, out=out, layout=layout
        )
    except SleepError as exc:
        print(f"{prog}: error: {exc.one_line()}", file=sys.stderr)
        return exc.exit_code


def run(
    opts: Options,
    *,
    env: Mapping[str, str],
    commands: Commands | None = None,
    out: TextIO | None = None,
    layout: Layout | None = None,
    interactive: bool | None = None,
) -> int:
    """Install (or uninstall) as ``opts`` say; raises a SleepError on failure."""
    env = child_env(env)
    lay = layout or layout_for(env)
    ctx = Ctx(
        lay,
        env,
        commands or SubprocessCommands(),
        Manifest(lay.manifest, dry=opts.dry_run),
        dry=opts.dry_run,
        out=out or sys.stdout,
        cwd=neutral_dir(),
    )
    if opts.dry_run:
        ctx.say("dry run: nothing will change")
    if opts.uninstall:
        uninstall(ctx)
        return 0
    source = _checkout(opts.source)
    version = checkout_version(source) if source else __version__
    request = EngineRequest(sys.executable, version, source, opts.package, opts.tool)
    check_route(ctx, request)
    _open_manifest(ctx)
    engine = install_engine(ctx, request)
    path_note = _command(ctx, engine)
    # Nothing more is installed for an engine that does not run.
    checked = None if ctx.dry else verify(ctx, engine)
    for agent, want, binary, config in (
        ("claude code", opts.claude, "claude", lay.claude_dir),
        ("codex", opts.codex, "codex", lay.codex_dir),
    ):
        if not _want(ctx, want, binary, config):
            ctx.say(f"{agent}: not found; skipped")
            continue
        if source is None:
            raise SetupFailed(
                f"the {agent} plugin files come with a checkout",
                hint="run sh install/install.sh from a skillopt-sleep checkout",
            )
        (install_claude if binary == "claude" else install_codex)(ctx, source)
    install_agent_plugins(ctx, source, opts.agents)
    tty = sys.stdin.isatty() if interactive is None else interactive
    install_schedule(ctx, engine, want_schedule(ctx, opts.schedule, yes=opts.yes, interactive=tty))
    _close(ctx, checked, path_note)
    return 0


def _checkout(given: Path | None) -> Path | None:
    """The checkout to install from: the one given, else the one this code runs from, if any."""
    root = given.resolve() if given else Path(__file__).resolve().parents[2]
    if (
        (root / "pyproject.toml").is_file()
        and (root / "skillopt_sleep").is_dir()
        and (root / "plugins").is_dir()
    ):
        return root
    if given:
        raise SetupFailed(
            f"{given} is not a skillopt-sleep checkout (no pyproject.toml, "
            "skillopt_sleep/ and plugins/)",
            hint="pass the directory you cloned",
        )
    return None


def _open_manifest(ctx: Ctx) -> None:
    created = missing_dirs(ctx.layout.state_dir)
    if ctx.dry:
        for d in created:
            ctx.say(f"would create: {d}")
        return
    ctx.layout.state_dir.mkdir(parents=True, exist_ok=True)
    if not ctx.manifest.exists():
        ctx.manifest.path.touch()
        for d in created:
            ctx.manifest.add("dir", d)


def _command(ctx: Ctx, engine: Path | None) -> str:
    """Record the engine for the launcher, put the command on PATH; the note for the user."""
    if engine is None:
        return ensure_on_path(ctx) if ctx.dry else ""
    record = ctx.layout.engine_record
    if not ctx.dry and (
        not record.exists() or record.read_text(encoding="utf-8").strip() != str(engine)
    ):
        ctx.make_dirs(record.parent)
        if not record.exists():
            ctx.manifest.add("file", record)
        record.write_text(f"{engine}\n", encoding="utf-8")
    if ctx.manifest.has("package", "venv"):
        link_command(ctx, engine)
    return ensure_on_path(ctx)


def _want(ctx: Ctx, want: str, binary: str, config: Path) -> bool:
    if want != "auto":
        return want == "yes"
    return ctx.which(binary) is not None or config.is_dir()


def _close(ctx: Ctx, checked: Verified | None, path_note: str) -> None:
    """The last line is a command that runs in this terminal, as printed."""
    for note in (path_note, checked.note if checked else ""):
        if note:
            ctx.say(note)
    if checked is None:
        ctx.say("dry run: nothing was changed")
    else:
        ctx.say(f"done: {NAME} {checked.version}. Check it with: {checked.typed} doctor")


def want_schedule(ctx: Ctx, choice: str, *, yes: bool, interactive: bool) -> bool:
    """``choice`` is yes, no or ask; asking happens only on a terminal, never under a dry run."""
    if choice != "ask":
        return choice == "yes"
    if yes or ctx.dry or not interactive:
        return False
    ctx.out.write("Schedule the nightly run now? [y/N] ")
    ctx.out.flush()
    return sys.stdin.readline().strip().lower().startswith("y")


def install_schedule(ctx: Ctx, engine: Path | None, wanted: bool) -> str:
    """Returns how it went, for the closing line: installed, kept, skipped or not asked."""
    if ctx.manifest.has("schedule", "yes"):
        ctx.say(f"schedule: already installed (see: {NAME} schedule status)")
        return "kept"
    if not wanted:
        ctx.say(f"schedule: not installed; run '{NAME} schedule' when you want the nightly run")
        return "not asked"
    if ctx.dry:
        ctx.say(f"would run: {engine or NAME} schedule")
        return "would install"
    if engine is None:
        ctx.say(f"schedule: skipped: no engine command found; run '{NAME} schedule' yourself")
        return "skipped"
    fresh = [
        d for p in engine_dirs(ctx.layout, ctx.env, sys.platform).values() for d in missing_dirs(p)
    ]
    done = ctx.run([engine, "schedule"], timeout=120)
    if not done.ok:
        # What the failed command created is ours to take away again (empty directories).
        remove_deepest_first({d for d in fresh if d.is_dir()})  # rmdir: only when empty
        ctx.say(f"schedule: skipped: {done.last_line()}")
        ctx.say(f"  the rest is installed; run '{NAME} schedule' once that is fixed")
        return "skipped"
    ctx.manifest.add("schedule", "yes", engine)
    return "installed"
