"""The engine's wheel, written by the installer with the standard library alone: what setuptools
would put in it, metadata pip reads the same way, and pip's build where the writer cannot."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path

from skillopt_sleep.setup.commands import Done
from skillopt_sleep.setup.engine import WHEEL_WRITER
from skillopt_sleep.setup.wheel import CANNOT

PYPROJECT = """[build-system]
requires = ["setuptools>=68", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "tiny-engine"
version = "1.2.3"
description = "A tiny engine."
readme = "README.md"
requires-python = ">=3.10"
license = { text = "MIT" }
dependencies = ["pydantic>=2.6", "tomli>=2; python_version < '3.11'"]

[project.optional-dependencies]
dev = ["pytest>=8", "tomli>=2; python_version < '3.11'"]

[project.scripts]
tiny = "tiny_engine.cli:entry"

[tool.setuptools.packages.find]
include = ["tiny_engine*"]

[tool.setuptools.package-data]
tiny_engine = ["data/*.txt", "py.typed"]
"""


def _project(root: Path, pyproject: str = PYPROJECT) -> Path:
    files = {
        "pyproject.toml": pyproject,
        "README.md": "# tiny\n\nThe long description.\n",
        "tiny_engine/__init__.py": '__version__ = "1.2.3"\n',
        "tiny_engine/cli.py": "def entry():\n    return 0\n",
        "tiny_engine/py.typed": "",
        "tiny_engine/notes.md": "not package data\n",
        "tiny_engine/data/words.txt": "words\n",  # package data, not a package
        "tiny_engine/data/helper.py": "x = 1\n",  # in no package: left out
        "tiny_engine/sub/__init__.py": "",
        "tiny_engine/sub/mod.py": "y = 2\n",
        "tiny_engine/not_a_package/mod.py": "z = 3\n",
        "tiny_engine/not_a_package/inner/__init__.py": "",  # below a non-package: not found
        "tests/__init__.py": "",
        "tests/test_it.py": "",  # a package the include leaves out
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _write(source: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """The writer as the installer runs it: a script, isolated from the environment."""
    return subprocess.run(
        [sys.executable, "-I", str(WHEEL_WRITER), str(source), str(out)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_wheel_holds_the_packages_modules_and_their_data(tmp_path):
    source = _project(tmp_path / "src")
    done = _write(source, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    wheel = tmp_path / "out" / "tiny_engine-1.2.3-py3-none-any.whl"
    assert done.stdout == f"{wheel}\n"
    with zipfile.ZipFile(wheel) as zf:
        assert sorted(zf.namelist()) == [
            "tiny_engine-1.2.3.dist-info/METADATA",
            "tiny_engine-1.2.3.dist-info/RECORD",
            "tiny_engine-1.2.3.dist-info/WHEEL",
            "tiny_engine-1.2.3.dist-info/entry_points.txt",
            "tiny_engine/__init__.py",
            "tiny_engine/cli.py",
            "tiny_engine/data/words.txt",
            "tiny_engine/py.typed",
            "tiny_engine/sub/__init__.py",
            "tiny_engine/sub/mod.py",
        ]
        meta = zf.read("tiny_engine-1.2.3.dist-info/METADATA").decode()
        head, body = meta.split("\n\n", 1)
        assert head.splitlines() == [
            "Metadata-Version: 2.1",
            "Name: tiny-engine",
            "Version: 1.2.3",
            "Summary: A tiny engine.",
            "License: MIT",
            "Requires-Python: >=3.10",
            "Description-Content-Type: text/markdown",
            "Requires-Dist: pydantic>=2.6",
            'Requires-Dist: tomli>=2; python_version < "3.11"',
            "Provides-Extra: dev",
            'Requires-Dist: pytest>=8; extra == "dev"',
            'Requires-Dist: tomli>=2; (python_version < "3.11") and extra == "dev"',
        ]
        assert body == "# tiny\n\nThe long description.\n"
        assert zf.read("tiny_engine-1.2.3.dist-info/entry_points.txt") == (
            b"[console_scripts]\ntiny = tiny_engine.cli:entry\n"
        )
        # Every file but RECORD itself is listed with its size and hash, as pip checks them.
        rows = zf.read("tiny_engine-1.2.3.dist-info/RECORD").decode().splitlines()
        assert rows[-1] == "tiny_engine-1.2.3.dist-info/RECORD,,"
        for row in rows[:-1]:
            name, digest, size = row.split(",")
            data = zf.read(name)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert (digest, int(size)) == (f"sha256={expected.decode()}", len(data))
        assert len(rows) == len(zf.namelist())
    assert not list(source.rglob("*.egg-info")) and not (source / "build").exists()


def test_what_only_setuptools_does_is_left_to_pip(tmp_path):
    for name, change in (
        ("manifest", lambda root: (root / "MANIFEST.in").write_text("include x\n")),
        (
            "dynamic",
            lambda root: (root / "pyproject.toml").write_text(
                PYPROJECT.replace('version = "1.2.3"', 'dynamic = ["version"]')
            ),
        ),
        (
            "where",
            lambda root: (root / "pyproject.toml").write_text(
                PYPROJECT.replace('include = ["tiny_engine*"]', 'where = ["src"]')
            ),
        ),
    ):
        source = _project(tmp_path / name)
        change(source)
        done = _write(source, tmp_path / f"{name}-out")
        assert done.returncode == CANNOT, (name, done.stderr)
        assert done.stderr.startswith("cannot write this wheel without setuptools: ")
        assert not list((tmp_path / f"{name}-out").glob("*.whl"))


NO_AGENTS = {"claude": "no", "codex": "no", "schedule": "no"}


def test_the_installer_writes_the_wheel_without_pip(machine):
    machine.install(**NO_AGENTS)
    [written] = machine.calls(str(WHEEL_WRITER))
    assert written[:3] == (sys.executable, "-I", str(WHEEL_WRITER))
    assert machine.calls("pip wheel") == []
    wheel = machine.layout.wheel_dir / "skillopt_sleep-0.1.0-py3-none-any.whl"
    assert wheel.is_file()


def test_a_wheel_the_writer_cannot_write_is_built_by_pip(machine):
    machine.on(lambda a: str(WHEEL_WRITER) in a, lambda a: Done(CANNOT, stderr="no tomllib"))
    machine.install(**NO_AGENTS)
    [built] = machine.calls("pip wheel")
    assert built[:6] == (sys.executable, "-m", "pip", "wheel", "-q", "--no-deps")
    assert (machine.layout.wheel_dir / "skillopt_sleep-0.1.0-py3-none-any.whl").is_file()
