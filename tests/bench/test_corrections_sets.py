"""``bench.corrections --sets``: a misspelt set name is refused in one line naming the sets."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_an_unknown_set_is_refused_with_the_names_to_choose_from() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.corrections", "--sets", "checks6,chekcs5"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert "unknown set chekcs5" in last
    assert "checks6" in last.split("choose from")[1]
    assert done.stdout == ""
