"""The adopted skill is listed to each real agent's model once, from where the night put it.

A Copilot CLI + Qwen Code + Pi project (their recorded sessions, harvested) has a night and an
adoption through the CLI, as in test_skill_reaches_agents.py: a new skill lands in the shared
``.agents/skills``; a skill the user keeps in ``.claude/skills`` (Copilot's) gets copies in
``.qwen/skills`` and ``.pi/skills``. Then each real CLI, pinned and offline, answers one prompt
in that project against the loopback model server, and its first request must list the skill
(its frontmatter name and description) exactly once.
"""

from __future__ import annotations

import os
import re

import pytest

from skillopt_sleep.rules.guards import managed_rules
from skillopt_sleep.testing import ModelServer, Text
from skillopt_sleep.testing.copilot_agent import run_copilot, which_copilot
from skillopt_sleep.testing.pi_agent import run_pi, which_pi
from skillopt_sleep.testing.qwen_agent import run_qwen, which_qwen

from .recorded_sessions import COPILOT_CORRECTED, COPILOT_PRAISED, PI, QWEN
from .test_rule_reaches_real_agents import PINNED, strings
from .test_skill_reaches_agents import RULE, harvested, night

pytestmark = [pytest.mark.realbin, pytest.mark.slow]

AGENTS = {
    "copilot": (which_copilot, lambda **kw: run_copilot("hello", **kw)),
    "pi": (which_pi, lambda **kw: run_pi("hello", extra=["--no-session"], **kw)),
    "qwen": (which_qwen, lambda **kw: run_qwen("hello", extra=["--chat-recording=false"], **kw)),
}
USERS = "---\nname: calc\ndescription: How calc is built and tested.\n---\n\n# Calc\n"
LAYOUTS = {  # the skill's files after adopt, and its name and description
    "new": (
        [".agents/skills/project-conventions/SKILL.md"],
        "project-conventions",
        "Conventions of this project, learned from its sessions by skillopt-sleep.",
    ),
    "users": (
        [f"{f}/calc/SKILL.md" for f in (".claude/skills", ".pi/skills", ".qwen/skills")],
        "calc",
        "How calc is built and tested.",
    ),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("agent", list(AGENTS))
def test_the_adopted_skill_is_listed_to_the_model_once(
    agent, layout, cli, tmp_path, sandbox_home, monkeypatch
):
    which, run = AGENTS[agent]
    project = harvested(cli, tmp_path, sandbox_home, COPILOT_CORRECTED, COPILOT_PRAISED, QWEN, PI)
    if layout == "users":
        (project / ".claude/skills/calc").mkdir(parents=True)
        (project / ".claude/skills/calc/SKILL.md").write_text(USERS)
    night(cli, project)
    assert cli("adopt", cwd=project).code == 0
    files, name, description = LAYOUTS[layout]
    assert sorted(p.relative_to(project).as_posix() for p in project.rglob("SKILL.md")) == files
    assert all(managed_rules((project / f).read_text()) == [RULE] for f in files)

    if PINNED.is_dir():
        monkeypatch.setenv("PATH", f"{PINNED}{os.pathsep}{os.environ['PATH']}")
    if which() is None:
        pytest.skip(f"{agent} is not installed")
    with ModelServer(responder=lambda call: Text("ok")) as server:
        done = run(home=tmp_path / "agent-home", url=server.url, cwd=project, timeout=240)
        assert done.code == 0, done.err[-2000:]
        bodies = [r.body for r in server.model_requests()]
    listed = [b for b in bodies if any(description in text for text in strings(b))]
    assert listed, (agent, "the skill is in no request")
    text = "\n".join(strings(listed[0]))
    assert text.count(description) == 1, (agent, layout, text.count(description))
    assert len(re.findall(rf"<name>\s*{re.escape(name)}\s*</name>", text)) == 1, (agent, layout)
