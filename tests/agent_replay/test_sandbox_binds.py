"""What the sandbox shows again inside the places it hides: the user's home (an empty tmpfs) and
``/tmp`` (private). An engine installed in the home, or a checkout under ``/tmp``, must still run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep.agent_replay.sandbox import Sandbox, _home_binds, probe


def _venv_python(root: Path) -> Path:
    """A virtual environment's ``python``: a link to the system's, run by its own name."""
    bin_dir = root / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    link = bin_dir / "python"
    link.symlink_to(Path(sys.executable).resolve())
    return link


def test_an_engine_in_the_home_is_shown_again_by_the_name_it_runs_as(tmp_path):
    home = tmp_path / "home"
    python = _venv_python(home / ".local" / "share" / "engine")
    hide, show = _home_binds(str(home), [str(python)])
    assert hide == (str(home.resolve()),)
    assert str((home / ".local").resolve()) in show


def test_a_checkout_under_tmp_is_shown_again_read_only():
    with_tmp = Path("/tmp") / "skillopt-sleep-binds-test" / "venv" / "bin" / "python"
    hide, show = _home_binds("", [str(with_tmp)])
    assert hide == ()
    assert show == (str(Path("/tmp/skillopt-sleep-binds-test").resolve()),)


def test_nothing_outside_the_hidden_places_is_bound_again(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    _, show = _home_binds(str(home), ["/usr/bin/env"])
    assert show == ()


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_a_venv_python_under_tmp_runs_inside_the_sandbox():
    root = Path("/tmp") / f"skillopt-sleep-binds-{os.getpid()}"
    try:
        python = _venv_python(root)
        sandbox = probe({"PATH": os.environ.get("PATH", ""), "HOME": ""}, [str(python)])
        if isinstance(sandbox, str):
            pytest.skip(sandbox)
        assert isinstance(sandbox, Sandbox)
        argv = sandbox.wrap(
            [str(python), "-c", "print('inside')"],
            writable=[],
            chdir=Path("/"),
            env={"PATH": "/usr/bin:/bin"},
        )
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "inside"
    finally:
        shutil.rmtree(root, ignore_errors=True)
