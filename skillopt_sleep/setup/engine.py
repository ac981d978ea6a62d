"""The engine: installed from the checkout's wheel with pipx, uv, a private virtual environment
(the default without pipx or uv: it works on PEP 668 Pythons and inside an active venv), or
`pip --user`; upgraded in place when the installation owns it; left alone when the user does.

The wheel is written from the checkout's sources by wheel.py with the standard library alone
(pip builds it, from a copy of the sources, where that cannot) and kept, so `pipx upgrade` /
`uv tool upgrade` work after the clone is gone.

The distributions a `pip --user` install adds are recorded here, so uninstall takes exactly those
away (the directories pipx and uv create on first use: tool_paths.py)."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .context import Ctx, SetupFailed
from .engine_files import files_sum, record_sum, recorded_sum
from .layout import NAME
from .tool_paths import absent_tool_paths, record_tool_paths
from .wheel import CANNOT

TOOLS = ("pipx", "uv", "venv", "pip")


@dataclass(frozen=True)
class EngineRequest:
    """How to install the engine: from which checkout (or package spec), with which Python."""

    python: str
    version: str
    source: Path | None
    package: str | None
    tool: str | None


def install_engine(ctx: Ctx, req: EngineRequest) -> Path | None:
    """Install or upgrade the engine; returns its command (None under a dry run)."""
    absent = {t: absent_tool_paths(ctx, t) for t in ("pipx", "uv")}
    tool = req.tool or _default_tool(ctx)
    checksum = files_sum(req.source, _spec(req.package))
    for t in TOOLS:
        found = installed_version(ctx, t, req.python)
        if not found:
            continue
        if not ctx.manifest.has("package", t):
            ctx.say(
                f"engine: {NAME} {found} is already installed with {t} (not by this script); "
                "leaving it"
            )
            if found != req.version:
                ctx.say(f"  note: this checkout is {req.version}; upgrade with {t} yourself")
            return engine_command(ctx, t, req.python)
        if found == req.version and checksum in (None, recorded_sum(ctx, t)):
            ctx.say(f"engine: {NAME} {found} already installed with {t}")
            return engine_command(ctx, t, req.python)
        tool = t
        if found != req.version:
            ctx.say(f"engine: upgrading {NAME} {found} to {req.version} ({t})")
        else:  # the same version string, other files: a newer checkout, or one changed since
            ctx.say(f"engine: upgrading {NAME} {found} ({t}): this checkout's files differ")
    if ctx.dry:
        where = req.package or f"a wheel built from {req.source}"
        if tool == "venv":
            where += f" into {ctx.layout.engine_venv}"
        ctx.say(f"would install the engine {NAME} {req.version} with {tool} from {where}")
        return None
    pip = pip_version(ctx, req.python) if tool == "venv" or not req.package else None
    spec = _spec(req.package) or str(build_wheel(ctx, req.python, _need_source(req), pip))
    if tool in ("pipx", "uv") and not ctx.manifest.has("package", tool):
        record_tool_paths(ctx, tool, absent[tool])
    if tool == "venv":
        _with_venv(ctx, req.python, spec, pip)
    else:
        ROUTES[tool](ctx, req.python, spec)
    if not ctx.manifest.has("package", tool):
        ctx.manifest.add("package", tool, req.python)
    if checksum is not None:
        record_sum(ctx, tool, checksum)
    return engine_command(ctx, tool, req.python)


def check_route(ctx: Ctx, req: EngineRequest) -> None:
    """Refuse a route that cannot work before anything is changed."""
    if req.tool in ("pipx", "uv") and not ctx.which(req.tool):
        raise SetupFailed(
            f"--with {req.tool}: {req.tool} is not on PATH",
            hint="install it, or leave out --with for a private environment",
        )
    if req.tool == "pip" and not ctx.manifest.has("package", "pip"):
        _check_pip_route(ctx, req.python)


def _spec(package: str | None) -> str | None:
    """``--package`` as the tools get it: a file given relative to where the user stands made
    absolute, since the tools run elsewhere (see commands.child_env)."""
    if package and Path(package).exists():
        return str(Path(package).resolve())
    return package


def _need_source(req: EngineRequest) -> Path:
    if req.source is None:
        raise SetupFailed(
            "no checkout to build the engine from",
            hint="run sh install/install.sh from a skillopt-sleep checkout, or pass "
            "--package WHEEL",
        )
    return req.source


def _default_tool(ctx: Ctx) -> str:
    return next((t for t in ("pipx", "uv") if ctx.which(t)), "venv")


def installed_version(ctx: Ctx, tool: str, python: str) -> str | None:
    """The version ``tool`` has installed, or None (a tool that is not here has none)."""
    if tool in ("pipx", "uv") and not ctx.which(tool):
        return None
    if tool == "pipx":
        lines = ctx.ask(["pipx", "list", "--short"]).stdout.splitlines()
        return next((ln.split()[1] for ln in lines if ln.startswith(f"{NAME} ")), None)
    if tool == "uv":
        lines = ctx.ask(["uv", "tool", "list"]).stdout.splitlines()
        return next((ln.split()[1].lstrip("v") for ln in lines if ln.startswith(f"{NAME} v")), None)
    if tool == "venv":
        py = _venv_python(ctx)
        if not py.exists():
            return None
        done = ctx.ask([py, "-c", "import skillopt_sleep as s; print(s.__version__)"])
        return (done.stdout.strip() or None) if done.ok else None
    # Only the user site: a system or editable install elsewhere is not ours to manage.
    done = ctx.ask([python, "-m", "pip", "list", "--user", "--format=freeze"])
    return next(
        (ln.split("==", 1)[1] for ln in done.stdout.splitlines() if ln.startswith(f"{NAME}==")),
        None,
    )


def _venv_python(ctx: Ctx) -> Path:
    return ctx.layout.venv_bin(ctx.layout.engine_venv) / ctx.layout.exe("python")


def _with_pipx(ctx: Ctx, python: str, spec: str) -> None:
    ctx.must(ctx.run(["pipx", "install", "--force", spec]), "pipx install")


def _with_uv(ctx: Ctx, python: str, spec: str) -> None:
    ctx.must(ctx.run(["uv", "tool", "install", "--force", spec]), "uv tool install")


def _with_venv(ctx: Ctx, python: str, spec: str, pip: tuple[int, ...] | None) -> None:
    py = _venv_python(ctx)
    fresh = not py.exists()
    # Made without a pip of its own when this Python's pip can install into it from outside:
    # ensurepip writes and byte-compiles a thousand files, the longest step of an install.
    outside = pip is not None and pip >= PIP_PYTHON_OPTION
    if fresh:
        ctx.make_dirs(ctx.layout.own_dir)
        bare = ["--without-pip"] if outside else []
        made = ctx.run([python, "-m", "venv", ctx.layout.engine_venv, *bare])
        if not made.ok:
            raise SetupFailed(
                f"{python} cannot make a virtual environment: {made.last_line()}",
                hint="install python3-venv (Debian/Ubuntu) or pipx, then run this again",
            )
    installer = _venv_pip(ctx, python, py, fresh=fresh, outside=outside)
    if not fresh:  # --force-reinstall without deps first: the same version from a newer checkout
        ctx.must(
            ctx.run([*installer, "install", "-q", "--force-reinstall", "--no-deps", spec]),
            "installing the engine into its environment",
        )
    ctx.must(ctx.run([*installer, "install", "-q", spec]), "installing the engine's dependencies")


# pip installs into another environment from outside it (`pip --python`) since 22.3.
PIP_PYTHON_OPTION = (22, 3)


def pip_version(ctx: Ctx, python: str) -> tuple[int, ...] | None:
    """The version of ``python``'s own pip: None when it has none, () when it does not say."""
    done = ctx.ask([python, "-m", "pip", "--version"])
    if not done.ok:
        return None
    found = re.match(r"pip (\d+)\.(\d+)", done.stdout)
    return tuple(int(n) for n in found.groups()) if found else ()


