"""Where skillopt-sleep keeps its files: platformdirs, all moved by one home directory."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import platformdirs

from .errors import StoreError

APP = "skillopt-sleep"
HOME_ENV = "SKILLOPT_SLEEP_HOME"


@dataclass(frozen=True)
class Paths:
    """Every directory and file the tool writes. Build it with :func:`resolve_paths`."""

    config_dir: Path
    data_dir: Path
    state_dir: Path
    log_dir: Path

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.toml"

    @property
    def env_file(self) -> Path:
        """0600 file of secrets the scheduled job reads (never a crontab line)."""
        return self.config_dir / "secrets.env"

    @property
    def db(self) -> Path:
        return self.data_dir / "skillopt-sleep.db"

    @property
    def nights_dir(self) -> Path:
        return self.data_dir / "nights"

    @property
    def backups_dir(self) -> Path:
        return self.data_dir / "backups"

    @property
    def lock_file(self) -> Path:
        return self.state_dir / "night.lock"

    def night_dir(self, night_id: str) -> Path:
        return self.nights_dir / night_id

    def ensure(self) -> Paths:
        """Create the directories; one that cannot be made is a :class:`StoreError` naming it."""
        for d in (self.config_dir, self.data_dir, self.state_dir, self.log_dir):
            try:
                d.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(
                    f"cannot create {d}: {exc.strerror or exc}",
                    hint=f"make it writable, or point {HOME_ENV} at a directory you can write",
                ) from exc
        return self


def resolve_paths(home: str | None) -> Paths:
    """Paths under ``home`` (``SKILLOPT_SLEEP_HOME``) if given, else the platform's user dirs."""
    if home:
        root = Path(home).expanduser().resolve()
        return Paths(root / "config", root / "data", root / "state", root / "logs")
    return Paths(
        Path(platformdirs.user_config_dir(APP)),
        Path(platformdirs.user_data_dir(APP)),
        Path(platformdirs.user_state_dir(APP)),
        Path(platformdirs.user_log_dir(APP)),
    )
