"""What every step of the installer shares: where things go, the environment, the runner, the
manifest, and how it speaks."""

from __future__ import annotations

import shlex
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from ..errors import SleepError
from .commands import Commands, Done
from .layout import Layout
from .manifest import Manifest
from .tree import missing_dirs


class SetupFailed(SleepError):
    """A step of the installation failed; what is done so far stays in the manifest."""


@dataclass
class Ctx:
    """The installer's collaborators, built once by :func:`main.main`."""

    layout: Layout
    env: Mapping[str, str]
    commands: Commands
    manifest: Manifest
    dry: bool = False
    out: TextIO = field(default_factory=lambda: sys.stdout)
    cwd: Path | None = None  # where commands run unless one names its own

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def which(self, name: str) -> str | None:
        return shutil.which(name, path=self.env.get("PATH", ""))

    def run(
        self,
        argv: Sequence[str | Path],
        *,
        timeout: float = 600.0,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> Done:
        """Run a command that changes something: printed first; only printed under a dry run."""
        args = [str(a) for a in argv]
        if self.dry:
            self.say(f"would run: {shlex.join(args)}")
            return Done(0)
        self.say(f"+ {shlex.join(args)}")
        return self.ask(args, timeout=timeout, env=env, cwd=cwd)

    def ask(
        self,
        argv: Sequence[str | Path],
        *,
        timeout: float = 600.0,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> Done:
        """Run a command that only reads (also under a dry run); a missing program is exit 127."""
        where = cwd or self.cwd
        try:
            return self.commands.run(
                [str(a) for a in argv],
                env=env or self.env,
                cwd=str(where) if where else None,
                timeout=timeout,
            )
        except FileNotFoundError:
            return Done(127, stderr=f"{argv[0]}: not found")
        except TimeoutError as exc:
            return Done(124, stderr=str(exc), timed_out=True)

    def must(self, done: Done, what: str, stuck: str | None = None) -> Done:
        """``done``, or SetupFailed naming what failed; ``stuck``: the fix when it timed out."""
        if done.timed_out and stuck:
            raise SetupFailed(f"{what} failed: {done.last_line()}", hint=stuck)
        if not done.ok:
            raise SetupFailed(
                f"{what} failed: {done.last_line()}",
                hint="fix that and run the installer again; what is done is kept",
            )
        return done

    def make_dirs(self, path: Path) -> None:
        """``mkdir -p`` that records every directory it creates, so uninstall removes it."""
        for d in missing_dirs(path):
            if self.dry:
                self.say(f"would create: {d}")
                continue
            d.mkdir()
            self.record_dir(d)

    def expect_dirs(self, path: Path) -> None:
        """Record the directories another tool is about to create under ``path``."""
        for d in missing_dirs(path):
            self.record_dir(d)

    def record_dir(self, d: Path) -> None:
        if not self.manifest.has("dir", str(d)):
            self.manifest.add("dir", d)
