"""install/install.sh for real, after `bash tests/run.sh` (an editable install that leaves
``skillopt_sleep.egg-info`` in the checkout), run from inside the checkout as the README does:
pip saw that metadata as the engine, already installed, and the installer said `done` without a
command. Now the command is installed, checked, and the closing line runs in this terminal."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from skillopt_sleep import __version__

pytestmark = pytest.mark.slow


def _run(
    cmd: list[str], env: dict[str, str], cwd: Path, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd,
        check=False,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_install_sh_after_an_editable_install_installs_a_command_that_runs(
    kit, home, tmp_path, empty_python, wheelhouse, after_run_sh
):
    # The clone where `bash tests/run.sh` ran (conftest's after_run_sh, shared with
    # test_run_sh): its `pip install -e` left the metadata in the checkout. The installer must
    # not write into it, so it is shared as it is.
    checkout = after_run_sh.checkout
    assert (checkout / "skillopt_sleep.egg-info").is_dir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(empty_python)
    env = kit.base_env(home, bin_dir, SHELL="/bin/bash", **kit.offline_pip(wheelhouse))
    before = kit.listing(home)

    r = kit.sh(
        checkout / "install" / "install.sh",
        "--no-schedule",
        "--no-claude",
        "--no-codex",
        env=env,
        cwd=checkout,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    command = home / ".local" / "bin" / "skillopt-sleep"
    assert f"checked: {command} --version says skillopt-sleep {__version__}\n" in r.stdout
    assert _run([str(command), "--version"], env, tmp_path).stdout == (
        f"skillopt-sleep {__version__}\n"
    )
    # The closing line runs as printed in this terminal, whose PATH lacks ~/.local/bin.
    last = r.stdout.splitlines()[-1]
    assert last == (
        f"done: skillopt-sleep {__version__}. Check it with: ~/.local/bin/skillopt-sleep doctor"
    )
    doctor = _run(["sh", "-c", last.split("Check it with: ")[1]], env, tmp_path)
    assert doctor.stdout.startswith(f"ok    engine: skillopt-sleep {__version__} on {home}/"), (
        doctor.stdout + doctor.stderr
    )

    gone = kit.sh(checkout / "install" / "install.sh", "--uninstall", env=env, cwd=checkout)
    assert gone.returncode == 0, gone.stdout + gone.stderr
    assert kit.listing(home) == before
