"""`bash tests/run.sh` works inside an active virtual environment and outside one (where a
system Python may refuse pip installs): it picks or makes the environment it installs into."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def test_outside_a_venv_it_makes_one(after_run_sh):
    """Run once per test run (conftest's ``after_run_sh``): test_editable_checkout installs from
    the clone it leaves."""
    r = after_run_sh
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and (r.checkout / ".venv" / "bin" / "pytest").exists()


def test_inside_a_venv_it_uses_that_one(kit, tmp_path, empty_python, wheelhouse):
    checkout = kit.copy_checkout(tmp_path / "clone")
    venv = tmp_path / "venv"
    # The user's venv with its pip, from the wheelhouse: how it was made is not what is tested.
    kit.venv(empty_python, venv, wheelhouse, "pip")
    bin_dir = kit.run_sh_bin(tmp_path / "bin", venv / "bin" / "python")
    env = kit.base_env(
        tmp_path / "home", bin_dir, VIRTUAL_ENV=str(venv), **kit.offline_pip(wheelhouse)
    )
    env["PATH"] = f"{bin_dir}:{venv / 'bin'}"
    _failing_npm(bin_dir, tmp_path / "npm-argv")
    r = kit.run_sh(checkout, env)
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
