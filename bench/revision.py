"""A revision of the package, extracted beside the work tree, for a bench that measures this tree
against it in the same run."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def extract(revision: str, dest: Path) -> Path:
    """The package of ``revision`` under ``dest``, from ``git archive``: no bytecode and nothing
    of the work tree, so the baseline is the revision exactly."""
    tar = subprocess.run(
        ["git", "-C", str(REPO), "archive", revision, "skillopt_sleep"],
        capture_output=True,
        check=False,
    )
    if tar.returncode != 0:
        raise SystemExit(f"git archive {revision} failed: {tar.stderr.decode().strip()}")
    with tarfile.open(fileobj=io.BytesIO(tar.stdout)) as archive:
        if hasattr(tarfile, "data_filter"):  # Python 3.12, and 3.11.4 / 3.10.12 on
            archive.extractall(dest, filter="data")
        else:  # older: an archive of this repository holds no link out of ``dest``
            archive.extractall(dest)
    return dest
