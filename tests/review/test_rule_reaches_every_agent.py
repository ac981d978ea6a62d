"""One validated rule reaches every agent a project uses, once.

Copilot CLI loads CLAUDE.md and AGENTS.md together, so with more than Claude Code in use a rule
lives in AGENTS.md alone, and Claude Code (``.claude/rules/skillopt-sleep.md``) and Gemini CLI
(``GEMINI.md``) get a managed import of it. These tests drive a night, ``review``, ``adopt``,
``rollback`` and ``rules remove`` through the CLI as a user types them, then count, per agent,
how many times the files it loads give it each rule (the real CLIs are counted in
``test_rule_reaches_real_agents.py``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from skillopt_sleep.clock import SystemClock
from skillopt_sleep.night.demo import SKILL_PATH, sample_tasks, write_sample_project
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.rules.guards import managed_rules
from skillopt_sleep.rules.placement import Placement, reads_per_agent
from skillopt_sleep.store import Store

from .test_adopt_crash import snapshot

ALL_PROVEN = {"SKILLOPT_SLEEP_NIGHT__EDIT_BUDGET": "8"}
CLAUDE_RULES = ".claude/rules/skillopt-sleep.md"
BEGIN, END = "<!-- skillopt-sleep:begin -->", "<!-- skillopt-sleep:end -->"


def project_used_by(root: Path, *sources: str) -> Path:
    """The sample project (a hand-written CLAUDE.md and a skill) whose logged tasks came from
    ``sources`` in turn."""
    project = root / "project"
    write_sample_project(project)
    tasks = sample_tasks(project)
    tasks = [
        t.model_copy(update={"source": sources[i % len(sources)]}) for i, t in enumerate(tasks)
    ]
    store = Store.open(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).db)
    store.upsert_tasks(tasks, SystemClock().now())
    return project


def live_texts(project: Path) -> dict[str, str]:
    names = ("CLAUDE.md", "AGENTS.md", "GEMINI.md", CLAUDE_RULES)
    return {n: (project / n).read_text() for n in names if (project / n).is_file()}


def reads(project: Path, agents: tuple[str, ...], rule: str) -> dict[str, int]:
    return reads_per_agent(Placement(agents), live_texts(project), rule)


def night(cli, project: Path) -> dict:
    r = cli("run", "--project", str(project), "--backend", "simulated", "--json", env=ALL_PROVEN)
    assert r.code == 0, r.err
    assert r.json()["decision"] == "accept", r.json()["reason"]
    return r.json()


def memory_rules(summary: dict) -> list[str]:
    return [e["content"] for e in summary["edits"] if e["target"] == "memory"]


def test_claude_code_and_copilot_read_each_adopted_rule_once(cli, tmp_path):
    project = project_used_by(tmp_path, "claude-code", "copilot")
    before = snapshot(project)
    summary = night(cli, project)
    proposal = json.loads((Path(summary["proposal_dir"]) / "proposal.json").read_text())
    assert {f["name"] for f in proposal["files"]} == {"SKILL.md", "AGENTS.md", CLAUDE_RULES}

    shown = cli("review", cwd=project)
    assert shown.code == 0, shown.err
    assert "  AGENTS.md: Claude Code, Copilot CLI\n" in shown.out
    assert f"  {CLAUDE_RULES}: Claude Code (imports AGENTS.md)\n" in shown.out
    assert cli("review", "--json", cwd=project).json()["reaches"]["AGENTS.md"] == [
        "Claude Code",
        "Copilot CLI",
    ]

    assert cli("adopt", cwd=project).code == 0
    rules = memory_rules(summary)
    assert rules and managed_rules((project / "AGENTS.md").read_text()) == rules
    assert (project / CLAUDE_RULES).read_text() == f"{BEGIN}\n@../../AGENTS.md\n{END}\n"
    assert (project / "CLAUDE.md").read_bytes() == before["CLAUDE.md"][1]  # the user's, untouched
    for rule in rules:
        assert reads(project, ("claude-code", "copilot"), rule) == {
            "claude-code": 1,
            "copilot": 1,
        }

    r = cli("rollback", cwd=project)
    assert r.code == 0, r.err
    assert snapshot(project) == before  # byte-exact, the new files and folders gone


def test_a_claude_code_only_project_keeps_its_rules_in_claude_md(cli, tmp_path):
    project = project_used_by(tmp_path, "claude-code")
    summary = night(cli, project)
    proposal = json.loads((Path(summary["proposal_dir"]) / "proposal.json").read_text())
    assert {f["name"] for f in proposal["files"]} == {"SKILL.md", "CLAUDE.md"}
    assert cli("adopt", cwd=project).code == 0
    assert not (project / "AGENTS.md").exists() and not (project / ".claude" / "rules").exists()
    assert managed_rules((project / "CLAUDE.md").read_text()) == memory_rules(summary)


def test_rules_an_earlier_night_wrote_into_both_files_move_into_agents_md(cli, tmp_path):
    # a Claude Code project with an AGENTS.md: its first night wrote each rule into both files
    project = project_used_by(tmp_path, "claude-code")
    (project / "AGENTS.md").write_text("# Agents\n\nKeep answers short.\n")
    first = night(cli, project)
    assert cli("adopt", cwd=project).code == 0
    old = memory_rules(first)
    assert old and managed_rules((project / "CLAUDE.md").read_text()) == old
    assert managed_rules((project / "AGENTS.md").read_text()) == old
    # then Copilot CLI comes along, which loads both files: the next night moves the rules
    Store.open(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).db).upsert_tasks(
        [t.model_copy(update={"source": "copilot"}) for t in sample_tasks(project)[:2]],
        SystemClock().now(),
    )
    before = snapshot(project)
    night(cli, project)
    assert cli("adopt", cwd=project).code == 0
    assert "skillopt-sleep" not in (project / "CLAUDE.md").read_text()
    for rule in old:
        assert reads(project, ("claude-code", "copilot"), rule) == {"claude-code": 1, "copilot": 1}
    listed = cli("rules", "--json", cwd=project).json()["rules"]
    assert {r["standing"] for r in listed} == {"in place"}  # a move is no removal by hand

    assert cli("rollback", cwd=project).code == 0
    assert snapshot(project) == before
    listed = cli("rules", "--json", cwd=project).json()["rules"]
    assert {r["standing"] for r in listed} == {"in place"}


def test_rules_remove_takes_the_rule_from_agents_md_and_every_agent(cli, tmp_path):
    project = project_used_by(tmp_path, "claude-code", "copilot", "gemini")
    summary = night(cli, project)
    assert cli("adopt", cwd=project).code == 0
    rule = memory_rules(summary)[0]
    assert (project / "GEMINI.md").read_text() == f"{BEGIN}\n@AGENTS.md\n{END}\n"
    agents = ("claude-code", "copilot", "gemini")
    assert reads(project, agents, rule) == dict.fromkeys(agents, 1)
    rid = next(
        r["id"] for r in cli("rules", "--json", cwd=project).json()["rules"] if r["text"] == rule
    )
    r = cli("rules", "remove", rid, cwd=project)
    assert r.code == 0, r.err
    assert reads(project, agents, rule) == dict.fromkeys(agents, 0)


def test_gemini_reading_agents_md_itself_gets_no_import(cli, tmp_path):
    project = project_used_by(tmp_path, "codex", "gemini")
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text(
        json.dumps({"context": {"fileName": ["AGENTS.md", "GEMINI.md"]}})
    )
    summary = night(cli, project)
    proposal = json.loads((Path(summary["proposal_dir"]) / "proposal.json").read_text())
    # no GEMINI.md; the skill (in .claude/skills, which neither loads) gets a copy both load
    shared = ".agents/skills/beta-app/SKILL.md"
    assert {f["name"] for f in proposal["files"]} == {"SKILL.md", "AGENTS.md", shared}
    assert cli("adopt", cwd=project).code == 0
    assert (project / shared).read_bytes() == (project / SKILL_PATH).read_bytes()
    for rule in memory_rules(summary):
        placement = Placement(("codex", "gemini"), gemini_files=("AGENTS.md", "GEMINI.md"))
        assert reads_per_agent(placement, live_texts(project), rule) == {"codex": 1, "gemini": 1}


def test_the_agents_setting_names_them_and_an_unknown_one_is_refused(cli, tmp_path):
    project = project_used_by(tmp_path, "manual")
    r = cli(
        "run",
        "--project",
        str(project),
        "--backend",
        "simulated",
        "--json",
        env={**ALL_PROVEN, "SKILLOPT_SLEEP_FILES__AGENTS": '["codex", "copilot"]'},
    )
    assert r.code == 0, r.err
    proposal = json.loads((Path(r.json()["proposal_dir"]) / "proposal.json").read_text())
    assert {f["name"] for f in proposal["files"]} == {"SKILL.md", "AGENTS.md"}

    r = cli(
        "run",
        "--project",
        str(project),
        "--backend",
        "simulated",
        env={"SKILLOPT_SLEEP_FILES__AGENTS": '["cursor"]'},
    )
    assert r.code == 3
    assert r.err.strip().splitlines() == [
        (
            "skillopt-sleep: error: unknown agent 'cursor' in files.agents from the environment "
            "(choose from claude-code, codex, copilot, gemini, opencode, pi, qwen; "
            "fix or unset SKILLOPT_SLEEP_FILES__AGENTS)"
        )
    ]


def test_adopting_one_edit_alone_keeps_the_placement(cli, tmp_path):
    project = project_used_by(tmp_path, "claude-code", "copilot")
    summary = night(cli, project)
    number = next(i for i, e in enumerate(summary["edits"], 1) if e["target"] == "memory")
    rule = summary["edits"][number - 1]["content"]
    r = cli("adopt", str(number), cwd=project)
    assert r.code == 0, r.err
    assert managed_rules((project / "AGENTS.md").read_text()) == [rule]
    assert "skillopt-sleep" not in (project / "CLAUDE.md").read_text()
    assert reads(project, ("claude-code", "copilot"), rule) == {"claude-code": 1, "copilot": 1}
