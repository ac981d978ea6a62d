"""The hook's detached drainer is reaped when it ends: a process that calls the CLI in-process
and lives on keeps no zombie and drops no running child (Python reports that as a leak)."""

from __future__ import annotations

import json
import time
from pathlib import Path


def test_the_hook_starts_its_drainer_and_leaves_no_child_unwaited(
    cli, subprocess_env: dict[str, str], tmp_path: Path
) -> None:
    hook = {
        "session_id": "11111111-2222-4333-8444-555555555555",
        "transcript_path": str(tmp_path / "session.jsonl"),
        "hook_event_name": "Stop",
    }
    r = cli("log", stdin=json.dumps(hook), env=subprocess_env)
    assert (r.code, r.err) == (0, "")
    time.sleep(0.1)  # the leak, if any, is reported when the hook's Popen object is dropped
