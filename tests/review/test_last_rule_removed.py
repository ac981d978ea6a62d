"""Removing a night's last rule leaves its file as it was before that night, and the night can
still be rolled back after any of its rules was removed."""

from __future__ import annotations

from pathlib import Path

from skillopt_sleep.models import Edit
from skillopt_sleep.review.ledger import rules
from skillopt_sleep.rules.managed_block import add_rule


def _adopted_demo(cli, tmp_path: Path) -> tuple[Path, dict[str, str], dict[Path, bytes]]:
    """The demo's night adopted: (project, env reaching its home, each file's bytes before)."""
    assert cli("demo", "--dir", str(tmp_path / "d"), "-q").code == 0
    project, env = tmp_path / "d" / "project", {"SKILLOPT_SLEEP_HOME": str(tmp_path / "d" / "home")}
    files = [project / "CLAUDE.md", *project.glob(".claude/skills/*/SKILL.md")]
    before = {f: f.read_bytes() for f in files}
    r = cli("adopt", cwd=project, env=env)
    assert r.code == 0, r.err
    assert all(f.read_bytes() != data for f, data in before.items())
    return project, env, before


def test_removing_every_rule_of_a_night_leaves_its_files_as_before_and_rollback_works(
    cli, tmp_path
):
    project, env, before = _adopted_demo(cli, tmp_path)
    for rule in cli("rules", "--json", cwd=project, env=env).json()["rules"]:
        r = cli("rules", "remove", rule["id"], cwd=project, env=env)
        assert r.code == 0, r.err
    for path, data in before.items():
        text = path.read_text(encoding="utf-8")
        assert "skillopt-sleep:" not in text and "## Learned rules" not in text
        assert path.read_bytes() == data, path
    r = cli("rollback", cwd=project, env=env)
    assert r.code == 0, r.err
    assert all(path.read_bytes() == data for path, data in before.items())


def test_rollback_after_one_rule_was_removed_puts_the_night_back(cli, tmp_path):
    project, env, before = _adopted_demo(cli, tmp_path)
    memory = [
        x
        for x in cli("rules", "--json", cwd=project, env=env).json()["rules"]
        if x["target"] == "memory"
    ]
    assert len(memory) > 1
    assert cli("rules", "remove", memory[0]["id"], cwd=project, env=env).code == 0
    assert "skillopt-sleep:begin" in (project / "CLAUDE.md").read_text()  # other rules stay
    r = cli("rollback", cwd=project, env=env)
    assert r.code == 0, r.err
    assert all(path.read_bytes() == data for path, data in before.items())


def test_a_file_without_a_final_newline_gets_it_back_as_it_was(home, project, cli):
    (project / "CLAUDE.md").write_bytes(b"# Notes\r\nNo final newline")
    text = (project / "CLAUDE.md").read_bytes().decode("utf-8")
    home.stage(
        project,
        {"CLAUDE.md": add_rule(text, "Use uv.")},
        edits=[Edit(target="memory", content="Use uv.", status="applied")],
    )
    assert cli("adopt", cwd=project).code == 0
    rid = rules(home.store, str(project))[0].id
    r = cli("rules", "remove", rid, cwd=project)
    assert r.code == 0, r.err
    assert (project / "CLAUDE.md").read_bytes() == b"# Notes\r\nNo final newline"


def test_a_block_the_user_had_before_the_night_stays_when_its_last_rule_goes(home, project, cli):
    mine = "# Notes\n\n<!-- skillopt-sleep:begin -->\n<!-- skillopt-sleep:end -->\n"
    (project / "CLAUDE.md").write_text(mine, encoding="utf-8")
    home.stage(
        project,
        {"CLAUDE.md": add_rule(mine, "Use uv.")},
        edits=[Edit(target="memory", content="Use uv.", status="applied")],
    )
    assert cli("adopt", cwd=project).code == 0
    rid = rules(home.store, str(project))[0].id
    assert cli("rules", "remove", rid, cwd=project).code == 0
    text = (project / "CLAUDE.md").read_text(encoding="utf-8")
    assert "<!-- skillopt-sleep:begin -->" in text and "Use uv." not in text
