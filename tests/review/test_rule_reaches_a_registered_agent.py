"""A rule reaches an agent registered from outside the package, as it reaches the built-ins.

The placement reads what each agent reads from the agent registry alone, so a toy agent that
reads only ``TOY.md`` is placed by what its registration says: when it follows ``@path`` lines
in ``TOY.md``, the night writes the rule into ``AGENTS.md`` and a managed ``@AGENTS.md`` into
``TOY.md``; when it follows none, the night says in one line that its rules do not reach it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from skillopt_sleep.harvest import agents
from skillopt_sleep.harvest.jsonl import LineParser
from skillopt_sleep.harvest.scan import Problem
from skillopt_sleep.rules.guards import managed_rules
from skillopt_sleep.rules.placement import Placement, reads_per_agent

from .test_adopt_crash import snapshot
from .test_rule_reaches_every_agent import ALL_PROVEN, BEGIN, END, night, project_used_by

TOY_TEXT = "# Toy\n\nAnswer in English.\n"


class ToyParser(LineParser):
    """Never called here: the tasks are logged straight into the store."""

    source = "toy"

    def record(self, kind: str, obj: dict[str, Any], offset: int) -> None:
        self.skip("unknown-type")


def _root(env: Mapping[str, str]) -> Path:
    return Path(env["HOME"]) / ".toy"


def _files(root: Path, projects: frozenset[str] | None, problems: list[Problem]) -> Iterator[str]:
    return iter(())


def _register(follows: tuple[str, ...]) -> Iterator[agents.Agent]:
    agent = agents.register(
        agents.Agent(
            name="toy",
            label="Toy",
            root=_root,
            files=_files,
            parser=ToyParser,
            instructions=("TOY.md",),
            follows=follows,
        )
    )
    yield agent
    agents.unregister("toy")


@pytest.fixture
def toy_that_imports() -> Iterator[agents.Agent]:
    yield from _register(("TOY.md",))


@pytest.fixture
def toy_that_does_not_import() -> Iterator[agents.Agent]:
    yield from _register(())


def test_a_registered_agent_gets_the_rule_through_an_import_in_its_own_file(
    cli, tmp_path, toy_that_imports
):
    project = project_used_by(tmp_path, "claude-code", "toy")
    (project / "TOY.md").write_text(TOY_TEXT)
    before = snapshot(project)
    summary = night(cli, project)
    proposal = json.loads((Path(summary["proposal_dir"]) / "proposal.json").read_text())
    assert {f["name"] for f in proposal["files"]} == {
        "SKILL.md",
        "AGENTS.md",
        "TOY.md",
        ".claude/rules/skillopt-sleep.md",
    }
    shown = cli("review", cwd=project)
    assert "  TOY.md: Toy (imports AGENTS.md)\n" in shown.out

    assert cli("adopt", cwd=project).code == 0
    assert (project / "TOY.md").read_text() == f"{TOY_TEXT}\n{BEGIN}\n@AGENTS.md\n{END}\n"
    rules = [e["content"] for e in summary["edits"] if e["target"] == "memory"]
    assert rules and managed_rules((project / "AGENTS.md").read_text()) == rules
    names = ("CLAUDE.md", "AGENTS.md", "TOY.md", ".claude/rules/skillopt-sleep.md")
    texts = {n: (project / n).read_text() for n in names}
    for rule in rules:
        assert reads_per_agent(Placement(("claude-code", "toy")), texts, rule) == {
            "claude-code": 1,
            "toy": 1,
        }
    assert cli("rollback", cwd=project).code == 0
    assert snapshot(project) == before


def test_a_registered_agent_no_file_can_reach_is_named_in_one_line(
    cli, tmp_path, toy_that_does_not_import
):
    project = project_used_by(tmp_path, "claude-code")
    (project / "TOY.md").write_text(TOY_TEXT)
    env = {**ALL_PROVEN, "SKILLOPT_SLEEP_FILES__AGENTS": '["codex", "toy"]'}
    r = cli("run", "--project", str(project), "--backend", "simulated", "--json", env=env)
    assert r.code == 0, r.err
    notes = [n for n in r.json()["skipped"] if "Toy" in n]
    assert notes == [
        (
            "Toy reads only TOY.md and follows no @path import there: tonight's rules do not "
            "reach it; register it with the files whose imports it follows"
        ),
        # it loads no skill folder either (Codex gets a copy of the skill in .agents/skills)
        (
            "Toy loads no skill from .claude/skills/beta-app/SKILL.md or "
            ".agents/skills/beta-app/SKILL.md: tonight's skill edits do not reach it"
        ),
    ]
    assert (project / "TOY.md").read_text() == TOY_TEXT
