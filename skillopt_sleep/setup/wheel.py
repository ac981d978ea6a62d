"""The engine's wheel, written from a checkout with the standard library alone.

The checkout is pure Python and its pyproject.toml asks setuptools for little (packages found by
name, a few data globs), so the wheel is a zip of those files and four metadata files. Building it
through pip instead made an isolated environment, installed setuptools into it from the package
index and started its backend twice: two CPU-seconds and a download at every install and upgrade.

A checkout this writer cannot read the same way setuptools would (no ``tomllib``, so Python 3.10;
a field it does not know, ``dynamic`` metadata, a MANIFEST.in) exits with :data:`CANNOT`, and the
installer builds with pip as before. Run as a script (``python -I .../wheel.py SOURCE OUTDIR``,
through the installer's command runner), so it imports nothing of the package.
"""

from __future__ import annotations

import base64
import fnmatch
import hashlib
import importlib
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

CANNOT = 3  # the exit code for "build it with pip instead"

_PROJECT_KEYS = {
    "name",
    "version",
    "description",
    "readme",
    "requires-python",
    "license",
    "dependencies",
    "optional-dependencies",
    "scripts",
}
_README_TYPES = {".md": "text/markdown", ".rst": "text/x-rst", ".txt": "text/plain"}


class Unsupported(Exception):
    """The checkout asks for something only setuptools does."""


def write_wheel(source: Path, out: Path) -> Path:
    """Write the wheel of the checkout at ``source`` into ``out``; its path."""
    project, include, package_data = _read(source)
    name, version = project["name"], project["version"]
    if not re.fullmatch(r"[a-z0-9]+([-_][a-z0-9]+)*", name) or not re.fullmatch(
        r"\d+(\.\d+)*", version
    ):
        raise Unsupported(f"name {name!r} or version {version!r} needs normalizing")
    dist = f"{name.replace('-', '_')}-{version}"
    files = _files(source, include, package_data)
    meta = {
        f"{dist}.dist-info/METADATA": _metadata(source, project),
        f"{dist}.dist-info/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: skillopt-sleep setup\nRoot-Is-Purelib: true\n"
            "Tag: py3-none-any\n"
        ),
        f"{dist}.dist-info/entry_points.txt": _entry_points(project),
    }
    out.mkdir(parents=True, exist_ok=True)
    wheel = out / f"{dist}-py3-none-any.whl"
    record = []
    # strict_timestamps off: a checkout dated before 1980 (a Nix store) is stored as 1980
    with zipfile.ZipFile(
        wheel, "w", compression=zipfile.ZIP_DEFLATED, strict_timestamps=False
    ) as zf:
        for rel in files:
            data = (source / rel).read_bytes()
            zf.write(source / rel, rel)
            record.append(_record_line(rel, data))
        for rel, text in meta.items():
            data = text.encode("utf-8")
            _writestr(zf, rel, data)
            record.append(_record_line(rel, data))
        record.append(f"{dist}.dist-info/RECORD,,")
        _writestr(zf, f"{dist}.dist-info/RECORD", ("\n".join(record) + "\n").encode("utf-8"))
    return wheel


def _read(source: Path) -> tuple[dict[str, Any], list[str], dict[str, list[str]]]:
    try:  # imported by name: the installer itself runs on 3.10, which has no tomllib
        tomllib = importlib.import_module("tomllib")
    except ImportError as exc:
        raise Unsupported("no tomllib before Python 3.11") from exc
    if (source / "MANIFEST.in").exists():
        raise Unsupported("MANIFEST.in")
    with open(source / "pyproject.toml", "rb") as fh:
        pyproject = tomllib.load(fh)
    project = pyproject.get("project", {})
    backend = pyproject.get("build-system", {}).get("build-backend")
    if backend != "setuptools.build_meta" or set(project) - _PROJECT_KEYS:
        raise Unsupported(f"backend {backend}, fields {sorted(set(project) - _PROJECT_KEYS)}")
    tool = pyproject.get("tool", {}).get("setuptools", {})
    find = tool.get("packages", {}).get("find")
    if (
        set(tool) - {"packages", "package-data"}
        or not isinstance(find, dict)
        or set(find) != {"include"}
    ):
        raise Unsupported("[tool.setuptools] beyond packages.find.include and package-data")
    package_data = tool.get("package-data", {})
    if {"", "*"} & set(package_data):
        raise Unsupported("package-data for every package")
    return project, list(find["include"]), package_data


def _files(source: Path, include: list[str], package_data: dict[str, list[str]]) -> list[str]:
    """What setuptools puts in the wheel: the modules of every package its find includes (a
    directory with ``__init__.py``, reached only through such directories), and the data files
    package-data names."""
    found: set[str] = set()

    def walk(directory: Path, dotted: str) -> None:
        for child in sorted(directory.iterdir()):
            if "." in child.name or not (child / "__init__.py").is_file():
                continue
            package = f"{dotted}.{child.name}" if dotted else child.name
            if any(fnmatch.fnmatchcase(package, pattern) for pattern in include):
                found.update(_rel(source, p) for p in child.glob("*.py") if p.is_file())
                for pattern in package_data.get(package, []):
                    found.update(_rel(source, p) for p in child.glob(pattern) if p.is_file())
            walk(child, package)

    walk(source, "")
    return sorted(found)


def _rel(source: Path, path: Path) -> str:
    return path.relative_to(source).as_posix()


def _metadata(source: Path, project: dict[str, Any]) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
    ]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    license_ = project.get("license")
    if isinstance(license_, dict) and set(license_) == {"text"}:
        lines.append(f"License: {license_['text']}")
    elif license_ is not None:
        raise Unsupported("a license that is not {text = ...}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    readme = project.get("readme")
    if readme is not None and (
        not isinstance(readme, str) or Path(readme).suffix not in _README_TYPES
    ):
        raise Unsupported("a readme that is not a .md, .rst or .txt file")
    if readme:
        lines.append(f"Description-Content-Type: {_README_TYPES[Path(readme).suffix]}")
    lines += [f"Requires-Dist: {_requirement(r)}" for r in project.get("dependencies", [])]
    for extra, reqs in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f"Requires-Dist: {_requirement(r, extra)}" for r in reqs]
    text = "\n".join(lines) + "\n"
    if readme:
        text += "\n" + (source / readme).read_text(encoding="utf-8")
    return text


def _requirement(req: str, extra: str | None = None) -> str:
    """``req`` as setuptools writes it: markers in double quotes, an extra's own marker added."""
    spec, _, marker = (part.strip() for part in req.partition(";"))
    marker = marker.replace("'", '"')
    if extra is not None:
        marker = f'({marker}) and extra == "{extra}"' if marker else f'extra == "{extra}"'
    return f"{spec}; {marker}" if marker else spec


def _entry_points(project: dict[str, Any]) -> str:
    scripts = project.get("scripts", {})
    if not scripts:
        return ""
    return "[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in scripts.items())


def _record_line(rel: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{rel},sha256={digest},{len(data)}"


def _writestr(zf: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = 0o644 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data)


def main(argv: list[str]) -> int:
    """``wheel.py SOURCE OUTDIR``: prints the wheel's path; :data:`CANNOT` with the reason."""
    try:
        print(write_wheel(Path(argv[0]), Path(argv[1])))
    except Unsupported as exc:
        print(f"cannot write this wheel without setuptools: {exc}", file=sys.stderr)
        return CANNOT
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
