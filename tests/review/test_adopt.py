"""adopt, reject, rollback: the live files change only as asked, byte for byte, never blindly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillopt_sleep.clock import FixedClock
from skillopt_sleep.errors import ProposalError, StoreError
from skillopt_sleep.review.adopt import adopt, auto_adopt
from skillopt_sleep.review.fileops import FileOps

CLAUDE = b"# Notes\r\n\r\n\r\n```sh\r\nmake test\r\n```\r\n- Use tabs.\r\nno final newline"
AGENTS = b"# Agents\n\n- Be brief.\n"
BLOCK = "\r\n\r\n<!-- skillopt-sleep:begin -->\r\n- Use uv.\r\n<!-- skillopt-sleep:end -->\r\n"
NIGHT = "20260301-031700-aaaaaa"


@pytest.fixture
def live(project: Path) -> Path:
    (project / "CLAUDE.md").write_bytes(CLAUDE)
    (project / "AGENTS.md").write_bytes(AGENTS)
    os.chmod(project / "AGENTS.md", 0o600)
    return project


def candidates() -> dict[str, str]:
    return {
        "CLAUDE.md": CLAUDE.decode() + BLOCK,
        "AGENTS.md": AGENTS.decode()
        + "\n<!-- skillopt-sleep:begin -->\n- Use uv.\n<!-- skillopt-sleep:end -->\n",
        "SKILL.md": "---\nname: demo\ndescription: d\n---\n",
    }


def test_adopt_then_rollback_restores_every_byte(cli, home, live):
    home.stage(live, candidates())
    r = cli("adopt", cwd=live)
    assert r.code == 0, r.err
    assert r.out.splitlines()[0] == f"adopted night {NIGHT}:"
    assert f"  created {live / '.claude/skills/demo/SKILL.md'}" in r.out
    for name, text in candidates().items():
        path = live / {"SKILL.md": ".claude/skills/demo/SKILL.md"}.get(name, name)
        assert path.read_bytes() == text.encode()
    assert (live / "AGENTS.md").stat().st_mode & 0o777 == 0o600
    assert home.store.night(NIGHT).state == "adopted"

    r = cli("rollback", cwd=live)
    assert r.code == 0, r.err
    assert (live / "CLAUDE.md").read_bytes() == CLAUDE
    assert (live / "AGENTS.md").read_bytes() == AGENTS
    assert (live / "AGENTS.md").stat().st_mode & 0o777 == 0o600
    assert not (live / ".claude").exists()  # the file and the directories adoption made are gone
    assert home.store.night(NIGHT).state == "rolled_back"
    assert f"  removed {live / '.claude/skills/demo/SKILL.md'}" in r.out


def test_adopt_refuses_when_a_live_file_changed_since_staging(cli, home, live):
    home.stage(live, candidates())
    (live / "AGENTS.md").write_bytes(AGENTS + b"- A rule the user added this morning.\n")
    r = cli("adopt", cwd=live)
    assert r.code == 8
    assert r.err == (
        f"skillopt-sleep: error: {live / 'AGENTS.md'} changed since night {NIGHT} read it; nothing was "
        "written (run the night again to stage a fresh proposal, or `skillopt-sleep reject` this one)\n"
    )
    assert (live / "CLAUDE.md").read_bytes() == CLAUDE
    assert (live / "AGENTS.md").read_bytes() == AGENTS + b"- A rule the user added this morning.\n"
    assert not (live / ".claude").exists()
    assert not (home.paths.backups_dir / NIGHT).exists()
    assert home.store.night(NIGHT).state == "staged"


def test_adopt_refuses_when_a_new_file_appeared_since_staging(cli, home, live):
    home.stage(live, candidates())
    skill = live / ".claude/skills/demo/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("mine\n")
    r = cli("adopt", cwd=live)
    assert r.code == 8 and f"{skill} was created since night {NIGHT} read it" in r.err
    assert skill.read_text() == "mine\n" and (live / "CLAUDE.md").read_bytes() == CLAUDE


def test_a_failed_write_puts_back_what_was_already_written(home, live):
    row = home.stage(live, candidates())
    calls = []

    class Failing(FileOps):
        def write_temp(self, path, data, mode):
            if path.parent == live or path.parent.name == "demo":
                calls.append(path.name)
                if len(calls) == 2:
                    raise StoreError(f"disk full while writing {path}")
            return super().write_temp(path, data, mode)

    clock = FixedClock(row.summary.started_at)
    with pytest.raises(StoreError):
        adopt(home.store, home.paths, row, clock, ops=Failing())
    assert calls[:2] == ["CLAUDE.md", "AGENTS.md"]
    assert (live / "CLAUDE.md").read_bytes() == CLAUDE and (
        live / "AGENTS.md"
    ).read_bytes() == AGENTS
    assert home.store.night(NIGHT).state == "staged"


def test_reject_records_the_edits_as_tried_and_changes_nothing(cli, home, live):
    home.stage(live, candidates())
    r = cli("reject", "--json", cwd=live)
    assert r.code == 0, r.err
    assert r.json()["state"] == "rejected"
    tried = home.store.rejected_edits(str(live))
    assert [(e.target, e.content, e.status, e.reason) for e in tried] == [
        ("memory", "Use uv.", "rejected", "rejected at review")
    ]
    assert home.store.night(NIGHT).state == "rejected"
    assert (live / "CLAUDE.md").read_bytes() == CLAUDE
    r = cli("adopt", NIGHT, cwd=live)
    assert r.code == 8 and f"cannot adopt night {NIGHT}: it is rejected" in r.err


def test_nothing_pending_is_a_one_line_error(cli, live):
    r = cli("adopt", cwd=live)
    assert r.code == 8
    assert r.err == (
        f"skillopt-sleep: error: no pending proposal for {live} "
        "(run `skillopt-sleep run` to stage one)\n"
    )
    r = cli("rollback", cwd=live)
    assert r.code == 8 and "no adopted night" in r.err


def test_night_prefix_and_unknown_night(cli, home, live):
    home.stage(live, candidates())
    assert cli("adopt", "20260301", cwd=live).code == 0
    r = cli("rollback", "nope", cwd=live)
    assert r.code == 8 and r.err.strip().endswith(
        "no night 'nope' (see `skillopt-sleep status` for the nights)"
    )


def test_superseded_night_points_to_the_newer_one(cli, home, live):
    home.stage(live, candidates(), night_id="20260301-031700-old000", state="superseded")
    home.stage(live, candidates(), night_id="20260302-031700-new000")
    r = cli("adopt", "20260301-031700-old000", cwd=live)
    assert r.code == 8
    assert "superseded by a newer proposal (review night 20260302-031700-new000 instead)" in r.err


def tree(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("verb", ["adopt", "review", "reject"])
def test_a_command_in_a_project_without_a_proposal_never_acts_on_another(
    cli, home, live, tmp_path, verb
):
    home.stage(live, candidates())
    other = tmp_path / "other"  # a project of its own, beside the one with a proposal
    other.mkdir()
    (other / "CLAUDE.md").write_text("# Other\n")
    before_live, before_other = tree(live), tree(other)
    r = cli(verb, cwd=other)
    assert r.code == 8 and r.out == ""
    assert r.err == (
        f"skillopt-sleep: error: no pending proposal for {other}; nothing was done (1 in other projects: "
        f"{NIGHT} ({live})) (run it in that project, or pass --project: `skillopt-sleep {verb} --project "
        f"{live}`)\n"
    )
    assert tree(live) == before_live and tree(other) == before_other
    assert home.store.night(NIGHT).state == "staged"
    assert cli("status", cwd=other).code == 0


@pytest.mark.parametrize("verb", ["adopt", "reject"])
def test_naming_another_projects_night_is_refused_and_names_its_project(
    cli, home, live, tmp_path, verb
):
    home.stage(live, candidates())
    other = tmp_path / "other"
    other.mkdir()
    before = tree(live)
    r = cli(verb, NIGHT, cwd=other)
    assert r.code == 8
    assert r.err == (
        f"skillopt-sleep: error: night {NIGHT} is of {live}, not of {other}; nothing was done "
        f"(run it there, or pass --project {live})\n"
    )
    assert tree(live) == before and home.store.night(NIGHT).state == "staged"
    assert cli(verb, NIGHT, "--project", str(live), cwd=other).code == 0


def test_a_command_in_a_sub_directory_acts_on_the_project_around_it(cli, home, live):
    home.stage(live, candidates())
    (live / "src").mkdir()
    assert cli("adopt", cwd=live / "src").code == 0
    assert (live / "AGENTS.md").read_bytes() != AGENTS


def test_several_pending_elsewhere_must_be_named(cli, home, tmp_path):
    for i in range(2):
        p = tmp_path / f"p{i}"
        p.mkdir()
        home.stage(p, {"CLAUDE.md": "x\n"}, night_id=f"2026030{i + 1}-031700-bbbbb{i}")
    here = tmp_path / "here"
    here.mkdir()
    r = cli("adopt", cwd=here)
    assert r.code == 8 and "2 in other projects" in r.err and "pass --project" in r.err


def test_rollback_refuses_to_lose_later_hand_edits_unless_forced(cli, home, live):
    home.stage(live, candidates())
    assert cli("adopt", cwd=live).code == 0
    edited = (live / "CLAUDE.md").read_bytes() + b"\r\nmy own line\r\n"
    (live / "CLAUDE.md").write_bytes(edited)
    r = cli("rollback", cwd=live)
    assert r.code == 8
    assert (
        f"{live / 'CLAUDE.md'} changed since night {NIGHT} was adopted; nothing was restored"
        in r.err
    )
    assert (live / "CLAUDE.md").read_bytes() == edited
    r = cli("rollback", "--force", cwd=live)
    assert r.code == 0, r.err
    assert (live / "CLAUDE.md").read_bytes() == CLAUDE
    assert (home.paths.backups_dir / NIGHT / "replaced" / "CLAUDE.md").read_bytes() == edited


def test_rollback_of_an_older_adoption_waits_for_the_newer_one(cli, home, live):
    home.stage(live, {"AGENTS.md": AGENTS.decode() + "- one\n"}, night_id="20260301-031700-one111")
    assert cli("adopt", cwd=live).code == 0
    home.stage(
        live, {"AGENTS.md": AGENTS.decode() + "- one\n- two\n"}, night_id="20260302-031700-two222"
    )
    assert cli("adopt", cwd=live).code == 0
    r = cli("rollback", "20260301-031700-one111", cwd=live)
    assert (
        r.code == 8
        and "roll it back first: `skillopt-sleep rollback 20260302-031700-two222`" in r.err
    )
    assert cli("rollback", cwd=live).code == 0  # the newest adoption first
    assert (live / "AGENTS.md").read_bytes() == AGENTS + b"- one\n"
    assert cli("rollback", cwd=live).code == 0
    assert (live / "AGENTS.md").read_bytes() == AGENTS


def test_auto_adopt_adopts_and_leaves_a_notice(home, live):
    row = home.stage(live, candidates())
    clock = FixedClock(row.summary.started_at)
    outcome = auto_adopt(home.store, home.paths, NIGHT, clock)
    assert outcome is not None and outcome.state == "adopted"
    assert (live / "CLAUDE.md").read_bytes() == CLAUDE + BLOCK.encode()
    [notice] = home.store.notices()
    assert notice.message == (
        f"night {NIGHT} was auto-adopted (CLAUDE.md, AGENTS.md, SKILL.md); undo with "
        f"`skillopt-sleep rollback {NIGHT}`"
    )


def test_auto_adopt_refusal_keeps_the_proposal_for_the_morning(home, live):
    row = home.stage(live, candidates())
    (live / "CLAUDE.md").write_bytes(b"changed")
    assert auto_adopt(home.store, home.paths, NIGHT, FixedClock(row.summary.started_at)) is None
    assert home.store.night(NIGHT).state == "staged"
    assert "was not auto-adopted" in home.store.notices()[0].message
    with pytest.raises(ProposalError):
        adopt(home.store, home.paths, row, FixedClock(row.summary.started_at))
