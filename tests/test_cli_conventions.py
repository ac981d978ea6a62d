"""What people expect of a command line: -V, one error prefix, a description and an example in
every --help, a progress with the current step and an ETA, TERM=dumb honoured, and previews
that touch nothing outside the tool's own directories."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep import __version__
from skillopt_sleep.cli import build_parser, commands, main
from skillopt_sleep.cli.progress import plain_progress

REPO = Path(__file__).resolve().parent.parent
ESCAPE = re.compile(r"\x1b\[")


def _listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", *argv],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def test_dash_capital_v_prints_the_version():
    r = _cli("-V")
    assert (r.returncode, r.stdout) == (0, f"skillopt-sleep {__version__}\n")


def test_every_command_help_has_a_description_and_an_example(cli, capsys):
    """In this process: the help of each of some thirty commands is the parser's own text, and a
    Python started per command (a second each) would only add its start-up, which the -V test
    above already runs."""
    for path in [p for p, _, _ in commands(build_parser())]:
        with pytest.raises(SystemExit) as done:
            cli(*path.split(), "--help")
        assert done.value.code == 0, path
        _check_help(capsys.readouterr().out)


def _check_help(text: str) -> None:
    r_out = text
    _usage, _, rest = r_out.partition("\n\n")
    description = rest.split("\n\n")[0]
    assert description and not description.startswith(("positional", "options")), r_out
    assert "example:\n" in r_out, r_out
    example = r_out.split("example:\n", 1)[1]
    assert example.startswith("  skillopt-sleep "), r_out


def test_errors_share_one_prefix(cli, tmp_path):
    for argv in (["stauts"], ["status", "--limit", "x"], ["review", "nope"]):
        r = cli(*argv)
        assert r.code != 0 and r.err.startswith("skillopt-sleep: error: "), (argv, r.err)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_dumb_terminal_gets_plain_lines_with_the_reflection_step(tmp_path, sandbox_home):
    err, out = _Terminal(), io.StringIO()
    env = {**os.environ, "TERM": "dumb"}
    code = main(
        ["demo", "--dir", str(tmp_path / "demo")],
        env=env,
        stdout=out,
        stderr=err,
        stdin=io.StringIO(""),
        cwd=tmp_path,
    )
    assert code == 0
    lines = err.getvalue().splitlines()
    assert not ESCAPE.search(err.getvalue()) and not ESCAPE.search(out.getvalue())
    assert lines.index("reflect step 1: started, 1 to do") < next(
        i for i, line in enumerate(lines) if line.startswith("reflect step 1: done 1/1 in ")
    )
    assert "replay train: started, 72 to do" in lines, lines


def test_plain_progress_says_how_long_is_left():
    ticks = iter(range(0, 1000, 10))
    out = io.StringIO()
    update = plain_progress(out, clock=lambda: float(next(ticks)))
    update("holdout before", 0, 8)
    for _ in range(8):
        update("holdout before", 1, 8)
    assert out.getvalue().splitlines() == [
        "holdout before: started, 8 to do",
        "holdout before: 2/8, ETA 60s",
        "holdout before: 4/8, ETA 40s",
        "holdout before: 6/8, ETA 20s",
        "holdout before: done 8/8 in 80s",
    ]


def test_demo_writes_only_inside_its_dir(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(REPO),
        "TERM": "dumb",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    r = subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", "demo", "--dir", str(tmp_path / "demo")],
        check=False,
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert _listing(home) == []


def test_schedule_print_works_without_a_backend_and_touches_nothing(tmp_path):
    home, bin_dir = tmp_path / "home", tmp_path / "bin"
    home.mkdir()
    bin_dir.mkdir()
    (bin_dir / "crontab").write_text("#!/bin/sh\nexit 0\n")  # a scheduler to preview for
    (bin_dir / "crontab").chmod(0o755)
    env = {
        "HOME": str(home),
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "PYTHONPATH": str(REPO),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    r = subprocess.run(
        [sys.executable, "-m", "skillopt_sleep", "schedule", "--print"],
        check=False,
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert r.stderr.startswith("skillopt-sleep: warning: no model backend is configured")
    assert r.stderr.rstrip().endswith("the job would fail until a backend is set up")
    assert r.stdout.startswith("would schedule a nightly run\nmethod: crontab")
    assert _listing(home) == []


def test_a_refused_write_names_what_stops_it_and_never_says_move_it_aside(cli, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    home = {"SKILLOPT_SLEEP_HOME": str(blocker / "home")}
    plain = cli("tasks", "add", "--intent", "Say hi", env=home)
    assert plain.code == 5
    assert f"(the permissions of {blocker} (or a sandbox) forbid writing there;" in plain.err
    inside = cli("tasks", "add", "--intent", "Say hi", env={**home, "CLAUDECODE": "1"})
    assert f"(Claude Code runs commands in a sandbox that may not write to {blocker};" in inside.err
    assert "aside" not in plain.err + inside.err
