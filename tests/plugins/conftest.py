"""Fixtures for the agent shells: a clean PATH, a fresh home, file-tree listings."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CLAUDE_PLUGIN = REPO / "plugins" / "claude-code"
CODEX_PLUGIN = REPO / "plugins" / "codex"
LAUNCHER = CLAUDE_PLUGIN / "bin" / "skillopt-sleep"
INSTALL_SH = REPO / "install" / "install.sh"


def need(binary: str) -> str:
    """The binary's path, or skip the test when it is not installed."""
    found = shutil.which(binary)
    if not found:
        pytest.skip(f"{binary} not installed")
    return found


@pytest.fixture
def clean_bin(tmp_path: Path) -> Path:
    """A bin dir holding only ``python3`` (this interpreter): PATH without any skillopt-sleep.

    A wrapper script, not a symlink: a venv's python is itself a symlink to the base interpreter,
    and a second symlink elsewhere loses the venv (Python finds ``pyvenv.cfg`` next to argv[0])."""
    bin_dir = tmp_path / "clean-bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "python3"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    return bin_dir


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty HOME for an installer run."""
    home = tmp_path / "home"
    home.mkdir()
    return home


def link(bin_dir: Path, binary: str) -> None:
    """Make ``binary`` (found on the real PATH) available in ``bin_dir``."""
    (bin_dir / binary).symlink_to(need(binary))


def base_env(home: Path, bin_dir: Path, **extra: str) -> dict[str, str]:
    """A minimal environment: the given HOME, PATH = bin_dir + system dirs, no pip noise."""
    env = {
        "HOME": str(home),
        "PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "LANG": "C.UTF-8",
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "PYTHONDONTWRITEBYTECODE": "1",  # no __pycache__ in the checkout the tests run from
    }
    # The machine's package index settings, so the checkout installs offline from the mirror.
    env.update({k: v for k, v in os.environ.items() if k.startswith("PIP_")})
    env.update(extra)
    return env


# What a user's clone does not have: version control, tool caches, local environments.
NOT_IN_A_CLONE = (
    ".git",
    ".tools",
    ".venv",
    "__pycache__",
    ".pytest_cache",
    ".ruff_cache",
    ".mypy_cache",
    ".hypothesis",
    "build",
    "dist",
    "*.egg-info",
)


def copy_checkout(dest: Path) -> Path:
    """A copy of this checkout as a user's clone, which a test may move or delete.

    The test suite's own files (tests/, most of the clone's bytes: recorded sessions) are hard
    links where the filesystem allows: no install reads them and no test writes into them (a
    test changes the files an install reads, which are copies, and removes or moves whole
    trees, which leaves the checkout's links alone). One under tests/ that a test must change
    is removed first and written anew: writing into the link would change this checkout."""
    suite = str(REPO / "tests") + os.sep

    def copy(src: str, dst: str) -> object:
        if src.startswith(suite):
            try:
                os.link(src, dst)
                return dst
            except OSError:  # another filesystem
                pass
        return shutil.copy2(src, dst)

    shutil.copytree(REPO, dest, ignore=shutil.ignore_patterns(*NOT_IN_A_CLONE), copy_function=copy)
    return dest


def listing(root: Path) -> list[str]:
    """Every path under ``root`` (relative, sorted), with the target of each symlink."""
    out = []
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        out.append(f"{rel} -> {os.readlink(path)}" if path.is_symlink() else rel)
    return out


def sh(
    script: Path, *args: str, env: dict[str, str], cwd: Path | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", str(script), *args],
        check=False,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def claude_plugins(claude: str, env: dict[str, str], cwd: Path | None = None) -> list[dict]:
    """`claude plugin list --json`: the plugins Claude Code itself sees."""
    listed = subprocess.run(
        [claude, "plugin", "list", "--json"],
        check=True,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return json.loads(listed.stdout)


class Kit:
    """The helpers above, handed to tests as the ``kit`` fixture (test modules cannot import
    conftest under --import-mode=importlib)."""

    repo = REPO
    claude_plugin = CLAUDE_PLUGIN
    codex_plugin = CODEX_PLUGIN
    launcher = LAUNCHER
    install_sh = INSTALL_SH
    need = staticmethod(need)
    link = staticmethod(link)
    base_env = staticmethod(base_env)
    listing = staticmethod(listing)
    copy_checkout = staticmethod(copy_checkout)
    sh = staticmethod(sh)
    claude_plugins = staticmethod(claude_plugins)
    offline_pip = staticmethod(lambda wheelhouse: offline_pip(wheelhouse))
    venv = staticmethod(lambda *args, **kw: venv(*args, **kw))
    run_sh = staticmethod(lambda *args, **kw: run_sh(*args, **kw))
    run_sh_bin = staticmethod(lambda *args, **kw: run_sh_bin(*args, **kw))


@pytest.fixture(scope="session")
def kit() -> type[Kit]:
    return Kit


SYSTEM_PYTHON = Path("/usr/bin/python3")
# The engine's dependencies plus what its build and the pipx/uv routes need, for offline installs.
WHEELHOUSE_REQUIREMENTS = ("setuptools>=68", "wheel", "pip", "pipx", "uv", "build")


@pytest.fixture(scope="session")
def empty_python() -> Path:
    """A Python that has none of the engine's dependencies (the machine's own, not this venv)."""
    if not SYSTEM_PYTHON.exists():
        pytest.skip(f"{SYSTEM_PYTHON} not found")
    probe = subprocess.run(
        [str(SYSTEM_PYTHON), "-c", "import pydantic"],
        check=False,
        capture_output=True,
        env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"},
    )
    if probe.returncode == 0:
        pytest.skip(f"{SYSTEM_PYTHON} already has pydantic: not an empty Python")
    return SYSTEM_PYTHON


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory, empty_python: Path) -> Path:
    """Every wheel an install needs, downloaded once per test run by a pip of the empty Python's
    version (under xdist, by the first worker that needs it, while the others wait for it);
    installs then run with ``--no-index`` and take seconds."""

    def download(root: Path) -> None:
        why = _download_wheels(empty_python, root)
        if why:
            (root / "skip").write_text(why, encoding="utf-8")

    root = _made_once(tmp_path_factory, "wheelhouse", download)
    if (root / "skip").exists():
        pytest.skip((root / "skip").read_text(encoding="utf-8"))
    return root / "wheels"


def _shared_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory every worker of this run sees (under xdist, their base's parent)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _made_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]
) -> Path:
    """The directory ``name`` that every worker of this run shares, filled by ``make`` once: by
    the first worker that needs it, while the others wait for it (a lock file beside it)."""
    import fcntl  # POSIX: the installers these tests serve run under sh

    shared = _shared_tmp(tmp_path_factory)
    root = shared / name
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if not (root / ".made").exists():
            root.mkdir(exist_ok=True)
            make(root)
            (root / ".made").touch()
    return root


def _download_wheels(python: Path, root: Path) -> str:
    """Download the wheels into ``root/wheels`` and keep a pip of the wheelhouse's newest
    (``--python`` needs pip 22.3; an older ensurepip may bring less) in ``root/venv``, for
    :func:`venv`; why it could not, or "".

    The download runs on this interpreter's pip when it is ``python``'s version (the same wheels;
    tests/run.sh gives it a pip), and the kept pip is installed from its own wheel into an
    environment made without one: ensurepip writes and byte-compiles a thousand files, the
    longest step of making the wheelhouse. Another version of Python gets an ensurepip of its own."""
    scratch, wheels = root / "venv", root / "wheels"
    downloader = [sys.executable, "-m", "pip"]
    if not _same_python(python):
        made = _run_quiet([str(python), "-m", "venv", str(scratch)])
        if made.returncode != 0:
            return f"{python} cannot make a venv: {made.stderr.strip()[-200:]}"
        downloader = [str(scratch / "bin" / "python"), "-m", "pip"]
    wanted = [*_project_dependencies(), *WHEELHOUSE_REQUIREMENTS]
    got = _run_quiet(
        [*downloader, "download", "-q", "-d", str(wheels), *wanted],
        timeout=600,
        env={**os.environ, "PIP_NO_CACHE_DIR": "1"},
    )
    if got.returncode != 0:
        return f"cannot download the wheels (no package index?): {got.stderr[-300:]}"
    if not scratch.exists():
        made = _run_quiet([str(python), "-m", "venv", "--without-pip", str(scratch)])
        if made.returncode != 0:
            return f"{python} cannot make a venv: {made.stderr.strip()[-200:]}"
    [pip_wheel] = sorted(wheels.glob("pip-*.whl"))
    newest = _run_quiet(  # pip runs from its wheel (a zip on sys.path) to install itself
        [str(scratch / "bin" / "python"), f"{pip_wheel}/pip", "install", "-q", "--upgrade", "pip"],
        env={**os.environ, **offline_pip(wheels)},
    )
    if newest.returncode != 0:
        return f"cannot install pip from the wheelhouse: {newest.stderr[-300:]}"
    return ""


def _same_python(python: Path) -> bool:
    """Is ``python`` this interpreter's version, and does this one have pip (to download for it)?"""
    probe = _run_quiet([str(python), "-c", "import sys; print(sys.version_info[:2])"])
    mine = str(tuple(sys.version_info[:2]))
    return probe.stdout.strip() == mine and importlib.util.find_spec("pip") is not None


