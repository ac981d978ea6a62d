"""The sessions the real agent CLIs recorded (tests/fixtures/transcripts/<agent>), laid out in a
test's HOME as if they had been recorded in one project of its own: every path the recording
names (in the files and in the folder names each agent derives from it) is the test's project."""

from __future__ import annotations

import re
from pathlib import Path

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
# where each recording was made (the longest first: one is a prefix of another)
RECORDED_IN = ("/home/user/calc-project", "/home/user/calc", "/home/dev/work/calc")

COPILOT_CORRECTED = "copilot/.copilot/session-state/e3551bd7-1e86-42ac-91d6-5ff108467236"
COPILOT_PRAISED = "copilot/.copilot/session-state/2ebcadb7-e609-4a62-a970-f7ccd919a195"
GEMINI_CORRECTED = "gemini/.gemini/tmp/calc-project/chats/session-2026-11-26T15-42-42eaee10.jsonl"
GEMINI_PROJECTS = "gemini/.gemini"  # projects.json and tmp/calc-project/.project_root
QWEN = "qwen/.qwen"
PI = "pi/.pi"
REQUEST, FIX = "run the tests please", "No, that's wrong: always use pytest -q"


def _dashed(path: str, keep: str) -> str:
    return re.sub(keep, "-", path.strip("/"))


def lay_out(home: Path, project: Path, *recorded: str) -> None:
    """Copy the recorded files or folders ``recorded`` (relative to the fixtures, the agent's
    folder first) into ``home``, recorded in ``project`` instead."""
    renames = {
        "-home-dev-work-calc": "-" + _dashed(str(project), r"[^A-Za-z0-9]"),  # qwen's folder
        "--home-dev-work-calc--": "--" + _dashed(str(project), r"[/\\:]") + "--",  # pi's
    }
    for name in recorded:
        top = TRANSCRIPTS / name
        agent_root = TRANSCRIPTS / name.split("/", 1)[0]
        files = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
        for path in files:
            if top.is_dir() and top.name == ".gemini" and "chats" in path.parts:
                continue  # the folder's own files only; the chats are named one by one
            parts = [renames.get(p, p) for p in path.relative_to(agent_root).parts]
            text = path.read_text(encoding="utf-8")
            for old in RECORDED_IN:
                text = text.replace(old, str(project))
            out = home.joinpath(*parts)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