def _venv_pip(ctx: Ctx, python: str, py: Path, *, fresh: bool, outside: bool) -> list[str]:
    """The pip that installs into the engine's environment. An environment an older installer
    made (or this one, with a Python whose pip was older than 22.3) has its own, which an upgrade
    keeps using; one made without it is served by this Python's pip from outside, or, when this
    Python has no such pip (a later run with another Python), gets one from ensurepip."""
    if fresh and outside:
        return [python, "-m", "pip", "--python", str(py)]
    if fresh or pip_version(ctx, str(py)) is not None:
        return [str(py), "-m", "pip"]
    if outside:
        return [python, "-m", "pip", "--python", str(py)]
    ctx.must(ctx.run([py, "-m", "ensurepip", "-q"]), "giving the engine's environment a pip")
    return [str(py), "-m", "pip"]


def _check_pip_route(ctx: Ctx, python: str) -> None:
    probe = ctx.ask([python, "-c", _PIP_PROBE])
    if "venv" in probe.stdout:
        raise SetupFailed(
            "--with pip installs into the user site, which a virtual environment hides",
            hint="leave out --with pip; the default installs into a private environment",
        )
    if "managed" in probe.stdout and not ctx.env.get("PIP_BREAK_SYSTEM_PACKAGES"):
        raise SetupFailed(
            f"{python} is managed by the system (PEP 668) and refuses pip installs",
            hint="leave out --with pip; the default installs into a private environment",
        )


_PIP_PROBE = """import os, sys, sysconfig
if sys.prefix != getattr(sys, "base_prefix", sys.prefix): print("venv")
if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")): print("managed")
"""


