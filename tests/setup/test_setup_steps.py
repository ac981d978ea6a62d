"""`skillopt-sleep setup` step by step on a scripted machine: what it prints, what it leaves in
HOME, and that `--uninstall` leaves HOME exactly as it found it."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_sleep import __version__
from skillopt_sleep.setup.commands import Done
from skillopt_sleep.setup.context import SetupFailed

NO_AGENTS = {"claude": "no", "codex": "no", "schedule": "no"}


def test_the_default_route_puts_the_command_on_a_new_login_shells_path(machine, tree):
    before = tree(machine.home)
    out = machine.install(**NO_AGENTS)
    lay = machine.layout
    assert (lay.user_bin / "skillopt-sleep").resolve() == lay.engine_venv / "bin" / "skillopt-sleep"
    assert lay.engine_record.read_text() == f"{lay.engine_venv / 'bin' / 'skillopt-sleep'}\n"
    profile = machine.home / ".profile"
    assert (
        profile.read_text().splitlines()[1]
        == 'case ":$PATH:" in *":$HOME/.local/bin:"*) ;; *) PATH="$HOME/.local/bin:$PATH"; export PATH ;; esac'
    )
    assert f"added to PATH in {profile}: open a new terminal, or run: . {profile}" in out
    # This terminal's PATH is what it was: the closing line names the command by its path.
    assert out.endswith(
        f"done: skillopt-sleep {__version__}. Check it with: ~/.local/bin/skillopt-sleep doctor\n"
    )

    gone = machine.install(uninstall=True)
    assert tree(machine.home) == before
    assert gone.endswith("uninstalled; no task log was written.\n")


def test_a_login_shell_that_already_finds_local_bin_gets_no_profile_edit(machine):
    machine.login_path = f"/usr/bin:{machine.home}/.local/bin"
    out = machine.install(**NO_AGENTS)
    assert not (machine.home / ".profile").exists()
    assert (
        f"skillopt-sleep is in {machine.home}/.local/bin, which a new login shell puts on PATH\n"
        in out
    )


def test_a_terminal_whose_path_has_local_bin_gets_the_bare_name(machine):
    machine.env["PATH"] += f":{machine.home}/.local/bin"
    out = machine.install(**NO_AGENTS)
    assert not (machine.home / ".profile").exists()
    assert "PATH" not in out
    assert out.endswith(
        f"done: skillopt-sleep {__version__}. Check it with: skillopt-sleep doctor\n"
    )


def test_the_block_is_appended_to_a_users_profile_and_removed_exactly(machine):
    profile = machine.home / ".bash_profile"  # bash -l reads this one, not ~/.profile
    mine = "export EDITOR=vi\n# no newline at the end"
    profile.write_text(mine)
    machine.install(**NO_AGENTS)
    assert profile.read_text().startswith(mine + "\n# >>> skillopt-sleep >>>")
    assert not (machine.home / ".profile").exists()
    machine.install(uninstall=True)
    assert profile.read_text() == mine


@pytest.mark.parametrize(
    ("shell", "where"), [("/usr/bin/zsh", ".zprofile"), ("/bin/dash", ".profile")]
)
def test_the_profile_follows_the_login_shell(machine, shell, where):
    machine.env["SHELL"] = shell
    machine.install(**NO_AGENTS)
    assert "# >>> skillopt-sleep >>>" in (machine.home / where).read_text()


def test_a_shell_we_do_not_edit_gets_the_one_line_to_add(machine):
    machine.env["SHELL"] = "/usr/bin/fish"
    out = machine.install(**NO_AGENTS)
    assert (
        f"note: add {machine.home}/.local/bin to your shell's PATH to run skillopt-sleep\n" in out
    )
    assert [p.name for p in machine.home.iterdir()] == [".local"]


def test_dry_run_changes_nothing_and_never_says_done(machine, tree):
    before = tree(machine.home)
    out = machine.install(dry_run=True, claude="no", codex="yes", schedule="yes")
    assert tree(machine.home) == before
    assert out.startswith("dry run: nothing will change\n")
    assert "would run: skillopt-sleep schedule\n" in out
    assert out.endswith("dry run: nothing was changed\n") and "done" not in out
    # Only questions were asked (what pip holds, what a login shell's PATH is).
    assert all(c[-1] == "--format=freeze" or c[1] == "-lc" for c in machine.commands.calls)


def test_a_failed_schedule_is_skipped_with_its_reason_and_leaves_no_directories(machine, tree):
    machine.env["XDG_CONFIG_HOME"] = str(machine.home / ".config")
    before = tree(machine.home)

    def refuse(argv):  # as the engine does with no backend: it made its directories first
        (machine.home / ".config" / "skillopt-sleep").mkdir(parents=True)
        (machine.home / ".local" / "state" / "skillopt-sleep" / "log").mkdir(parents=True)
        return Done(1, stderr="skillopt-sleep: error: no usable backend (log in to claude)\n")

    machine.on(lambda a: a[-1] == "schedule", refuse)
    out = machine.install(claude="no", codex="no", schedule="yes")
    assert "schedule: skipped: skillopt-sleep: error: no usable backend (log in to claude)\n" in out
    assert "  the rest is installed; run 'skillopt-sleep schedule' once that is fixed\n" in out
    assert out.endswith("Check it with: ~/.local/bin/skillopt-sleep doctor\n")
    assert not (machine.home / ".config").exists()
    machine.install(uninstall=True)
    assert tree(machine.home) == before


def test_a_schedule_is_installed_and_removed_with_the_engine_it_used(machine):
    machine.install(claude="no", codex="no", schedule="yes")
    engine = str(machine.layout.engine_venv / "bin" / "skillopt-sleep")
    assert machine.calls(" schedule") == [(engine, "schedule")]
    out = machine.install(uninstall=True)
    assert machine.calls("unschedule") == [(engine, "unschedule")]
    assert out.index(f"+ {engine} unschedule") < out.index(f"+ rm -r {machine.layout.engine_venv}")


def test_uninstall_names_where_the_task_log_stays(machine):
    machine.env["SKILLOPT_SLEEP_HOME"] = str(machine.home / "sleep")
    machine.install(**NO_AGENTS)
    (machine.home / "sleep" / "data").mkdir(parents=True)
    out = machine.install(uninstall=True)
    assert out.endswith(
        f"uninstalled; your task log and nights stay in {machine.home}/sleep/data "
        "(delete that directory to forget them).\n"
    )


def test_the_codex_skill_is_a_copy_with_the_launcher_as_a_file(machine):
    machine.install(claude="no", codex="yes", schedule="no")
    launcher = machine.home / ".agents" / "skills" / "skillopt-sleep" / "scripts" / "skillopt-sleep"
    assert not launcher.is_symlink() and launcher.read_text().startswith("#!/bin/sh")


def test_a_second_run_changes_nothing(machine, tree):
    machine.install(claude="no", codex="yes", schedule="no")
    machine.on(
        lambda a: "import skillopt_sleep as s" in " ".join(a), lambda a: Done(0, __version__)
    )
    first = tree(machine.home)
    out = machine.install(claude="no", codex="yes", schedule="no")
    assert f"engine: skillopt-sleep {__version__} already installed with venv\n" in out
    assert "codex: skill already installed at" in out
    assert tree(machine.home) == first


def _fake_pipx(machine, tmp_path):
    """A pipx on PATH that creates its directories as the real one does, and a log of calls."""
    pipx = Path(machine.env["PATH"]) / "pipx"
    pipx.write_text("#!/bin/sh\n")
    pipx.chmod(0o755)
    data = machine.home / ".local" / "share"
    state = {"installed": False}

    def answer(argv):
        if argv[1] == "install":
            (data / "pipx" / "venvs" / "skillopt-sleep" / "bin").mkdir(parents=True)
            real = data / "pipx" / "venvs" / "skillopt-sleep" / "bin" / "skillopt-sleep"
            real.write_text("#!/bin/sh\n")
            (machine.home / ".local" / "bin").mkdir(parents=True, exist_ok=True)
            (machine.home / ".local" / "bin" / "skillopt-sleep").symlink_to(real)
            (machine.home / ".local" / "state" / "pipx" / "log").mkdir(parents=True)
            state["installed"] = True
        elif argv[1] == "uninstall":
            import shutil

            shutil.rmtree(data / "pipx" / "venvs" / "skillopt-sleep")
            (machine.home / ".local" / "bin" / "skillopt-sleep").unlink()
            state["installed"] = False
        elif argv[1] == "list":
            return Done(0, f"skillopt-sleep {__version__}\n" if state["installed"] else "")
        return Done(0)

    machine.on(lambda a: a[0].endswith("pipx"), answer)


def test_pipx_route_records_the_directories_pipx_makes_and_removes_them(machine, tmp_path, tree):
    _fake_pipx(machine, tmp_path)
    before = tree(machine.home)
    out = machine.install(**NO_AGENTS)
    wheel = machine.layout.wheel_dir / f"skillopt_sleep-{__version__}-py3-none-any.whl"
    assert f"+ pipx install --force {wheel}\n" in out
    venv_cmd = machine.home / ".local/share/pipx/venvs/skillopt-sleep/bin/skillopt-sleep"
    assert machine.layout.engine_record.read_text() == f"{venv_cmd}\n"
    manifest = machine.layout.manifest.read_text()
    assert f"tool-path\t{machine.home}/.local/share/pipx\tpipx/rm\n" in manifest
    machine.install(uninstall=True)
    assert ("pipx", "uninstall", "skillopt-sleep") in [c[-3:] for c in machine.commands.calls]
    assert tree(machine.home) == before


def test_an_older_engine_of_ours_is_upgraded_in_place(machine):
    machine.install(**NO_AGENTS)
    assert machine.calls("--force-reinstall") == []  # a new environment has nothing to replace
    machine.on(lambda a: "import skillopt_sleep as s" in " ".join(a), lambda a: Done(0, "0.0.9"))
    out = machine.install(**NO_AGENTS)
    assert f"engine: upgrading skillopt-sleep 0.0.9 to {__version__} (venv)\n" in out
    assert len(machine.calls("--force-reinstall")) == 1


def _a_clone(tmp_path: Path) -> Path:
    """The files an install reads from a checkout, copied: a clone a test may change."""
    import shutil

    repo = Path(__file__).resolve().parents[2]
    clone = tmp_path / "clone"
    clone.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(repo / name, clone / name)
    for name in ("skillopt_sleep", "plugins"):
        shutil.copytree(repo / name, clone / name, ignore=shutil.ignore_patterns("__pycache__"))
    return clone


def test_a_checkout_with_other_files_at_the_same_version_replaces_the_engine(machine, tmp_path):
    """The version string has said the same for many changes: what decides is the files an
    install would put in place, recorded when it installs them."""
    clone = _a_clone(tmp_path)
    machine.install(**NO_AGENTS, source=clone)
    machine.on(
        lambda a: "import skillopt_sleep as s" in " ".join(a), lambda a: Done(0, __version__)
    )
    again = machine.install(**NO_AGENTS, source=clone)
    assert f"engine: skillopt-sleep {__version__} already installed with venv\n" in again
    assert machine.calls("--force-reinstall") == []
    clock = clone / "skillopt_sleep" / "clock.py"
    clock.write_text(clock.read_text() + "\n# changed\n")
    out = machine.install(**NO_AGENTS, source=clone)
    assert (
        f"engine: upgrading skillopt-sleep {__version__} (venv): this checkout's files differ\n"
        in out
    )
    assert len(machine.calls("--force-reinstall")) == 1
    # ...and recorded: the same checkout again changes nothing.
    assert "already installed with venv" in machine.install(**NO_AGENTS, source=clone)
    assert len(machine.calls("--force-reinstall")) == 1


def test_an_engine_an_older_installer_put_in_place_is_replaced(machine):
    """Installed by an installer that recorded no files (its manifest has no engine-files line):
    which files it holds is unknown, so this checkout's are installed over them."""
    machine.install(**NO_AGENTS)
    manifest = machine.layout.manifest
    lines = manifest.read_text().splitlines(keepends=True)
    assert [ln for ln in lines if ln.startswith("engine-files\t")] != []
    manifest.write_text("".join(ln for ln in lines if not ln.startswith("engine-files\t")))
    machine.on(
        lambda a: "import skillopt_sleep as s" in " ".join(a), lambda a: Done(0, __version__)
    )
    out = machine.install(**NO_AGENTS)
    assert "this checkout's files differ" in out
    assert len(machine.calls("--force-reinstall")) == 1
    assert "already installed with venv" in machine.install(**NO_AGENTS)


