"""The private ``CODEX_HOME`` a replay runs with: the user's login (linked, a refreshed one
written back), a ``config.toml`` holding only their model and provider and our replay switches,
removed when the backend closes, or by the next run after a kill (see :mod:`.codex_cli`)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomli_w

from ..lock import pid_alive
from ..settings import RoleSettings
from ..store.files import atomic_write_bytes

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10
    import tomli as tomllib

REPLAY_CONFIG: dict[str, Any] = {
    "project_doc_max_bytes": 0,
    "skills": {"include_instructions": False, "bundled": {"enabled": False}},
}
OWN_PROVIDER = "skillopt"


def codex_home(env: Mapping[str, str]) -> Path:
    """The user's Codex home: ``$CODEX_HOME``, else ``~/.codex``."""
    if env.get("CODEX_HOME"):
        return Path(env["CODEX_HOME"]).expanduser()
    return Path(env.get("HOME") or Path.home()) / ".codex"


def user_config(home: Path) -> dict[str, Any]:
    """The user's ``config.toml``, or {} when missing or unreadable."""
    try:
        loaded: dict[str, Any] = tomllib.loads((home / "config.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    return loaded


def replay_config(user: Mapping[str, Any], role: RoleSettings) -> dict[str, Any]:
    """The private ``config.toml``: the user's model and provider, our replay switches."""
    cfg: dict[str, Any] = {
        k: user[k] for k in ("model", "model_provider", "openai_base_url") if k in user
    }
    provider = user.get("model_provider")
    table = (user.get("model_providers") or {}).get(provider) if provider else None
    if isinstance(table, dict):
        cfg["model_providers"] = {provider: dict(table)}
    if role.base_url:
        own: dict[str, Any] = {
            "name": OWN_PROVIDER,
            "base_url": role.base_url,
            "wire_api": "responses",
            "request_max_retries": 0,
            "stream_max_retries": 0,
        }
        if role.api_key_env:
            own["env_key"] = role.api_key_env
        cfg["model_provider"] = OWN_PROVIDER
        cfg["model_providers"] = {OWN_PROVIDER: own}
    if role.model:
        cfg["model"] = role.model
    cfg.update(REPLAY_CONFIG)
    return cfg


PRIVATE_PREFIX = "skillopt-codex-"
OWNER_FILE = "owner.pid"


def sweep_private_homes(tmp: Path | None = None) -> list[Path]:
    """Remove the private homes whose owner process is gone (a night killed with no chance to
    clean up); returns what was removed. A home without an owner file is left alone."""
    removed = []
    for path in Path(tmp or tempfile.gettempdir()).glob(f"{PRIVATE_PREFIX}*"):
        try:
            pid = int((path / OWNER_FILE).read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            continue
        if pid != os.getpid() and not pid_alive(pid):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


class PrivateHome:
    """A throwaway ``CODEX_HOME`` reaching the user's login through a link (a copy only where
    links cannot be made), a refreshed login written back."""

    def __init__(self, user_home: Path, config: Mapping[str, Any]) -> None:
        self.user_home = user_home
        sweep_private_homes()
        self.path = Path(tempfile.mkdtemp(prefix=PRIVATE_PREFIX))  # owner-only (0700)
        self._cleanup = weakref.finalize(self, shutil.rmtree, str(self.path), True)
        (self.path / OWNER_FILE).write_text(str(os.getpid()), encoding="utf-8")
        (self.path / "config.toml").write_text(tomli_w.dumps(dict(config)), encoding="utf-8")
        self._auth = _read(user_home / "auth.json")
        if self._auth is not None:
            try:
                os.symlink(user_home / "auth.json", self.path / "auth.json")
            except OSError:  # no links here (some Windows setups): the one place a copy is made
                atomic_write_bytes(self.path / "auth.json", self._auth, mode=0o600)

    def sync_back(self) -> None:
        """Write a login Codex refreshed in the copy back to the user's home, unless theirs moved."""
        mine = _read(self.path / "auth.json")
        if mine is None or self._auth is None or mine == self._auth:
            return
        if _read(self.user_home / "auth.json") == self._auth:
            atomic_write_bytes(self.user_home / "auth.json", mine, mode=0o600)
        self._auth = mine

    def remove(self) -> None:
        self._cleanup()


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None
