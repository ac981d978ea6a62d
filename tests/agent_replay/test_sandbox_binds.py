"""What the sandbox shows again inside the places it hides: the user's home (an empty tmpfs) and
``/tmp`` (private). An engine installed in the home, or a checkout under ``/tmp``, must still run."""

from __future__ import annotations

import json
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


def _venv(root: Path) -> Path:
    """A virtual environment's ``python`` (a link to the system's, run by its own name) beside
    its ``pyvenv.cfg``."""
    python = _venv_python(root)
    base = Path(sys.executable).resolve().parent
    (root / "venv" / "pyvenv.cfg").write_text(f"home = {base}\n")
    return python


def test_an_engine_venv_in_the_home_is_shown_again_alone_not_the_folder_around_it(tmp_path):
    home = tmp_path / "home"
    python = _venv(home / "code")
    (home / "code" / "other").mkdir()
    hide, show, links = _home_binds(str(home), [str(python)], [str(python.parents[1])])
    assert hide == (str(home.resolve()),)
    assert show == (str((home / "code" / "venv").resolve()),)
    assert links == ()  # the venv's own python link is inside the venv shown


def test_a_checkout_under_tmp_is_shown_again_read_only_as_its_own_install():
    root = Path("/tmp") / f"skillopt-sleep-binds-{os.getpid()}-checkout"
    try:
        python = _venv(root)
        (root / "other-project").mkdir()
        hide, show, _ = _home_binds("", [str(python)], [str(python.parents[1])])
        assert hide == ()
        assert show == (str((root / "venv").resolve()),)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_nothing_outside_the_hidden_places_is_bound_again(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    _, show, links = _home_binds(str(home), ["/usr/bin/env"])
    assert (show, links) == ((), ())


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


def _node_tool(home: Path) -> Path:
    """A tool installed as npm installs one under ``~/.local``: ``bin/tool`` a link into its
    package, a script that reads a file of its package and one of a package it depends on (a
    sibling in the same ``node_modules``)."""
    modules = home / ".local" / "lib" / "node_modules"
    package = modules / "tool"
    (package / "bin").mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"dependencies": {"tool-dep": "1"}}))
    (package / "data.txt").write_text("tool data\n")
    (modules / "tool-dep").mkdir()
    (modules / "tool-dep" / "package.json").write_text("{}")
    (modules / "tool-dep" / "dep.txt").write_text("dep data\n")
    script = package / "bin" / "tool"
    script.write_text(
        "#!/usr/bin/env sh\n"
        'here=$(dirname "$(realpath "$0")")\n'
        'cat "$here/../data.txt" "$here/../../tool-dep/dep.txt"\n'
    )
    script.chmod(0o755)
    (home / ".local" / "bin").mkdir(parents=True)
    link = home / ".local" / "bin" / "tool"
    link.symlink_to("../lib/node_modules/tool/bin/tool")
    return link


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_the_agent_and_the_engine_run_from_the_home_and_nothing_beside_them_is_seen(tmp_path):
    """An agent at ``~/.local/bin`` and an engine venv at ``~/code/venv`` run inside; the logins
    under ``~/.local/share`` and another project's ``.env`` under ``~/code`` are not there."""
    home = tmp_path / "home"
    tool = _node_tool(home)
    python = _venv(home / "code")
    secrets = {
        home / ".local" / "share" / "x" / "auth.json": '{"key": "SECRET_LOCAL_LOGIN"}',
        home / "code" / "other" / ".env": "SECRET_OTHER_PROJECT=1",
    }
    for path, text in secrets.items():
        path.parent.mkdir(parents=True)
        path.write_text(text)
    path = f"{home}/.local/bin:/usr/bin:/bin"
    sandbox = probe(
        {"PATH": path, "HOME": str(home)}, [str(tool), str(python)], [str(python.parents[1])]
    )
    if isinstance(sandbox, str):
        pytest.skip(sandbox)
    assert isinstance(sandbox, Sandbox)
    look = "; ".join(
        [
            "tool",
            f"{python} -S -c 'print(\"engine runs\")'",
            *(f"cat {p}" for p in secrets),
            f"ls -A {home} {home}/.local {home}/code",
        ]
    )
    argv = sandbox.wrap(["/bin/sh", "-c", look], writable=[], chdir=Path("/"), env={"PATH": path})
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    seen = done.stdout + done.stderr
    assert "tool data\ndep data\n" in done.stdout, seen
    assert "engine runs" in done.stdout, seen
    assert "SECRET_" not in seen
    for path in secrets:
        assert f"cat: {path}: No such file or directory" in done.stderr
    listing = done.stdout.split(f"{home}/code:\n", 1)[1].split()
    assert listing == ["venv"]
    assert "share" not in done.stdout.split(f"{home}/.local:\n", 1)[1].split(f"{home}/code:")[0]


def test_a_python_installed_with_the_prefix_local_shows_its_library_not_local(tmp_path):
    home = tmp_path / "home"
    local = home / ".local"
    (local / "lib" / "python3.12").mkdir(parents=True)
    (local / "bin").mkdir()
    (local / "bin" / "python3.12").write_text("")
    (local / "share" / "x").mkdir(parents=True)
    _, show, _ = _home_binds(str(home), [str(local / "bin" / "python3.12")], [str(local)])
    assert show == (str(local / "bin" / "python3.12"), str(local / "lib" / "python3.12"))


def test_a_venv_reached_through_a_linked_folder_is_run_by_the_link_made_again(tmp_path):
    home = tmp_path / "home"
    python = _venv(home / "venvs" / "x")
    (home / "code").mkdir()
    (home / "code" / "venv").symlink_to(python.parents[1])
    by_link = home / "code" / "venv" / "bin" / "python"
    _, show, links = _home_binds(str(home), [str(by_link)], [str(home / "code" / "venv")])
    assert show == (str(python.parents[1].resolve()),)
    assert links == ((str(python.parents[1]), str((home / "code").resolve() / "venv")),)
