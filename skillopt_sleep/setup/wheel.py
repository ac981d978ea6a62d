"""The wheel the engine is installed from, built from a copy of the checkout's sources (so a
build never writes into the checkout) and kept, so `pipx upgrade` / `uv tool upgrade` work
after the clone is gone."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from .context import Ctx, SetupFailed


def checkout_version(source: Path) -> str:
    """The version a checkout would install, read from its sources (not imported)."""
    text = (source / "skillopt_sleep" / "__init__.py").read_text(encoding="utf-8")
    found = re.search(r'^__version__ = "([^"]+)"$', text, re.MULTILINE)
    if not found:
        raise SetupFailed(
            f"{source} has no __version__ in skillopt_sleep/__init__.py",
            hint="run the installer from an unmodified skillopt-sleep checkout",
        )
    return found.group(1)


def build_wheel(ctx: Ctx, python: str, source: Path) -> Path:
    """Build the wheel with ``python`` and move it into the kept wheel directory."""
    with tempfile.TemporaryDirectory(prefix="skillopt-sleep-build-") as tmp:
        stage = Path(tmp) / "src"
        stage.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(source / name, stage / name)
        shutil.copytree(
            source / "skillopt_sleep",
            stage / "skillopt_sleep",
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
        )
        builder = _builder(ctx, python, Path(tmp))
        out = Path(tmp) / "out"
        ctx.must(
            ctx.ask([builder, "-m", "pip", "wheel", "-q", "--no-deps", "-w", out, stage]),
            "building the wheel",
        )
        wheels = sorted(out.glob("*.whl"))
        if not wheels:
            raise SetupFailed("the build made no wheel", hint="run `python3 -m build` to see why")
        ctx.make_dirs(ctx.layout.wheel_dir)
        dest = ctx.layout.wheel_dir / wheels[0].name
        if not dest.exists():
            ctx.manifest.add("file", dest)
        shutil.move(str(wheels[0]), dest)
    return dest


def _builder(ctx: Ctx, python: str, tmp: Path) -> str:
    """``python`` when it has pip, else a throwaway environment's Python (which has pip)."""
    if ctx.ask([python, "-m", "pip", "--version"]).ok:
        return python
    env = tmp / "build-env"
    ctx.must(
        ctx.ask([python, "-m", "venv", env]),
        f"{python} has neither pip nor venv (install python3-venv or pipx); making a venv",
    )
    return str(ctx.layout.venv_bin(env) / ctx.layout.exe("python"))
