"""Symlinked memory and skill files: the target changes, the link stays, rollback is exact.

The common layout ``CLAUDE.md -> AGENTS.md`` is one file under two names: a night trains it
once (one diff, each rule once), adoption writes the target, and the link stays a link.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from skillopt_sleep.clock import SystemClock
from skillopt_sleep.night.demo import SKILL_PATH, sample_tasks, write_sample_project
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.rules.guards import managed_rules
from skillopt_sleep.store import Store

from .test_adopt_crash import snapshot


def linked_project(root: Path) -> Path:
    """The sample project with ``CLAUDE.md -> AGENTS.md`` and its skill a link into ``shared/``."""
    project = root / "project"
    write_sample_project(project)
    os.replace(project / "CLAUDE.md", project / "AGENTS.md")
    os.symlink("AGENTS.md", project / "CLAUDE.md")
    skill = project / SKILL_PATH
    (project / "shared").mkdir()
    os.replace(skill, project / "shared" / "SKILL.md")
    os.symlink(os.path.relpath(project / "shared" / "SKILL.md", skill.parent), skill)
    store = Store.open(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).db)
    store.upsert_tasks(sample_tasks(project), SystemClock().now())
    return project


# every edit the night proves is adopted, so that both a skill rule and a memory rule are
ALL_PROVEN = {"SKILLOPT_SLEEP_NIGHT__EDIT_BUDGET": "8"}


def test_a_linked_claude_md_is_trained_once_and_stays_a_link(cli, tmp_path):
    project = linked_project(tmp_path)
    before = snapshot(project)
    r = cli("run", "--project", str(project), "--backend", "simulated", "--json", env=ALL_PROVEN)
    assert r.code == 0, r.err
    night = r.json()
    assert night["decision"] == "accept", night["reason"]
    proposal = json.loads((Path(night["proposal_dir"]) / "proposal.json").read_text())
    assert {f["name"] for f in proposal["files"]} == {"SKILL.md", "AGENTS.md"}
    diff = (Path(night["proposal_dir"]) / "diffs" / "AGENTS.md.diff").read_text()
    memory_rules = [e["content"] for e in night["edits"] if e["target"] == "memory"]
    assert memory_rules and all(diff.count(f"+- {rule}") == 1 for rule in memory_rules)

    assert cli("adopt", cwd=project).code == 0
    after = snapshot(project)
    assert (
        after["CLAUDE.md"] == ("link", "AGENTS.md")
        and after[str(SKILL_PATH)] == before[str(SKILL_PATH)]
    )
    agents = (project / "AGENTS.md").read_text()
    assert managed_rules(agents) == memory_rules  # each rule once, read by both agents
    assert (project / "CLAUDE.md").read_text() == agents
    assert "skillopt-sleep:begin" in (project / "shared" / "SKILL.md").read_text()
    assert {k for k, v in after.items() if v != before.get(k)} == {"AGENTS.md", "shared/SKILL.md"}

    r = cli("rollback", cwd=project)
    assert r.code == 0, r.err
    assert snapshot(project) == before


def test_hard_linked_memory_files_stay_one_file(cli, tmp_path):
    project = linked_project(tmp_path)
    (project / "CLAUDE.md").unlink()
    os.link(project / "AGENTS.md", project / "CLAUDE.md")
    before = snapshot(project)
    r = cli("run", "--project", str(project), "--backend", "simulated", "--json", env=ALL_PROVEN)
    assert r.code == 0 and r.json()["decision"] == "accept", r.err
    proposal = json.loads((Path(r.json()["proposal_dir"]) / "proposal.json").read_text())
    assert len([f for f in proposal["files"] if f["name"] in ("CLAUDE.md", "AGENTS.md")]) == 1
    assert cli("adopt", cwd=project).code == 0
    assert os.path.samefile(project / "CLAUDE.md", project / "AGENTS.md")
    rules = managed_rules((project / "AGENTS.md").read_text())
    assert rules and len(rules) == len(set(rules))
    assert cli("rollback", cwd=project).code == 0
    assert snapshot(project) == before and os.path.samefile(
        project / "CLAUDE.md", project / "AGENTS.md"
    )
