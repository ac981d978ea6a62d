"""A skill edit lands where the agents in use load skills, and review says which agents it reaches.

Recorded sessions of the real CLIs (Copilot CLI, Qwen Code and Pi, each corrected with "No,
that's wrong: always use pytest -q") go through harvest, a simulated night, review, adopt and
rollback as a user types them. Copilot loads skills from ``.github/skills``, ``.agents/skills`` and
``.claude/skills``, Qwen Code from ``.qwen/skills`` and ``.agents/skills``, Pi from ``.pi/skills``
and ``.agents/skills``: a new skill goes into the shared ``.agents/skills`` (one file, each agent
loads it once), where before it went into ``.claude/skills``, which Qwen and Pi never load. A
skill that already lives in a folder some agents in use do not load stays there, and those agents
are named in one line of the night's notes.
"""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.rules.guards import managed_rules

from .recorded_sessions import COPILOT_CORRECTED, COPILOT_PRAISED, PI, QWEN, lay_out
from .test_adopt_crash import snapshot

SHARED_SKILL = ".agents/skills/project-conventions/SKILL.md"
RULE = "Run the test suite with `pytest -q`, never bare `pytest`."


def harvested(cli, tmp_path: Path, home: Path, *recorded: str) -> Path:
    project = tmp_path / "calc"
    project.mkdir()
    (project / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    lay_out(home, project, *recorded)
    r = cli("harvest", cwd=project)
    assert r.code == 0, r.err
    return project


def night(cli, project: Path) -> dict:
    r = cli("run", "--backend", "simulated", "--json", cwd=project)
    assert r.code == 0, r.err
    assert r.json()["decision"] == "accept", r.json()["reason"]
    return r.json()


def test_a_new_skill_for_copilot_qwen_and_pi_lands_in_the_shared_folder(
    cli, tmp_path, sandbox_home
):
    project = harvested(cli, tmp_path, sandbox_home, COPILOT_CORRECTED, COPILOT_PRAISED, QWEN, PI)
    before = snapshot(project)
    summary = night(cli, project)
    assert [e["content"] for e in summary["edits"] if e["target"] == "skill"] == [RULE]
    assert not [n for n in summary["skipped"] if "skill" in n and "do not reach" in n]

    shown = cli("review", cwd=project, env={"NO_COLOR": "1"})
    assert shown.code == 0, shown.err
    assert "  SKILL.md: Copilot CLI, Pi, Qwen Code\n" in shown.out
    assert f"+++ b/{SHARED_SKILL}" in shown.out and ".claude/skills" not in shown.out
    reaches = cli("review", "--json", cwd=project).json()["reaches"]
    assert reaches["SKILL.md"] == ["Copilot CLI", "Pi", "Qwen Code"]

    assert cli("adopt", cwd=project).code == 0
    assert managed_rules((project / SHARED_SKILL).read_text()) == [RULE]
    assert not (project / ".claude").exists()  # one file: no agent loads the skill twice

    r = cli("rollback", cwd=project)
    assert r.code == 0, r.err
    assert snapshot(project) == before  # byte-exact, the new folders gone


def test_a_skill_qwen_and_pi_do_not_load_is_copied_into_their_own_folders(
    cli, tmp_path, sandbox_home
):
    """The user's skill stays in .claude/skills (Copilot loads it there); Qwen and Pi get a copy
    each in their own folder, not in .agents/skills, which Copilot loads too (it would be listed
    the skill twice). Adopting one edit, removing its rule and rolling back cover the copies."""
    project = harvested(cli, tmp_path, sandbox_home, COPILOT_CORRECTED, QWEN, PI)
    skill = project / ".claude" / "skills" / "calc" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: calc\ndescription: How calc is built and tested.\n---\n\n# Calc\n")
    before = snapshot(project)
    summary = night(cli, project)
    assert not [n for n in summary["skipped"] if "skill edits do not reach" in n]
    numbers = [i for i, e in enumerate(summary["edits"], 1) if e["content"] == RULE]
    assert len(numbers) == 1 and summary["edits"][numbers[0] - 1]["target"] == "skill"

    shown = cli("review", cwd=project, env={"NO_COLOR": "1"})
    assert shown.code == 0, shown.err
    assert "  SKILL.md: Copilot CLI\n" in shown.out
    assert "  .pi/skills/calc/SKILL.md: Pi\n" in shown.out
    assert "  .qwen/skills/calc/SKILL.md: Qwen Code\n" in shown.out
    assert ".agents/skills" not in shown.out

    r = cli("adopt", str(numbers[0]), cwd=project)
    assert r.code == 0, r.err
    copies = [project / ".pi/skills/calc/SKILL.md", project / ".qwen/skills/calc/SKILL.md"]
    assert [c.read_text() for c in copies] == [skill.read_text()] * 2
    assert managed_rules(skill.read_text()) == [RULE]
    # the next night knows the copies for what they are: the same skill, reaching every agent
    again = cli("run", "--backend", "simulated", "--json", cwd=project)
    assert again.code == 0, again.err
    assert not [n for n in again.json()["skipped"] if "skill edits do not reach" in n]

    [rule] = cli("rules", "--json", cwd=project).json()["rules"]
    removed = cli("rules", "remove", rule["id"], cwd=project)
    assert removed.code == 0, removed.err
    assert [managed_rules(p.read_text()) for p in (skill, *copies)] == [[], [], []]

    r = cli("rollback", cwd=project)
    assert r.code == 0, r.err
    assert snapshot(project) == before  # byte-exact, the copies and their folders gone


def test_claude_code_alone_keeps_its_new_skill_in_claude_skills(cli, tmp_path, sandbox_home):
    project = harvested(cli, tmp_path, sandbox_home, COPILOT_CORRECTED)
    alone = {"SKILLOPT_SLEEP_FILES__AGENTS": '["claude-code"]'}
    r = cli("run", "--backend", "simulated", "--json", cwd=project, env=alone)
    assert r.code == 0, r.err
    assert r.json()["decision"] == "accept", r.json()["reason"]
    assert not [n for n in r.json()["skipped"] if "skill" in n]
    assert cli("adopt", cwd=project, env=alone).code == 0
    assert managed_rules((project / ".claude/skills/project-conventions/SKILL.md").read_text()) == [
        RULE
    ]
    assert not (project / ".agents").exists()
