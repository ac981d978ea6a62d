"""`bash tests/run.sh` works inside an active virtual environment and outside one (where a
system Python may refuse pip installs): it picks or makes the environment it installs into."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

TOOLS = ("bash", "dirname")  # what run.sh needs besides python3; no npm: the CLIs' tests skip


def _bin(tmp_path: Path, python: Path) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(python)
    for tool in TOOLS:
        (bin_dir / tool).symlink_to(shutil.which(tool))
    return bin_dir


def _run_sh(checkout: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            env["PATH"].split(":")[0] + "/bash",
            "tests/run.sh",
            "tests/test_cli_basics.py",
            "-p",
            "no:cacheprovider",
        ],
        check=False,
        env=env,
        cwd=checkout,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_outside_a_venv_it_makes_one(kit, tmp_path, empty_python, wheelhouse):
    checkout = kit.copy_checkout(tmp_path / "clone")
    env = kit.base_env(
        tmp_path / "home", _bin(tmp_path, empty_python), **kit.offline_pip(wheelhouse)
    )
    env["PATH"] = env["PATH"].split(":")[0]  # only the tools above
    r = _run_sh(checkout, env)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and (checkout / ".venv" / "bin" / "pytest").exists()


def test_inside_a_venv_it_uses_that_one(kit, tmp_path, empty_python, wheelhouse):
    checkout = kit.copy_checkout(tmp_path / "clone")
    venv = tmp_path / "venv"
    # The user's venv with its pip, from the wheelhouse: how it was made is not what is tested.
    kit.venv(empty_python, venv, wheelhouse, "pip")
    env = kit.base_env(
        tmp_path / "home",
        _bin(tmp_path, venv / "bin" / "python"),
        VIRTUAL_ENV=str(venv),
        **kit.offline_pip(wheelhouse),
    )
    env["PATH"] = f"{env['PATH'].split(':')[0]}:{venv / 'bin'}"
    _failing_npm(tmp_path / "bin", tmp_path / "npm-argv")
    r = _run_sh(checkout, env)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and (venv / "bin" / "pytest").exists()
    assert not (checkout / ".venv").exists()
    # npm ran (beside pip, in the background) for the pinned CLIs; its failure is one warning
    argv = (tmp_path / "npm-argv").read_text().split()
    assert argv[:2] == ["install", "--silent"] and "@openai/codex@0.169.0" in argv
    assert "warning: npm could not install the agent CLIs; their tests will skip" in r.stderr


def _failing_npm(bin_dir: Path, record: Path) -> None:
    """An ``npm`` that records its arguments and fails, as one without a network would."""
    npm = bin_dir / "npm"
    npm.write_text(f'#!{bin_dir / "bash"}\necho "$@" > {record}\nexit 1\n')
    npm.chmod(0o755)