def _with_pip(ctx: Ctx, python: str, spec: str) -> None:
    base = ctx.must(ctx.ask([python, "-m", "site", "--user-base"]), "asking for the user base")
    site = ctx.ask([python, "-m", "site", "--user-site"]).stdout.strip()
    ctx.expect_dirs(Path(base.stdout.strip()) / ("Scripts" if ctx.layout.windows else "bin"))
    ctx.expect_dirs(Path(site))
    before = user_dists(ctx, python)
    pip = [python, "-m", "pip", "install", "-q", "--user", "--no-warn-script-location"]
    if ctx.manifest.has("package", "pip"):  # the same version from a newer checkout replaced too
        ctx.must(ctx.run([*pip, "--force-reinstall", "--no-deps", spec]), "pip install --user")
    ctx.must(ctx.run([*pip, spec]), "pip install --user")
    # Every distribution it added (the package and its dependencies): uninstall removes them all.
    for dist in sorted(user_dists(ctx, python) - before):
        ctx.manifest.add("pip-dist", dist, python)


ROUTES = {"pipx": _with_pipx, "uv": _with_uv, "pip": _with_pip}


def engine_command(ctx: Ctx, tool: str, python: str) -> Path | None:
    """The installed engine's own command (symlinks resolved), where the launcher will run it."""
    found = expected_command(ctx, tool, python)
    return Path(os.path.realpath(found)) if found.exists() else None


def expected_command(ctx: Ctx, tool: str, python: str) -> Path:
    """Where ``tool`` puts the engine's command (it may not be there)."""
    lay = ctx.layout
    if tool == "venv":
        return lay.venv_bin(lay.engine_venv) / lay.exe(NAME)
    if tool == "pip":
        base = ctx.ask([python, "-m", "site", "--user-base"]).stdout.strip()
        return Path(base) / ("Scripts" if lay.windows else "bin") / lay.exe(NAME)
    bin_dir = ctx.env.get("PIPX_BIN_DIR") if tool == "pipx" else ctx.env.get("UV_TOOL_BIN_DIR")
    return Path(bin_dir or lay.user_bin) / lay.exe(NAME)


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


def build_wheel(ctx: Ctx, python: str, source: Path, pip: tuple[int, ...] | None) -> Path:
    """Write the wheel with ``python`` (wheel.py, the standard library alone), or build it with
    its pip (``pip``, see :func:`pip_version`) where the writer cannot; move it into the kept
    wheel directory."""
    with tempfile.TemporaryDirectory(prefix="skillopt-sleep-build-") as tmp:
        out = Path(tmp) / "out"
        written = ctx.ask([python, "-I", WHEEL_WRITER, source, out])
        if written.returncode == CANNOT:
            _pip_wheel(ctx, python, source, Path(tmp), pip)
        else:
            ctx.must(written, "writing the wheel")
        wheels = sorted(out.glob("*.whl"))
        if not wheels:
            raise SetupFailed("the build made no wheel", hint="run `python3 -m build` to see why")
        ctx.make_dirs(ctx.layout.wheel_dir)
        dest = ctx.layout.wheel_dir / wheels[0].name
        if not dest.exists():
            ctx.manifest.add("file", dest)
        shutil.move(str(wheels[0]), dest)
    return dest


# Run as a script by path: the installer's commands run without the checkout on PYTHONPATH.
WHEEL_WRITER = Path(__file__).with_name("wheel.py")


def _pip_wheel(ctx: Ctx, python: str, source: Path, tmp: Path, pip: tuple[int, ...] | None) -> None:
    """Build the wheel into ``tmp/out`` with pip, from a copy of the checkout's sources (so a build
    never writes into the checkout)."""
    stage = tmp / "src"
    stage.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(source / name, stage / name)
    shutil.copytree(
        source / "skillopt_sleep",
        stage / "skillopt_sleep",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    builder = _builder(ctx, python, tmp, pip)
    ctx.must(
        ctx.ask([builder, "-m", "pip", "wheel", "-q", "--no-deps", "-w", tmp / "out", stage]),
        "building the wheel",
    )


def _builder(ctx: Ctx, python: str, tmp: Path, pip: tuple[int, ...] | None) -> str:
    """``python`` when it has pip, else a throwaway environment's Python (which has pip)."""
    if pip is not None:
        return python
    env = tmp / "build-env"
    ctx.must(
        ctx.ask([python, "-m", "venv", env]),
        f"{python} has neither pip nor venv (install python3-venv or pipx); making a venv",
    )
    return str(ctx.layout.venv_bin(env) / ctx.layout.exe("python"))


def user_dists(ctx: Ctx, python: str) -> set[str]:
    """The distributions in ``python``'s user site."""
    done = ctx.ask([python, "-m", "pip", "list", "--user", "--format=freeze"])
    return {line.split("==", 1)[0] for line in done.stdout.splitlines() if "==" in line}
