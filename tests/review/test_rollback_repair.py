"""A rollback puts a file back where its folder was removed, and one that cannot finish names its
night, its project and its cause, shows in `status`, and never stops another project's commands."""

from __future__ import annotations

import shutil
from pathlib import Path

NIGHT = "20260301-031700-aaaaaa"
OTHER = "20260302-031700-bbbbbb"
MINE = b"my own skill\n"
SKILL = ".claude/skills/demo/SKILL.md"


def adopted(cli, home, project: Path) -> Path:
    """``project``'s own SKILL.md, with the night's rule adopted into it."""
    skill = project / SKILL
    skill.parent.mkdir(parents=True)
    skill.write_bytes(MINE)
    home.stage(project, {"SKILL.md": "my own skill\n\n- Use uv.\n"}, base=True)
    r = cli("adopt", cwd=project)
    assert r.code == 0, r.err
    assert skill.read_bytes() != MINE
    return skill


def test_a_forced_rollback_puts_a_file_back_into_the_folder_removed_since(cli, home, project):
    skill = adopted(cli, home, project)
    shutil.rmtree(project / ".claude")
    r = cli("rollback", cwd=project)
    assert r.code == 8 and "changed since night" in r.err  # a deleted file is a change
    r = cli("rollback", "--force", cwd=project)
    assert r.code == 0, r.err
    assert skill.read_bytes() == MINE
    assert home.store.night(NIGHT).state == "rolled_back"
    r = cli("status", cwd=project)
    assert r.code == 0 and "unfinished" not in r.out


def test_a_rollback_that_cannot_finish_says_why_and_leaves_other_projects_alone(
    cli, home, project, tmp_path
):
    skill = adopted(cli, home, project)
    shutil.rmtree(project / ".claude")
    (project / ".claude").write_text("a file where the folder was\n")
    r = cli("rollback", "--force", cwd=project)
    assert r.code == 5
    assert f"the rollback of night {NIGHT} in {project} is unfinished" in r.err
    assert "Not a directory" in r.err and "free some space" not in r.err
    r = cli("status", cwd=project)
    assert r.code == 0
    assert f"! the rollback of night {NIGHT} in {project} is unfinished" in r.out

    other = tmp_path / "other"
    other.mkdir()
    (other / "CLAUDE.md").write_text("# Notes\n")
    home.stage(other, {"CLAUDE.md": "# Notes\n\n- Use uv.\n"}, night_id=OTHER, base=True)
    r = cli("adopt", cwd=other)
    assert r.code == 0, r.err
    assert (other / "CLAUDE.md").read_text() == "# Notes\n\n- Use uv.\n"
    r = cli("tasks", "add", "--intent", "Say hello", "--check", "contains=hello", cwd=other)
    assert r.code == 0, r.err
    r = cli("dry-run", "--backend", "simulated", cwd=other)
    assert r.code == 0, r.err

    (project / ".claude").unlink()  # the way cleared, the next command finishes the rollback
    r = cli("status", cwd=project)
    assert r.code == 0 and "unfinished" not in r.out
    assert f"an interrupted rollback of night {NIGHT} was finished" in r.out
    assert skill.read_bytes() == MINE and home.store.night(NIGHT).state == "rolled_back"