def _run_quiet(
    argv: list[str], *, timeout: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, check=False, capture_output=True, text=True, timeout=timeout, env=env
    )


def venv(python: Path, dest: Path, wheelhouse: Path, *packages: str) -> Path:
    """A virtual environment of ``python`` holding ``packages`` from the wheelhouse, and its bin
    dir. Made without a pip of its own (``--without-pip``): ensurepip writes and byte-compiles a
    thousand files into every environment, the longest step of making one; the wheelhouse's pip
    installs into it from outside (``--python``). For the tools a test needs (pipx, uv, build,
    a dev environment, a user's own venv), not for the environments a route under test makes
    itself."""
    subprocess.run([str(python), "-m", "venv", "--without-pip", str(dest)], check=True, timeout=300)
    if packages:
        pip = wheelhouse.parent / "venv" / "bin" / "python"
        subprocess.run(
            [
                str(pip),
                "-m",
                "pip",
                "--python",
                str(dest / "bin" / "python"),
                "install",
                "-q",
                *packages,
            ],
            check=True,
            cwd=dest,
            timeout=300,
            env={
                "PATH": "/usr/bin:/bin",
                "HOME": str(dest),
                "PIP_NO_CACHE_DIR": "1",
                **offline_pip(wheelhouse),
            },
        )
    return dest / "bin"


