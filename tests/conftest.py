"""Shared fixtures: every test runs in its own home, and never touches the real one."""

from __future__ import annotations

import gc
import io
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings
from hypothesis.configuration import set_hypothesis_home_dir

# Nothing the tests run writes bytecode into the checkout: not this process (from here on), not the
# Pythons it starts. It goes to a cache in the temp dir instead (under each source's absolute path,
# so two checkouts never share a file), read again by every later start: the CLI run in a new
# process, as many tests do, compiled the modules it imports at each start without it (0.2 to
# 1 s a start; python -m bench.startup against --cached). Set before the package is imported below.
PYCACHE = Path(tempfile.gettempdir()) / "skillopt-sleep-tests-pycache"
sys.pycache_prefix = str(PYCACHE)
sys.dont_write_bytecode = False
os.environ["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

from skillopt_sleep.cli import main  # noqa: E402  (imported only once bytecode goes to the cache)

# Property tests keep no example database, and hypothesis its caches (``.hypothesis/``) not in the checkout.
set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "skillopt-sleep-tests-hypothesis")
hypothesis_settings.register_profile("checkout", database=None)
hypothesis_settings.load_profile("checkout")

REPO = Path(__file__).resolve().parent.parent
# the benchmarks are a package (``bench``): the tests share its simulated worlds (bench/worlds/: session
# files, a user's preferences) and its baseline gates
sys.path.insert(0, str(REPO))
GOLDEN = Path(__file__).resolve().parent / "golden"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


# Where ``tests/run.sh`` installs the pinned agent CLIs in the background (a fresh machine), the
# file npm's end leaves: the tests marked realbin run last and wait for it.
TOOLS_PENDING = os.environ.get("SKILLOPT_TESTS_TOOLS_PENDING", "")
TOOLS_BIN = REPO / ".tools" / "node_modules" / ".bin"
TOOLS_WAIT_S = 1800.0
# how a test says it skips for want of an agent CLI: "claude is not installed (...)", "codex (in
# .tools) and bubblewrap are needed"
_NO_AGENT_CLI = re.compile(
    r"\b(claude|codex|copilot|opencode|gemini|qwen|pi)\b[^;:]*\b(not installed|are needed|is needed)"
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """While the agent CLIs install, the tests that need them go last (in their order)."""
    if TOOLS_PENDING:
        items.sort(key=lambda item: item.get_closest_marker("realbin") is not None)


_tools_found = False  # this worker has waited for the install and put its bin folder on PATH


def _tools_ready() -> bool:
    return not TOOLS_PENDING or _tools_found


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A realbin test waits for the agent CLIs' install to end, then finds them on PATH."""
    global _tools_found
    if _tools_ready() or item.get_closest_marker("realbin") is None:
        return
    deadline = time.monotonic() + TOOLS_WAIT_S
    while not os.path.exists(TOOLS_PENDING) and time.monotonic() < deadline:
        time.sleep(0.5)
    os.environ["PATH"] = f"{TOOLS_BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    _tools_found = True


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """A test that skips for want of an agent CLI before the CLIs' install ended is not marked
    realbin: it would skip on every fresh machine. It fails, saying so."""
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or _tools_ready() or item.get_closest_marker("realbin") is not None:
        return
    reason = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else ""
    if _NO_AGENT_CLI.search(reason):
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} skipped ({reason}) while the agent CLIs were still installing: "
            "mark it realbin (pytest.mark.realbin), so it runs after their install"
        )


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="rewrite golden files")


@pytest.fixture(autouse=True)
def sandbox_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh SKILLOPT_SLEEP_HOME and HOME per test: the real ~/.claude, ~/.codex stay untouched."""
    root = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("SKILLOPT_SLEEP_HOME", str(root / "sleep-home"))
    monkeypatch.setenv("HOME", str(root))
    for var in (
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
    ):
        monkeypatch.delenv(var, raising=False)
    for var in list(os.environ):
        if var.startswith("SKILLOPT_SLEEP_") and var != "SKILLOPT_SLEEP_HOME":
            monkeypatch.delenv(var, raising=False)
    return root


def pytest_collection_finish(session: pytest.Session) -> None:
    """Set aside what exists once the tests are collected (modules, the SDKs, hypothesis): the
    collection after each test then walks only what the tests made, about a tenth of the time."""
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def no_leaks() -> Iterator[None]:
    """After each test, collect its garbage, so an unclosed socket, transport or file, or a
    subprocess never waited for, is reported now, as this test's failure (pyproject.toml makes
    ResourceWarning and the unraisable exceptions they become errors). Without it the garbage
    collector meets the leak inside whichever later test it happens to run in.

    What survives is set aside too (``gc.freeze``), so the next test's collection walks only
    what that test makes: a worker's heap grows with every module and SDK its tests import, and
    a full collection after each test came to half a second, 29% of the time of most tests."""
    yield
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True, scope="module")
def no_module_leaks() -> Iterator[None]:
    """After a module's last test and its fixtures, collect everything, what was set aside too:
    garbage its module- or class-scoped fixtures left is reported in that module's teardown (a
    per-test collection no longer walks what those fixtures held)."""
    yield
    gc.unfreeze()
    gc.collect()
    gc.freeze()


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    def json(self):
        return json.loads(self.out)


@pytest.fixture
def cli(tmp_path: Path):
    """Run the CLI in-process: ``cli("status", "--json", cwd=..., env={...}, stdin="...")``."""

    def run(
        *argv: str, cwd: Path | None = None, env: dict[str, str] | None = None, stdin: str = ""
    ) -> CliResult:
        out, err = io.StringIO(), io.StringIO()
        full_env = dict(os.environ)
        full_env.update(env or {})
        code = main(
            list(argv),
            env=full_env,
            stdin=io.StringIO(stdin),
            stdout=out,
            stderr=err,
            cwd=cwd or tmp_path,
        )
        return CliResult(code, out.getvalue(), err.getvalue())

    return run


@pytest.fixture
def subprocess_env() -> dict[str, str]:
    """Environment for running ``python -m skillopt_sleep`` from this checkout in a subprocess."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["SKILLOPT_SLEEP_PYTHON"] = sys.executable
    return env


@pytest.fixture
def golden(request: pytest.FixtureRequest):
    """``golden("name.md", text)``: compare with tests/golden/name.md (``--update-golden`` rewrites)."""
    update = request.config.getoption("--update-golden")

    def check(name: str, actual: str) -> None:
        path = GOLDEN / name
        if update or not path.exists():
            if not update:
                pytest.fail(
                    f"golden file {path} is missing: run pytest --update-golden and review it"
                )
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(actual, encoding="utf-8")
            return
        assert actual == path.read_text(encoding="utf-8"), f"differs from golden {name}"

    return check