def _pip_manifest(machine, dists: list[str]) -> None:
    manifest = machine.layout.manifest
    manifest.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"pip-dist\t{d}\t/usr/bin/python3\n" for d in dists]
    manifest.write_text("".join([*lines, "package\tpip\t/usr/bin/python3\n"]))


def test_pip_route_uninstall_removes_the_added_distributions_in_one_pip_call(machine):
    _pip_manifest(machine, ["anthropic", "openai", "skillopt-sleep"])
    machine.install(uninstall=True)
    assert machine.calls("pip uninstall") == [
        (
            "/usr/bin/python3",
            *("-m", "pip", "uninstall", "-q", "-y"),
            *("skillopt-sleep", "openai", "anthropic"),
        )
    ]
    assert not machine.layout.manifest.exists()


def test_a_distribution_pip_cannot_remove_stays_in_the_manifest_alone(machine):
    _pip_manifest(machine, ["anthropic", "openai", "skillopt-sleep"])
    machine.on(lambda a: "uninstall" in a and "openai" in a, lambda a: Done(1, "", "denied"))
    with pytest.raises(SetupFailed, match="some steps failed"):
        machine.install(uninstall=True)
    singles = [c[-1] for c in machine.calls("pip uninstall") if len(c) == 7]
    assert singles == ["skillopt-sleep", "openai", "anthropic"]
    assert machine.layout.manifest.read_text() == ("pip-dist\topenai\t/usr/bin/python3\n")
