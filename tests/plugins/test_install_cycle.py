"""install/install.sh for real, with a Python whose site-packages holds none of the engine's
dependencies (the machine's own, PEP 668-managed on Debian): every route installs a working
engine, and `--uninstall` leaves `find $HOME` exactly as it was."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from skillopt_sleep import __version__

pytestmark = pytest.mark.slow


@pytest.fixture
def checkout(kit, tmp_path: Path) -> Path:
    """A copy of the checkout the test may move or delete, as a user's clone."""
    return kit.copy_checkout(tmp_path / "clone")


def _bin_with(tmp_path: Path, python: Path, *extra: Path) -> Path:
    """A bin dir whose python3 is ``python`` (and links to ``extra`` executables)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "python3").symlink_to(python)
    for exe in extra:
        (bin_dir / exe.name).symlink_to(exe)
    return bin_dir


def _run(cmd: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd,
        check=False,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _install_sh(checkout: Path) -> Path:
    return checkout / "install" / "install.sh"


def test_inside_an_active_venv(kit, home, tmp_path, checkout, empty_python, wheelhouse):
    venv = tmp_path / "users-venv"
    # The user's venv with its pip, from the wheelhouse: how it was made is not what is tested.
    kit.venv(empty_python, venv, wheelhouse, "pip")
    env = kit.base_env(home, venv / "bin", VIRTUAL_ENV=str(venv), **kit.offline_pip(wheelhouse))
    before, venv_files = kit.listing(home), kit.listing(venv)
    first = kit.sh(_install_sh(checkout), "--no-codex", "--no-claude", env=env, cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert kit.listing(venv) == venv_files  # the user's venv is not ours to fill
    # Neither this venv nor PATH is needed to find the engine (Codex runs `bash -lc`).
    launcher = checkout / "plugins" / "codex" / "skills" / "skillopt-sleep" / "scripts"
    shutil.copytree(launcher, tmp_path / "detached")
    bare = kit.base_env(home, tmp_path / "nothing")
    seen = _run(
        ["/bin/sh", str(tmp_path / "detached" / "skillopt-sleep"), "--version"], bare, tmp_path
    )
    assert seen.stdout == f"skillopt-sleep {__version__}\n", seen.stderr
    gone = kit.sh(_install_sh(checkout), "--uninstall", env=env, cwd=tmp_path)
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert kit.listing(home) == before


def test_pip_route_removes_every_dependency_it_added(
    kit, home, tmp_path, empty_python, wheelhouse, built_dist
):
    """`--with pip` into the user site of a Python that allows it (PIP_BREAK_SYSTEM_PACKAGES
    stands in for a Python without PEP 668): all 20-odd dependencies go on uninstall. The
    wheel is the run's `python -m build` one (`--package`): building it from a checkout is
    what the other routes' tests and the README's do."""
    env = kit.base_env(
        home,
        _bin_with(tmp_path, empty_python),
        PIP_BREAK_SYSTEM_PACKAGES="1",
        **kit.offline_pip(wheelhouse),
    )
    before = kit.listing(home)
    first = kit.sh(
        kit.install_sh,
        "--with",
        "pip",
        "--no-codex",
        "--no-claude",
        "--package",
        str(built_dist.wheel()),
        env=env,
        cwd=tmp_path,
    )
    assert first.returncode == 0, first.stdout + first.stderr
    site = _run([str(empty_python), "-m", "site", "--user-site"], env, tmp_path).stdout.strip()
    assert (Path(site) / "pydantic").is_dir()
    assert (
        _run([str(home / ".local" / "bin" / "skillopt-sleep"), "--version"], env, tmp_path).stdout
        == f"skillopt-sleep {__version__}\n"
    )
    gone = kit.sh(kit.install_sh, "--uninstall", env=env, cwd=tmp_path)
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert kit.listing(home) == before


def test_pip_route_on_a_pep668_python_says_what_works(kit, home, tmp_path, empty_python):
    env = kit.base_env(home, _bin_with(tmp_path, empty_python))
    r = kit.sh(kit.install_sh, "--with", "pip", "--no-codex", "--no-claude", env=env, cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr.endswith(
        "is managed by the system (PEP 668) and refuses pip installs (leave "
        "out --with pip; the default installs into a private environment)\n"
    )
    assert kit.listing(home) == []  # refused before anything was changed


def _tool(kit, tmp_path: Path, python: Path, wheelhouse: Path, tool: str) -> Path:
    """``tool`` in an environment of its own, as a user has it on PATH."""
    return kit.venv(python, tmp_path / f"{tool}-tool", wheelhouse, tool) / tool


@pytest.fixture(scope="session")
def pipx_exe(kit, tmp_path_factory, empty_python, wheelhouse) -> Path:
    """pipx in an environment of its own, shared by the tests that run it: what it installs goes
    under each test's HOME, never into that environment."""
    return _tool(kit, tmp_path_factory.mktemp("pipx-tool"), empty_python, wheelhouse, "pipx")


