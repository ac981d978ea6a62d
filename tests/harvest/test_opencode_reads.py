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


def _seen(tmp_path: Path, with_agents_md: bool) -> str:
    """Everything the model was sent for one prompt, as text."""
    home, project = tmp_path / "agent-home", make_project(tmp_path / "calc")
    (project / "CLAUDE.md").write_text("claude-md-rule\n")
    if with_agents_md:
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


def test_opencode_reads_agents_md_and_claude_md_only_without_it_and_three_skill_folders(
    tmp_path,
):
    if which_opencode() is None:
        pytest.skip("opencode is not installed (npm i -g opencode-ai)")
    seen = _seen(tmp_path / "both", with_agents_md=True)
    assert "agents-md-rule" in seen and "global-agents-md-rule" in seen
    assert "claude-md-rule" not in seen
    assert all(f"skill-{n}" in seen for n in range(len(SKILLS)))
    assert "claude-md-rule" in _seen(tmp_path / "claude-only", with_agents_md=False)
