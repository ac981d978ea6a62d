"""A fresh project and data home for one simulated user (one seed) of a benchmark."""

from __future__ import annotations

import shutil
from pathlib import Path

from skillopt_sleep.paths import Paths, resolve_paths
from skillopt_sleep.store import Store


def seed_home(workdir: Path, seed: int) -> tuple[Path, Paths, Store]:
    """``workdir/seed-N``, emptied: its project directory, its paths and its opened store. One
    path per seed, so a seed's nights have the same ids (and the gate the same draws) in every run."""
    root = workdir / f"seed-{seed}"
    shutil.rmtree(root, ignore_errors=True)
    project, home = root / "project", root / "home"
    project.mkdir(parents=True)
    paths = resolve_paths(str(home)).ensure()
    return project, paths, Store.open(paths.db)