@pytest.mark.parametrize("tool", ["pipx", "uv"])
def test_pipx_and_uv_routes_upgrade_and_uninstall_exactly(
    kit, home, tmp_path, checkout, empty_python, wheelhouse, tool, request
):
    exe = (
        request.getfixturevalue("pipx_exe")
        if tool == "pipx"
        else _tool(kit, tmp_path, empty_python, wheelhouse, tool)
    )
    env = kit.base_env(home, _bin_with(tmp_path, empty_python, exe), **kit.offline_pip(wheelhouse))
    before = kit.listing(home)
    first = kit.sh(_install_sh(checkout), "--no-codex", "--no-claude", env=env, cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert f"+ {tool} " in first.stdout
    assert (
        _run([str(home / ".local" / "bin" / "skillopt-sleep"), "--version"], env, tmp_path).stdout
        == f"skillopt-sleep {__version__}\n"
    )
    shutil.rmtree(checkout)  # the clone is gone: the tool upgrades from the kept wheel
    upgrade = (
        ["pipx", "upgrade", "skillopt-sleep"]
        if tool == "pipx"
        else ["uv", "tool", "upgrade", "skillopt-sleep"]
    )
    up = _run(upgrade, env, tmp_path)
    assert up.returncode == 0, up.stdout + up.stderr
    shutil.copytree(kit.repo / "install", tmp_path / "installer" / "install")
    gone = kit.sh(
        tmp_path / "installer" / "install" / "install.sh", "--uninstall", env=env, cwd=tmp_path
    )
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert kit.listing(home) == before, gone.stdout


def _readme_first_command(readme: Path) -> str:
    block = readme.read_text(encoding="utf-8").split("```bash\n", 1)[1].split("```", 1)[0]
    return block.splitlines()[0].split("  #", 1)[0].strip()


def _find(home: Path) -> list[str]:
    """`find $HOME`, as a user would snapshot it."""
    return subprocess.run(
        ["find", str(home)], check=True, capture_output=True, text=True, timeout=60
    ).stdout.splitlines()


def test_the_readme_first_command_works_on_a_pep668_python(
    kit, home, tmp_path, checkout, empty_python, wheelhouse
):
    """The README's first command on a Python that Debian marks EXTERNALLY-MANAGED, where `pip
    install` stops (the installer must not), in a home where Codex was used: the default route,
    then the demo's closing line, a new login shell, a second install that changes nothing, a
    newer checkout's install that upgrades the engine, the clone gone, and uninstall: `find
    $HOME` is what it was before. (One install cycle proves both what the README promises and the
    private environment's route: they were two, the same install twice.)"""
    command = _readme_first_command(checkout / "README.md")
    assert "demo" in command
    env = kit.base_env(
        home, _bin_with(tmp_path, empty_python), SHELL="/bin/bash", **kit.offline_pip(wheelhouse)
    )
    (home / ".codex").mkdir()  # Codex was used here
    before = _find(home)
    r = subprocess.run(
        ["sh", "-c", command],
        check=False,
        env=env,
        cwd=checkout,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "externally-managed" not in r.stdout + r.stderr
    assert "holdout" in r.stdout and "Nothing live changed." in r.stdout
    assert f"added to PATH in {home}/.profile: open a new terminal" in r.stdout
    assert (
        _run([str(home / ".local" / "bin" / "skillopt-sleep"), "--version"], env, tmp_path).stdout
        == f"skillopt-sleep {__version__}\n"
    )
    _the_demo_closing_line_runs(r.stdout, env, tmp_path)
    _a_login_shell_finds_the_command(home)

    installed = kit.listing(home)
    second = kit.sh(_install_sh(checkout), env=env, cwd=tmp_path)
    assert f"engine: skillopt-sleep {__version__} already installed with venv" in second.stdout
    assert kit.listing(home) == installed

    # A newer checkout's installer upgrades the engine in place, as the README says to move to a
    # new version, though its version string says the same (pyproject has said it for many
    # changes); the environment was made without a pip of its own.
    newer = _newer_code(checkout)
    third = kit.sh(_install_sh(checkout), env=env, cwd=tmp_path)
    assert third.returncode == 0, third.stdout + third.stderr
    assert (
        f"engine: upgrading skillopt-sleep {__version__} (venv): this checkout's files differ"
        in third.stdout
    )

    # The clone goes away: the installed skill's launcher still runs the engine it installed.
    shutil.rmtree(checkout / "skillopt_sleep")
    skill_launcher = home / ".agents" / "skills" / "skillopt-sleep" / "scripts" / "skillopt-sleep"
    seen = _run(["/bin/sh", str(skill_launcher), "--help"], env, tmp_path)
    assert newer in " ".join(seen.stdout.split()), seen.stdout + seen.stderr  # as wrapped
    engine = home / ".local" / "share" / "skillopt-sleep" / "engine" / "bin" / "python"
    doctor = _run([str(engine), "-m", "skillopt_sleep", "--version"], env, tmp_path)
    assert doctor.stdout == f"skillopt-sleep {__version__}\n"

    gone = kit.sh(_install_sh(checkout), "--uninstall", env=env, cwd=tmp_path)
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert "uninstalled; " in gone.stdout
    assert _find(home) == before


def _newer_code(checkout: Path) -> str:
    """The clone's code changed, its version string not: the command's description says more
    (what `--help` prints); that text."""
    path = checkout / "skillopt_sleep" / "cli" / "__init__.py"
    said = "learn from the day's tasks, safely."
    newer = "learn from the day's tasks, safely, in a newer way."
    text = path.read_text(encoding="utf-8")
    assert said in text
    path.write_text(text.replace(said, newer, 1), encoding="utf-8")
    return newer


def _the_demo_closing_line_runs(demo_out: str, env: dict[str, str], cwd: Path) -> None:
    """The demo's closing line runs as printed, in this same shell (whose PATH is unchanged)."""
    adopt = demo_out.rstrip().splitlines()[-1].strip()
    assert " adopt --project " in adopt  # the demo's own project: adopt acts on no other
    adopted = subprocess.run(
        ["sh", "-c", adopt],
        check=False,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert adopted.returncode == 0, adopted.stderr
    assert adopted.stdout.startswith("adopted night ")


def _a_login_shell_finds_the_command(home: Path) -> None:
    login = subprocess.run(
        ["env", "-i", f"HOME={home}", "bash", "-lc", "skillopt-sleep --help"],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert login.returncode == 0, login.stderr
    assert login.stdout.startswith("usage: skillopt-sleep")


def test_python_m_build_then_pipx_install_the_wheel(
    kit, home, tmp_path, empty_python, wheelhouse, pipx_exe, built_dist
):
    """`python3 -m build` makes the wheel and sdist in dist/ and `pipx install dist/*.whl`
    installs it, as the README says (the build is the run's one, conftest's built_dist)."""
    assert built_dist.returncode == 0, built_dist.output[-4000:]
    wheels = sorted(built_dist.dist.glob("*.whl"))
    assert [w.name for w in wheels] == [f"skillopt_sleep-{__version__}-py3-none-any.whl"]
    assert (built_dist.dist / f"skillopt_sleep-{__version__}.tar.gz").is_file()
    env = kit.base_env(home, _bin_with(tmp_path, empty_python), **kit.offline_pip(wheelhouse))
    installed = _run([str(pipx_exe), "install", str(wheels[0])], env, tmp_path)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert (
        _run([str(home / ".local" / "bin" / "skillopt-sleep"), "-V"], env, tmp_path).stdout
        == f"skillopt-sleep {__version__}\n"
    )


def test_the_installers_wheel_holds_what_python_m_build_puts_in_it(
    tmp_path, empty_python, built_dist
):
    """The wheel install.sh writes with the standard library alone (setup/wheel.py, where a
    build through pip installed setuptools into an isolated environment) holds every file of
    the wheel setuptools builds, byte for byte, and the same metadata."""
    writer = built_dist.checkout / "skillopt_sleep" / "setup" / "wheel.py"
    done = _run(
        [str(empty_python), "-I", str(writer), str(built_dist.checkout), str(tmp_path)],
        {"PATH": "/usr/bin:/bin"},
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    dist_info = f"skillopt_sleep-{__version__}.dist-info/"
    with (
        zipfile.ZipFile(done.stdout.strip()) as ours,
        zipfile.ZipFile(built_dist.wheel()) as setuptools,
    ):
        theirs = set(setuptools.namelist()) - {f"{dist_info}top_level.txt"}
        assert sorted(ours.namelist()) == sorted(theirs)
        for name in sorted(theirs):
            if name.startswith(dist_info):
                continue
            assert ours.read(name) == setuptools.read(name), name
        assert ours.read(f"{dist_info}entry_points.txt") == setuptools.read(
            f"{dist_info}entry_points.txt"
        )
        ours_meta, their_meta = (
            z.read(f"{dist_info}METADATA").decode().split("\n", 1) for z in (ours, setuptools)
        )
        assert ours_meta[1] == their_meta[1]  # all but the Metadata-Version line
        assert len([n for n in theirs if not n.startswith(dist_info)]) > 300
