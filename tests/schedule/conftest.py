"""Fixtures for the schedule tests: a fake `crontab` program, fake hosts, a project directory."""

from __future__ import annotations

import os
import stat
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from skillopt_sleep.paths import Paths, resolve_paths
from skillopt_sleep.schedule.plan import Host
from skillopt_sleep.schedule.runner import FakeRunner, RunResult, ok
from skillopt_sleep.store import Store

# A `crontab` that behaves like cronie's for what the installer uses, storing the table in
# $FAKE_CRONTAB_FILE: `-l` prints it or says "no crontab for USER" (exit 1), `-r` removes it,
# `crontab FILE` / `crontab -` installs after the same checks the real one makes.
FAKE_CRONTAB = textwrap.dedent(
    """\
    #!{python}
    import os, re, sys
    store = os.environ["FAKE_CRONTAB_FILE"]
    user = os.environ.get("USER", "tester")
    args = sys.argv[1:]
    with open(store + ".calls", "a") as log:
        log.write(" ".join(args) + "\\n")
    if args == ["-l"]:
        if not os.path.exists(store):
            sys.stderr.write(f"no crontab for {{user}}\\n"); sys.exit(1)
        sys.stdout.write(open(store, encoding="utf-8", newline="").read()); sys.exit(0)
    if args == ["-r"]:
        if not os.path.exists(store):
            sys.stderr.write(f"no crontab for {{user}}\\n"); sys.exit(1)
        os.unlink(store); sys.exit(0)
    if len(args) != 1 or (args[0].startswith("-") and args[0] != "-"):
        sys.stderr.write("usage: crontab [file | -] | -l | -r\\n"); sys.exit(1)
    if args[0] == "-":
        text = sys.stdin.read()
    else:
        text = open(args[0], encoding="utf-8", newline="").read()
    if text and not text.endswith("\\n"):
        sys.stderr.write("new crontab file is missing newline before EOF, can't install.\\n"); sys.exit(1)
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith("#") or re.match(r"[A-Za-z_][A-Za-z0-9_]*\\s*=", s) or s.startswith("@"):
            continue
        if len(s.split(None, 5)) < 6:
            sys.stderr.write("errors in crontab file, can't install.\\n"); sys.exit(1)
    if os.environ.get("FAKE_CRONTAB_FAIL"):
        sys.stderr.write("crontab: cannot write to /var/spool/cron: Permission denied\\n"); sys.exit(1)
    with open(store, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    """
)


@dataclass
class FakeCron:
    """The fake crontab's store, and the env that puts the fake first on PATH."""

    file: Path
    env: dict[str, str]

    def read(self) -> str | None:
        return self.file.read_text(encoding="utf-8") if self.file.exists() else None

    def write(self, text: str) -> None:
        self.file.write_bytes(text.encode("utf-8"))

    def calls(self) -> list[str]:
        calls = self.file.with_name(self.file.name + ".calls")
        return calls.read_text().splitlines() if calls.exists() else []


@pytest.fixture
def fake_cron(tmp_path: Path) -> FakeCron:
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    prog = bindir / "crontab"
    prog.write_text(FAKE_CRONTAB.format(python=sys.executable))
    prog.chmod(prog.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    store = tmp_path / "crontab-store" / "tester"
    store.parent.mkdir()
    env = {
        "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
        "FAKE_CRONTAB_FILE": str(store),
        "USER": "tester",
    }
    return FakeCron(store, env)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "my project"
    p.mkdir()
    return p


@pytest.fixture
def paths(sandbox_home: Path) -> Paths:
    return resolve_paths(str(sandbox_home / "sleep-home")).ensure()


@pytest.fixture
def store(paths: Paths) -> Store:
    s = Store.open(paths.db)
    yield s
    s.close()


@pytest.fixture
def fake_host():
    """``fake_host(tmp_path, platform, programs=None)``: a Host on ``platform`` whose OS programs
    all succeed unless ``programs`` says otherwise, and its FakeRunner."""
    return _fake_host


def _fake_host(
    tmp_path: Path, platform: str, programs: dict | None = None
) -> tuple[Host, FakeRunner]:
    runner = FakeRunner(
        programs
        if programs is not None
        else {
            "systemctl": ok,
            "loginctl": lambda a, i: RunResult(0, "Linger=yes\n"),
            "launchctl": ok,
            "schtasks": ok,
        }
    )
    home = tmp_path / "userhome"
    home.mkdir(exist_ok=True)
    state = tmp_path / "state"
    state.mkdir(exist_ok=True)
    return Host(
        runner, {"HOME": str(home), "USER": "tester"}, home, state, platform, uid=501
    ), runner


@pytest.fixture
def read_line():
    """``read_line(stream, timeout=20)``: one line from a child's pipe, failing instead of hanging."""
    import threading

    def read(stream, timeout: float = 20.0) -> str:
        box: list[str] = []
        reader = threading.Thread(target=lambda: box.append(stream.readline()), daemon=True)
        reader.start()
        reader.join(timeout)
        if reader.is_alive():
            pytest.fail(f"no output from the child within {timeout:.0f} s")
        return box[0]

    return read