def _project_dependencies() -> list[str]:
    """The engine's dependencies and its dev extras (tests/run.sh installs those)."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    with open(REPO / "pyproject.toml", "rb") as fh:
        project = tomllib.load(fh)["project"]
    return [*project["dependencies"], *project["optional-dependencies"]["dev"]]


def offline_pip(wheelhouse: Path) -> dict[str, str]:
    """Environment that makes pip (and uv) install only from the wheelhouse.

    And without byte-compiling what it installs (``PIP_COMPILE=0``; ``PIP_NO_COMPILE=1`` would
    turn it on): the ``.pyc`` files doubled the files each install writes and each uninstall
    deletes, which were most of an install cycle's time on a busy disk, and proved nothing the
    tests look at (the commands they run write no bytecode either: PYTHONDONTWRITEBYTECODE)."""
    return {
        "PIP_COMPILE": "0",
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheelhouse),
        "UV_OFFLINE": "1",
        "UV_FIND_LINKS": str(wheelhouse),
        "UV_NO_INDEX": "1",
        "PIP_CONFIG_FILE": os.devnull,
    }


# What tests/run.sh needs besides python3; no npm: the tests of the agent CLIs skip.
RUN_SH_TOOLS = ("bash", "dirname", "rm")


def run_sh_bin(bin_dir: Path, python: Path) -> Path:
    """``bin_dir`` holding ``python3`` (``python``) and the tools tests/run.sh needs."""
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(python)
    for tool in RUN_SH_TOOLS:
        (bin_dir / tool).symlink_to(shutil.which(tool) or tool)
    return bin_dir


def run_sh(checkout: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`bash tests/run.sh tests/test_cli_basics.py` in ``checkout``, with the bash of PATH."""
    bash = env["PATH"].split(os.pathsep)[0] + "/bash"
    return subprocess.run(
        [bash, "tests/run.sh", "tests/test_cli_basics.py", "-p", "no:cacheprovider"],
        check=False,
        env=env,
        cwd=checkout,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=900,
    )


