"""What the installer checks before it says `done`: its tools see what is installed (not the
checkout it runs from), the command it installed runs, and its last line is a command that runs
in the terminal it was started from."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from skillopt_sleep import __version__
from skillopt_sleep.setup.commands import Done
from skillopt_sleep.setup.context import SetupFailed
from skillopt_sleep.setup.main import main

NO_AGENTS = {"claude": "no", "codex": "no", "schedule": "no"}
# Debian's and Ubuntu's stock ~/.profile (the part about PATH): ~/.local/bin from the next login.
DEBIAN_PROFILE = """\
# set PATH so it includes user's private bin if it exists
if [ -d "$HOME/bin" ] ; then
    PATH="$HOME/bin:$PATH"
fi

# set PATH so it includes user's private bin if it exists
if [ -d "$HOME/.local/bin" ] ; then
    PATH="$HOME/.local/bin:$PATH"
fi
"""


def _last_command(out: str) -> str:
    last = out.splitlines()[-1]
    assert last.startswith(f"done: skillopt-sleep {__version__}. Check it with: "), out
    return last.split("Check it with: ", 1)[1]


def _in_this_terminal(command: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", command],
        check=False,
        env={"HOME": env["HOME"], "PATH": env["PATH"]},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_neither_pythonpath_nor_the_checkout_reaches_the_tools(machine):
    """install.sh puts the checkout on PYTHONPATH and the user stands in it: pip saw its
    skillopt_sleep.egg-info as the engine, already installed, and installed no command."""
    machine.env["PYTHONPATH"] = "/home/me/skillopt-sleep"
    machine.install(**NO_AGENTS)
    assert machine.commands.runs
    leaked = [r.argv for r in machine.commands.runs if "PYTHONPATH" in r.env or r.cwd != "/"]
    assert leaked == []


def test_an_install_that_leaves_no_command_fails_naming_the_fix(machine):
    def venv_without_the_command(argv):  # as pip did, when it saw the checkout as installed
        bin_dir = Path(argv[3]) / "bin"
        bin_dir.mkdir(parents=True)
        (bin_dir / "python").write_text("#!/bin/sh\n")
        return Done(0)

    machine.on(lambda a: a[1:3] == ["-m", "venv"], venv_without_the_command)
    with pytest.raises(SetupFailed) as failed:
        machine.install(**NO_AGENTS)
    engine = machine.layout.engine_venv / "bin" / "skillopt-sleep"
    assert failed.value.one_line() == (
        f"the engine was installed with venv, but its command {engine} is not there "
        "(reinstall it: skillopt-sleep setup --uninstall, then skillopt-sleep setup)"
    )
    assert "done" not in machine.out.getvalue().split()
    assert not machine.layout.engine_record.exists()


def test_an_engine_that_does_not_run_fails_the_install_and_the_fix_it_names_works(machine, capsys):
    broken = {"yes": True}
    machine.on(
        lambda a: a[-1] == "--version" and broken["yes"],
        lambda a: Done(
            1, stderr="Traceback ...\nModuleNotFoundError: No module named 'pydantic'\n"
        ),
    )
    machine.env["SKILLOPT_SLEEP_INSTALLER"] = "install.sh"
    code = main(
        ["--no-schedule", "--codex", "--no-claude"],
        env=machine.env,
        commands=machine.commands,
        out=machine.out,
        layout=machine.layout,
    )
    assert code == 1
    assert capsys.readouterr().err == (
        "install.sh: error: the installed command does not run: "
        f"{machine.home}/.local/bin/skillopt-sleep --version: ModuleNotFoundError: No module "
        "named 'pydantic' (reinstall it: sh install/install.sh --uninstall, then sh "
        "install/install.sh)\n"
    )
    out = machine.out.getvalue()
    assert "done:" not in out and "codex:" not in out  # nothing more was installed
    assert not (machine.home / ".agents").exists()

    machine.install(uninstall=True)
    broken["yes"] = False
    again = machine.install(claude="no", codex="yes", schedule="no")
    assert f"checked: {machine.home}/.local/bin/skillopt-sleep --version says" in again
    assert (machine.home / ".agents" / "skills" / "skillopt-sleep").is_dir()


def test_a_debian_profile_adds_local_bin_at_the_next_login_and_the_last_line_runs_now(machine):
    """Debian's ~/.profile puts ~/.local/bin on PATH once it exists, from the next login on: no
    profile edit, but this terminal still lacks it, so the closing command names the path."""
    (machine.home / ".profile").write_text(DEBIAN_PROFILE)
    machine.env["PATH"] += ":/usr/bin:/bin"

    def real_login_shell(argv):
        seen = machine.commands.runs[-1]
        done = subprocess.run(
            argv, check=False, env=seen.env, capture_output=True, text=True, timeout=30
        )
        return Done(done.returncode, done.stdout, done.stderr)

    machine.on(lambda a: a[1:2] == ["-lc"], real_login_shell)
    out = machine.install(**NO_AGENTS)
    assert (machine.home / ".profile").read_text() == DEBIAN_PROFILE
    bin_dir = machine.home / ".local" / "bin"
    assert f"skillopt-sleep is in {bin_dir}, which a new login shell puts on PATH\n" in out
    assert (
        f"this terminal's PATH does not have {bin_dir} yet: run ~/.local/bin/skillopt-sleep, "
        'or first: export PATH="$HOME/.local/bin:$PATH"\n'
    ) in out
    command = _last_command(out)
    assert command == "~/.local/bin/skillopt-sleep doctor"
    ran = _in_this_terminal(command, machine.env)
    assert (ran.returncode, ran.stdout) == (0, f"skillopt-sleep {__version__}\n")
    # What the line said before: the bare name, which this terminal does not find.
    assert _in_this_terminal("skillopt-sleep doctor", machine.env).returncode == 127
    # The export it offers works in this terminal too.
    export = f'export PATH="$HOME/.local/bin:$PATH"; {command.split("/")[-1]}'
    assert _in_this_terminal(export, machine.env).returncode == 0


def test_another_command_first_on_this_terminals_path_is_named(machine, tmp_path):
    other = tmp_path / "old-bin"
    other.mkdir()
    (other / "skillopt-sleep").write_text("#!/bin/sh\necho old\n")
    (other / "skillopt-sleep").chmod(0o755)
    machine.env["PATH"] = f"{other}:{machine.home}/.local/bin"
    out = machine.install(**NO_AGENTS)
    assert (
        f"this terminal's PATH finds another skillopt-sleep first ({other}/skillopt-sleep): "
        "run ~/.local/bin/skillopt-sleep\n"
    ) in out
    assert _last_command(out) == "~/.local/bin/skillopt-sleep doctor"
