"""What the real OpenCode puts before the model: which memory files and skill folders it reads.
A rule skillopt-sleep writes for OpenCode must land in a file it reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillopt_sleep.testing import ModelServer, Text
from skillopt_sleep.testing.opencode_agent import (
    make_project,
    run_opencode,
    scripted,
    which_opencode,
)

pytestmark = [pytest.mark.realbin, pytest.mark.slow]
SKILLS = (".opencode/skills", ".claude/skills", ".agents/skills")


def _seen(tmp_path: Path) -> str:
    """Everything the model was sent for one prompt, as text."""
    home, project = tmp_path / "agent-home", make_project(tmp_path / "calc")
    (project / "CLAUDE.md").write_text("claude-md-rule\n")
    (project / "AGENTS.md").write_text("agents-md-rule\n")
    (home / ".config" / "opencode").mkdir(parents=True)
    (home / ".config" / "opencode" / "AGENTS.md").write_text("global-agents-md-rule\n")
    for n, folder in enumerate(SKILLS):
        skill = project / folder / f"skill-{n}"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(f"---\nname: skill-{n}\ndescription: d\n---\nbody\n")
    with ModelServer(responder=scripted([Text("ok")])) as srv:
        run = run_opencode("say hello", home=home, url=srv.url, cwd=project)
        bodies = [r.body for r in srv.requests if isinstance(r.body, dict) and r.body.get("tools")]
    assert run.code == 0, run.err[-500:]
    return json.dumps(bodies)


def test_opencode_reads_agents_md_not_claude_md_beside_it_and_three_skill_folders(tmp_path):
    """That OpenCode reads CLAUDE.md where there is no AGENTS.md is asserted on the fresh
    recording in test_opencode.py, whose project has only a CLAUDE.md: one opencode start fewer."""
    if which_opencode() is None:
        pytest.skip("opencode is not installed (npm i -g opencode-ai)")
    seen = _seen(tmp_path / "both")
    assert "agents-md-rule" in seen and "global-agents-md-rule" in seen
    assert "claude-md-rule" not in seen
    assert all(f"skill-{n}" in seen for n in range(len(SKILLS)))
