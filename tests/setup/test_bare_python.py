"""The installer runs before the engine's dependencies exist: `python -m skillopt_sleep.setup`
from a checkout imports only the standard library."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROBE = """import sys
import skillopt_sleep.setup.main, skillopt_sleep.setup.uninstall
ours = sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "platformdirs", "httpx",
              "anthropic", "openai") or m.startswith("skillopt_sleep.backends"))
print(ours)
"""


def test_setup_imports_none_of_the_engines_dependencies():
    r = subprocess.run(
        [sys.executable, "-c", PROBE],
        check=False,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=60,
    )
    assert (r.returncode, r.stdout, r.stderr) == (0, "[]\n", "")
