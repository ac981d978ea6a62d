"""The agents in use are every agent a project's tasks came from, also those whose sighting of a
request was folded into a task another agent logged first.

Recorded sessions of the real CLIs: Copilot CLI and Gemini CLI were each asked "run the tests
please" and corrected with "No, that's wrong: always use pytest -q" in the same project, so the
harvest keeps one task, first logged by Copilot, seen twice. Gemini CLI reads none of the files
Copilot reads, so the night gives it ``GEMINI.md`` importing ``AGENTS.md``, and review names it.
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


def harvested(cli, tmp_path: Path, home: Path) -> Path:
    project = tmp_path / "calc"
    project.mkdir()
    (project / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    lay_out(home, project, COPILOT_CORRECTED, COPILOT_PRAISED, GEMINI_PROJECTS, GEMINI_CORRECTED)
    r = cli("harvest", cwd=project)
    assert r.code == 0, r.err
    return project


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
    assert "  GEMINI.md: Copilot CLI, Gemini CLI (imports AGENTS.md)\n" in shown.out
    assert "+++ b/GEMINI.md" in shown.out
    assert "Gemini CLI reads only" not in shown.out  # not left unreached

    assert cli("adopt", cwd=project).code == 0
    assert (project / "GEMINI.md").read_text() == f"{BEGIN}\n@AGENTS.md\n{END}\n"
