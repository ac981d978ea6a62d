"""The demo's printed next steps run as pasted: they carry the demo's own home, quoted."""

from __future__ import annotations

import subprocess
from pathlib import Path


def test_the_demo_commands_review_and_adopt_when_pasted_into_a_shell(
    cli, tmp_path: Path, sandbox_home: Path, subprocess_env: dict[str, str]
) -> None:
    root = tmp_path / "my demo's dir"  # a space and a quote: the shell must get them quoted
    r = cli("demo", "--dir", str(root))
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    steps = lines.index(
        "Nothing live changed. To review the proposal and adopt it into the demo project:"
    )
    review, adopt = (line.strip() for line in lines[steps + 1 : steps + 3])
    assert "(review with the commands below)" in r.out and "`skillopt-sleep review`" not in r.out
    home = "SKILLOPT_SLEEP_HOME='" + str(root / "home").replace("'", "'\"'\"'") + "'"
    assert review.startswith(home + " ") and " review --project '" in review
    assert adopt.startswith(home + " ") and " adopt --project '" in adopt
    # pasted into a shell whose own SKILLOPT_SLEEP_HOME is elsewhere
    shown = subprocess.run(
        ["sh", "-c", review], env=subprocess_env, capture_output=True, text=True, timeout=120
    )
    assert shown.returncode == 0, shown.stderr
    assert "+<!-- skillopt-sleep:begin -->" in shown.stdout
    live = root / "project" / "CLAUDE.md"
    assert "skillopt-sleep:begin" not in live.read_text()
    adopted = subprocess.run(
        ["sh", "-c", adopt], env=subprocess_env, capture_output=True, text=True, timeout=120
    )
    assert adopted.returncode == 0, adopted.stderr
    assert "skillopt-sleep:begin" in live.read_text()
    assert not (sandbox_home / "sleep-home" / "data").exists()