@dataclass(frozen=True)
class RanRunSh:
    """A clone where `bash tests/run.sh` ran outside any virtual environment, and what it said."""

    checkout: Path
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture(scope="session")
def after_run_sh(
    tmp_path_factory: pytest.TempPathFactory, empty_python: Path, wheelhouse: Path
) -> RanRunSh:
    """A user's clone after `bash tests/run.sh` outside any virtual environment: it makes
    ./.venv and installs the package editable into it, which leaves ``skillopt_sleep.egg-info``
    in the clone. Made once per test run (under xdist, by the first worker that needs it):
    test_run_sh checks what it did, test_editable_checkout installs from the clone it left."""

    def run(root: Path) -> None:
        checkout = copy_checkout(root / "clone")
        env = base_env(root / "home", run_sh_bin(root / "bin", empty_python))
        env.update(offline_pip(wheelhouse), PATH=str(root / "bin"))  # only the tools above
        r = run_sh(checkout, env)
        (root / "stdout").write_text(r.stdout, encoding="utf-8")
        (root / "stderr").write_text(r.stderr, encoding="utf-8")
        (root / "returncode").write_text(str(r.returncode), encoding="utf-8")

    root = _made_once(tmp_path_factory, "after-run-sh", run)
    return RanRunSh(
        root / "clone",
        int((root / "returncode").read_text(encoding="utf-8")),
        (root / "stdout").read_text(encoding="utf-8"),
        (root / "stderr").read_text(encoding="utf-8"),
    )


@dataclass(frozen=True)
class Built:
    """What `python3 -m build` made of a user's clone (the README's way to build the package
    yourself), and what it said."""

    checkout: Path
    dist: Path
    returncode: int
    output: str

    def wheel(self) -> Path:
        """The one wheel it made; a build that failed fails the test that needs its wheel."""
        assert self.returncode == 0, self.output[-4000:]
        [wheel] = sorted(self.dist.glob("*.whl"))
        return wheel


@pytest.fixture(scope="session")
def built_dist(
    tmp_path_factory: pytest.TempPathFactory, empty_python: Path, wheelhouse: Path
) -> Built:
    """`python3 -m build` of a clone, run once per test run (under xdist, by the first worker
    that needs it): test_install_cycle checks what it made and installs its wheel with pipx, and
    the installs whose test is not about building the wheel (`--package`) take the same wheel."""

    def build(root: Path) -> None:
        checkout = copy_checkout(root / "clone")
        # `build` beside a pip of its own, which it uses to fill its isolated build environments.
        builder = venv(empty_python, root / "build-env", wheelhouse, "build", "pip")
        (root / "home").mkdir()
        built = subprocess.run(
            [
                str(builder / "python"),
                "-m",
                "build",
                "--outdir",
                str(root / "dist"),
                str(checkout),
            ],
            check=False,
            env=base_env(root / "home", builder, **offline_pip(wheelhouse)),
            cwd=root,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=600,
        )
        (root / "output").write_text(built.stdout + built.stderr, encoding="utf-8")
        (root / "returncode").write_text(str(built.returncode), encoding="utf-8")

    root = _made_once(tmp_path_factory, "built-dist", build)
    return Built(
        root / "clone",
        root / "dist",
        int((root / "returncode").read_text(encoding="utf-8")),
        (root / "output").read_text(encoding="utf-8"),
    )
