"""The suite fails on a leaked resource, and blames the test that leaked it.

A socket dropped without ``close()`` is reported by its ``__del__`` when the garbage collector
meets it, which may be many tests later. The suite's conftest collects the garbage after every
test and pyproject.toml makes the warning an error, so the leaking test fails and the next passes.
This runs pytest on a small test file under a copy of the suite's own conftest and settings.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

LEAKY = """
import socket


def test_leaks_a_socket():
    sock = socket.socket()
    holder = {"sock": sock}
    holder["self"] = holder  # a cycle: only the garbage collector frees it, at no set time
    assert sock.fileno() >= 0


def test_runs_after_the_leak():
    assert True
"""


def run_suite_copy(tmp_path: Path, test_source: str) -> subprocess.CompletedProcess[str]:
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    tests = tmp_path / "tests"
    tests.mkdir(exist_ok=True)
    shutil.copy(REPO / "tests" / "conftest.py", tests / "conftest.py")
    (tests / "test_leaky.py").write_text(test_source, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "tests"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_leaked_socket_fails_the_test_that_leaked_it(tmp_path: Path) -> None:
    run = run_suite_copy(tmp_path, LEAKY)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "ERROR at teardown of test_leaks_a_socket" in out, out
    assert "ResourceWarning: unclosed <socket.socket" in out, out
    blamed = [line for line in out.splitlines() if line.startswith(("ERROR ", "FAILED "))]
    assert blamed == [line for line in blamed if "::test_leaks_a_socket " in line] != [], out
    assert "2 passed, 1 error" in out, out  # its body passed; the test after it is not blamed


LEAKY_MODULE_FIXTURE = """
import socket

import pytest


@pytest.fixture(scope="module")
def server_socket():
    sock = socket.socket()
    holder = {"sock": sock}
    holder["self"] = holder  # lives through the module's tests, then only the collector frees it
    yield sock.fileno()


def test_uses_it(server_socket):
    assert server_socket >= 0


def test_uses_it_again(server_socket):
    assert server_socket >= 0
"""

SOME_LATER_MODULE = """
def test_in_a_later_module():
    assert True
"""


def test_a_socket_a_module_fixture_leaks_fails_that_modules_teardown(tmp_path: Path) -> None:
    """What the tests of a module share is set aside after each test (so each collection stays
    cheap), and still collected once the module is done: the leak is blamed on its module."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_next.py").write_text(SOME_LATER_MODULE, encoding="utf-8")
    run = run_suite_copy(tmp_path, LEAKY_MODULE_FIXTURE)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "ERROR at teardown of test_uses_it_again" in out, out
    assert "ResourceWarning: unclosed <socket.socket" in out, out
    assert "3 passed, 1 error" in out, out
