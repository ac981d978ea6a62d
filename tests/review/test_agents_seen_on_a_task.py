"""The agents in use are every agent a project's tasks came from, also those whose sighting of a
request was folded into a task another agent logged first.

Recorded sessions of the real CLIs: Copilot CLI and Gemini CLI were each asked "run the tests
please" and corrected with "No, that's wrong: always use pytest -q" in the same project, so the
harvest keeps one task, first logged by Copilot, seen twice. Gemini CLI reads none of the files
Copilot reads, so a night with a memory edit gives it ``GEMINI.md`` importing ``AGENTS.md``, and
review names it. A night (or an adoption) with no memory edit creates neither: ``GEMINI.md`` never
imports an ``AGENTS.md`` that does not exist.
"""

from __future__ import annotations

from pathlib import Path

from .recorded_sessions import (
    COPILOT_CORRECTED,
    COPILOT_PRAISED,
    FIX,
    GEMINI_CORRECTED,
    GEMINI_PROJECTS,
    REQUEST,
    lay_out,
)

BEGIN, END = "<!-- skillopt-sleep:begin -->", "<!-- skillopt-sleep:end -->"
SKILL = ".agents/skills/project-conventions/SKILL.md"
TYPE_HINTS = "Give every new Python function full type hints, return type included."
HELD_OUT = {"SKILLOPT_SLEEP_NIGHT__HOLDOUT_FRACTION": "0.000001"}  # the few tasks all learned from


def harvested(cli, tmp_path: Path, home: Path) -> Path:
    project = tmp_path / "calc"
    project.mkdir(parents=True)
    (project / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    lay_out(home, project, COPILOT_CORRECTED, COPILOT_PRAISED, GEMINI_PROJECTS, GEMINI_CORRECTED)
    r = cli("harvest", cwd=project)
    assert r.code == 0, r.err
    return project


def files_of(project: Path) -> list[str]:
    return sorted(p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file())


def with_a_memory_edit(cli, tmp_path: Path, home: Path) -> tuple[Path, dict[str, int]]:
    """The recorded project, a request whose fix is a memory rule added by hand, and a night
    that accepted the skill edit and the memory edit: their numbers by target. A night's draws
    follow its id, and on some draws the one task of the memory rule leaves it inconclusive
    ("not enough evidence yet", 1 night in 12 here): a fresh project is tried then, up to six."""
    for attempt in range(6):
        project = harvested(cli, tmp_path / f"try-{attempt}", home)
        added = cli(
            "tasks", "add", "--intent", "Write a helper function that loads the config",
            "--feedback", "Add type hints, return type included", "--outcome", "failure",
            "--check", "contains=-> dict", cwd=project,
        )  # fmt: skip
        assert added.code == 0, added.err
        night = cli("run", "--backend", "simulated", "--json", cwd=project, env=HELD_OUT)
        assert night.code == 0, night.err
        edits = night.json()["edits"]
        numbers = {e["target"]: n for n, e in enumerate(edits, 1) if e["status"] == "applied"}
        if sorted(numbers) == ["memory", "skill"]:
            assert edits[numbers["memory"] - 1]["content"] == TYPE_HINTS
            return project, numbers
    raise AssertionError(f"no night of six accepted both the skill and the memory edit: {edits}")


def test_a_request_gemini_was_also_corrected_on_puts_gemini_in_use(cli, tmp_path, sandbox_home):
    project = harvested(cli, tmp_path, sandbox_home)
    listed = cli("tasks", "list", cwd=project)
    assert listed.code == 0, listed.err
    sources = [line.split()[3] for line in listed.out.splitlines() if line.startswith("t_")]
    assert sources == ["copilot", "copilot"]  # the corrected request is one task, Copilot's
    assert f"intent:   {REQUEST}" in listed.out and f"correction  {FIX}" in listed.out
    assert "seen:     2 times" in listed.out and "; copilot, gemini; " in listed.out

    night = cli("run", "--backend", "simulated", "--json", cwd=project)
    assert night.code == 0, night.err
    assert night.json()["decision"] == "accept", night.json()["reason"]
    shown = cli("review", cwd=project, env={"NO_COLOR": "1"})
    assert shown.code == 0, shown.err
    assert "  SKILL.md: Copilot CLI, Gemini CLI\n" in shown.out  # the skill reaches Gemini too


def test_a_skill_edit_alone_creates_no_gemini_md_importing_a_missing_agents_md(
    cli, tmp_path, sandbox_home
):
    project = harvested(cli, tmp_path, sandbox_home)
    night = cli("run", "--backend", "simulated", "--json", cwd=project)
    assert night.code == 0, night.err
    assert [e["target"] for e in night.json()["edits"] if e["status"] == "applied"] == ["skill"]
    shown = cli("review", cwd=project, env={"NO_COLOR": "1"})
    assert shown.code == 0, shown.err
    assert "GEMINI.md" not in shown.out and "AGENTS.md" not in shown.out

    adopted = cli("adopt", cwd=project)
    assert adopted.code == 0, adopted.err
    assert files_of(project) == [SKILL, "calc.py"]


def test_a_memory_edit_gives_gemini_md_importing_the_agents_md_it_creates(
    cli, tmp_path, sandbox_home
):
    project, _ = with_a_memory_edit(cli, tmp_path, sandbox_home)
    shown = cli("review", cwd=project, env={"NO_COLOR": "1"})
    assert shown.code == 0, shown.err
    assert "  AGENTS.md: Copilot CLI, Gemini CLI\n" in shown.out
    assert "  GEMINI.md: Copilot CLI, Gemini CLI (imports AGENTS.md)\n" in shown.out
    assert "+++ b/GEMINI.md" in shown.out and "+++ b/AGENTS.md" in shown.out
    assert "Gemini CLI reads only" not in shown.out  # not left unreached

    assert cli("adopt", cwd=project).code == 0
    assert files_of(project) == [SKILL, "AGENTS.md", "GEMINI.md", "calc.py"]
    assert (project / "GEMINI.md").read_text() == f"{BEGIN}\n@AGENTS.md\n{END}\n"
    assert f"- {TYPE_HINTS}\n" in (project / "AGENTS.md").read_text()


def test_adopting_the_skill_edit_alone_creates_no_gemini_md(cli, tmp_path, sandbox_home):
    project, numbers = with_a_memory_edit(cli, tmp_path, sandbox_home)
    memory = str(numbers["memory"])
    assert cli("reject", memory, cwd=project).code == 0
    shown = cli("review", cwd=project, env={"NO_COLOR": "1"})  # the diff adopt now writes
    assert shown.code == 0, shown.err
    assert "+++ b/GEMINI.md" not in shown.out and "+++ b/AGENTS.md" not in shown.out
    assert f"+++ b/{SKILL}" in shown.out

    adopted = cli("adopt", cwd=project)
    assert adopted.code == 0, adopted.err
    assert files_of(project) == [SKILL, "calc.py"]
