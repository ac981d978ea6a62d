"""The 0600 secrets file the scheduled job reads, so no key is ever written into a crontab or unit.

Format: one ``KEY=value`` per line; blank lines, ``# comments`` and an ``export`` prefix are
allowed, and a value may be wrapped in single or double quotes (a hand-edited file still loads).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from ..errors import ConfigError
from ..store.files import atomic_write_text

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
HEADER = "# Secrets for the scheduled skillopt-sleep night (mode 0600). One KEY=value per line.\n"


def read_env_file(path: Path) -> dict[str, str]:
    """The variables in ``path``; {} if it does not exist. A malformed line is a ConfigError."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(
            f"cannot read {path}: {exc.strerror}", hint="check its permissions"
        ) from exc
    values: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        key, sep, value = line.partition("=")
        if not sep or not _KEY.fullmatch(key.strip()):
            raise ConfigError(
                f"{path}:{number} is not KEY=value", hint=f"fix or remove that line of {path}"
            )
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[key.strip()] = value
    return values


def too_open(path: Path) -> bool:
    """True when others than the owner may read the file (POSIX only)."""
    if os.name != "posix":
        return False
    try:
        mode = Path(path).stat().st_mode
    except OSError:
        return False
    return bool(mode & (stat.S_IRWXG | stat.S_IRWXO))


def merge_env_file(path: Path, updates: dict[str, str]) -> tuple[bool, list[str]]:
    """Set ``updates`` in the file (mode 0600), keeping every other line as it was.

    Returns (whether the file was created, the keys written).
    """
    for key, value in updates.items():
        if not _KEY.fullmatch(key) or "\n" in value or "\r" in value:
            raise ConfigError(f"cannot store {key!r} in {path}", hint="values must be one line")
    path = Path(path)
    created = not path.exists()
    lines = [] if created else path.read_text(encoding="utf-8").splitlines(keepends=True)
    remaining = dict(updates)
    out: list[str] = []
    for line in lines:
        line_key = _line_key(line)
        if line_key is not None and line_key in remaining:
            out.append(f"{line_key}={remaining.pop(line_key)}\n")
        else:
            out.append(line if line.endswith("\n") else line + "\n")
    if created:
        out.append(HEADER)
    out.extend(f"{key}={value}\n" for key, value in remaining.items())
    atomic_write_text(path, "".join(out), mode=0o600)
    return created, sorted(updates)


def remove_env_keys(path: Path, keys: list[str], *, delete_if_only_ours: bool) -> None:
    """Drop ``keys`` from the file; delete the file when nothing of the user's is left in it."""
    path = Path(path)
    if not path.exists():
        return
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if _line_key(line) not in set(keys)]
    if delete_if_only_ours and all(line == HEADER or not line.strip() for line in kept):
        path.unlink()
        return
    atomic_write_text(path, "".join(kept), mode=0o600)


def _line_key(line: str) -> str | None:
    text = line.strip()
    if text.startswith("export "):
        text = text[len("export ") :].lstrip()
    key, sep, _ = text.partition("=")
    return key.strip() if sep and _KEY.fullmatch(key.strip()) else None
