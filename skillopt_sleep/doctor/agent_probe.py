"""Ask the agents themselves whether they load the plugin: files on disk can say "installed"
while the agent fails to load it (a directory marketplace whose directory is gone)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..errors import SleepError
from ..schedule.runner import Runner

# A skill listed to the model: "- <name>: <description> (file: ...)".
_SKILL_LINE = re.compile(r"^- ([\w.:-]+): ", re.MULTILINE)


def claude_load_errors(runner: Runner, plugin_id: str) -> list[str] | None:
    """What `claude plugin list --json` reports as errors for ``plugin_id`` ([] when it loads);
    None when Claude Code could not be asked or does not list it."""
    try:
        result = runner.run(["claude", "plugin", "list", "--json"], input="")
    except SleepError:
        return None
    if result.code != 0:
        return None
    try:
        listed = json.loads(result.out)
    except ValueError:
        return None
    for entry in listed if isinstance(listed, list) else []:
        if isinstance(entry, dict) and entry.get("id") == plugin_id:
            errors = entry.get("errors") or []
            return [str(e) for e in errors] if isinstance(errors, list) else [str(errors)]
    return None


def codex_skill_names(runner: Runner, project: Path) -> list[str] | None:
    """The skills Codex lists to its model in ``project`` (`codex debug prompt-input`, which
    calls no model), or None when Codex could not be asked."""
    try:
        result = runner.run(["codex", "-C", str(project), "debug", "prompt-input"], input="")
    except SleepError:
        return None
    if result.code != 0 or "<skills_instructions>" not in result.out:
        return None
    try:
        items = json.loads(result.out)
    except ValueError:
        return None
    listing = next((t for t in _strings(items) if "<skills_instructions>" in t), "")
    return _SKILL_LINE.findall(listing)


def _strings(value: object) -> list[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []
