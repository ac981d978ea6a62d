"""A scripted machine for the installer: a temp HOME and a runner whose `python -m venv`,
`pip wheel` (or wheel writer), `claude plugin` and `schedule` calls create what the real ones
would."""

from __future__ import annotations

import importlib.util
import io
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import pytest

from skillopt_sleep import __version__
from skillopt_sleep.setup.commands import Done, FakeCommands
from skillopt_sleep.setup.engine import WHEEL_WRITER
from skillopt_sleep.setup.layout import Layout, layout_for
from skillopt_sleep.setup.main import run
from skillopt_sleep.setup.options import Options

Handler = Callable[[Sequence[str]], Done]


def _shared_fixtures() -> ModuleType:
    """tests/plugins/conftest.py, whose fixtures run install/install.sh for real (a temp HOME, a
    Python without the engine's dependencies, a wheelhouse for offline installs): the real
    installs here use the same ones."""
    name = "_installer_fixtures"
    path = Path(__file__).resolve().parents[1] / "plugins" / "conftest.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_shared = _shared_fixtures()
kit = _shared.kit
home = _shared.home
empty_python = _shared.empty_python
wheelhouse = _shared.wheelhouse
after_run_sh = _shared.after_run_sh


@dataclass
class Machine:
    """A home, an environment, a scripted runner; ``install(...)`` runs the installer on it."""

    home: Path
    env: dict[str, str]
    windows: bool = False
    login_path: str = "/usr/local/bin:/usr/bin:/bin"
    handlers: list[tuple[Callable[[Sequence[str]], bool], Handler]] = field(default_factory=list)
    commands: FakeCommands = field(default_factory=FakeCommands)
    out: io.StringIO = field(default_factory=io.StringIO)

    def __post_init__(self) -> None:
        self.commands.default = self._answer

    @property
    def layout(self) -> Layout:
        return layout_for(self.env, windows=self.windows)

    def on(self, match: Callable[[Sequence[str]], bool], handler: Handler) -> None:
        self.handlers.insert(0, (match, handler))

    def install(self, **opts: object) -> str:
        self.out = io.StringIO()
        run(
            Options(**opts),
            env=self.env,
            commands=self.commands,
            out=self.out,  # type: ignore[arg-type]
            layout=self.layout,
            interactive=False,
        )
        return self.out.getvalue()

    def calls(self, word: str) -> list[tuple[str, ...]]:
        return [c for c in self.commands.calls if word in " ".join(c)]

    def _answer(self, argv: Sequence[str]) -> Done:
        for match, handler in self.handlers:
            if match(argv):
                return handler(argv)
        return _builtin(self, argv)


def _builtin(m: Machine, argv: Sequence[str]) -> Done:
    joined = " ".join(argv)
    if argv[1:3] == ["-m", "venv"] or argv[1:3] == ("-m", "venv"):
        bin_dir = m.layout.venv_bin(Path(argv[3]))
        bin_dir.mkdir(parents=True)
        for exe in ("python", "skillopt-sleep"):
            (bin_dir / m.layout.exe(exe)).write_text(f'#!/bin/sh\necho "{exe} {__version__}"\n')
            (bin_dir / m.layout.exe(exe)).chmod(0o755)
        return Done(0)
    if "pip wheel" in joined or list(argv[2:3]) == [str(WHEEL_WRITER)]:
        out = Path(argv[list(argv).index("-w") + 1] if "pip wheel" in joined else argv[-1])
        out.mkdir(parents=True, exist_ok=True)
        (out / "skillopt_sleep-0.1.0-py3-none-any.whl").write_bytes(b"wheel")
        return Done(0)
    if argv[1:] == ["-lc", 'printf "%s" "$PATH"']:
        return Done(0, m.login_path)
    if "import skillopt_sleep as s" in joined:
        return Done(1)  # the private environment has no engine yet
    if argv[-1] == "--version":
        if not Path(argv[0]).exists():
            raise FileNotFoundError(argv[0])
        return Done(0, f"skillopt-sleep {__version__}\n")
    return Done(0)


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    home = tmp_path / "home"
    home.mkdir()
    bin_dir = tmp_path / "empty-bin"
    bin_dir.mkdir()
    env = {"HOME": str(home), "PATH": str(bin_dir), "SHELL": "/bin/bash", "LANG": "C.UTF-8"}
    return Machine(home, env)


def listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.fixture
def tree() -> Callable[[Path], list[str]]:
    return listing
