"""`review` shows the pending proposal; the demo's proposal goes through adopt and rollback."""

from __future__ import annotations

import io
import re
from pathlib import Path

from skillopt_sleep.models import Edit
from skillopt_sleep.review.diff import colorize, wants_colour

NIGHT = "20260301-031700-aaaaaa"


def test_review_prints_the_diff_and_the_report_path(cli, home, project):
    (project / "CLAUDE.md").write_text("# Notes\n")
    row = home.stage(project, {"CLAUDE.md": "# Notes\n\n- added\n"})
    r = cli("review", cwd=project)
    assert r.code == 0, r.err
    assert r.out.splitlines()[:3] == [
        f"night {NIGHT} [staged]  project {project}",
        "edits: 0 accepted, 0 refused, 0 inconclusive",
        "decision: ACCEPT — 1 of 1 edits proven and adopted",
    ]
    assert "--- a/CLAUDE.md\n+++ b/CLAUDE.md\n@@ -1 +1,3 @@\n # Notes\n+\n+- added\n" in r.out
    assert f"report: {row.proposal_dir}/report.md" in r.out
    assert "\x1b[" not in r.out  # not a terminal: no colour


def test_review_colours_on_request_and_json_is_the_night(cli, home, project):
    (project / "CLAUDE.md").write_text("# Notes\n")
    home.stage(project, {"CLAUDE.md": "# Notes\n- added\n"})
    r = cli("review", "--color", "always", cwd=project)
    assert "\x1b[32m+- added\x1b[0m" in r.out
    out = cli("review", "--json", cwd=project).json()
    assert out["night_id"] == NIGHT and out["state"] == "staged" and out["decision"] == "accept"
    assert out["diffs"]["CLAUDE.md"].startswith("--- a/CLAUDE.md")
    assert out["report"].endswith("report.md") and out["tally"] == {
        "accepted": 0,
        "refused": 0,
        "inconclusive": 0,
        "over_budget": 0,
        "unconfirmed": 0,
    }


def test_review_of_a_past_night_by_id(cli, home, project):
    home.stage(project, {"CLAUDE.md": "x\n"}, state="rejected")
    assert cli("review", cwd=project).code == 8
    r = cli("review", NIGHT[:12], cwd=project)
    assert r.code == 0 and f"night {NIGHT} [rejected]" in r.out
    assert "adopt it with" not in r.out


def test_colour_only_on_a_terminal_and_never_with_no_color():
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert wants_colour(Tty(), {}) and not wants_colour(io.StringIO(), {})
    assert not wants_colour(Tty(), {"NO_COLOR": "1"})
    assert wants_colour(io.StringIO(), {}, "always") and not wants_colour(Tty(), {}, "never")
    assert colorize("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\r\n+new\n ctx\n") == (
        "\x1b[1m--- a/x\x1b[0m\n\x1b[1m+++ b/x\x1b[0m\n\x1b[36m@@ -1 +1 @@\x1b[0m\n"
        "\x1b[31m-old\x1b[0m\r\n\x1b[32m+new\x1b[0m\n ctx\n"
    )


def test_demo_proposal_adopts_and_rolls_back_byte_for_byte(cli, tmp_path):
    r = cli("demo", "--dir", str(tmp_path / "d"), "--json")
    assert r.code == 0, r.err
    assert r.json()["decision"] == "accept"
    env = {"SKILLOPT_SLEEP_HOME": str(tmp_path / "d" / "home")}
    live = tmp_path / "d" / "project"
    before = {p: p.read_bytes() for p in live.rglob("*") if p.is_file()}
    r = cli("review", env=env, cwd=live)
    assert r.code == 0, r.err
    assert "+<!-- skillopt-sleep:begin -->" in r.out
    r = cli("adopt", "--project", str(live), env=env, cwd=tmp_path)
    assert r.code == 0, r.err
    claude = (live / "CLAUDE.md").read_text()
    assert (
        claude.startswith(before[live / "CLAUDE.md"].decode())
        and "<!-- skillopt-sleep:end -->" in claude
    )
    assert cli("rollback", env=env, cwd=live).code == 0
    assert {p: p.read_bytes() for p in live.rglob("*") if p.is_file()} == before


def test_bad_input_to_review_commands_is_one_line(cli, project: Path):
    r = cli("adopt", "--bogus", cwd=project)
    assert r.code == 2 and r.err.count("\n") == 1 and "unrecognized arguments: --bogus" in r.err
    r = cli("review", "--color", "pink", cwd=project)
    assert r.code == 2 and r.err.count("\n") == 1


HOSTILE_TEXT = "Be brief.\x1b]0;owned\x07\x1b[2J\u202egnp.\x1b[8m hidden"


def test_hostile_text_is_never_written_to_the_terminal_raw(cli, home, project):
    (project / "CLAUDE.md").write_text("# Notes\n")
    edit = Edit(
        target="memory", op="add", content=HOSTILE_TEXT, status="rejected", reason=HOSTILE_TEXT
    )
    home.stage(project, {"CLAUDE.md": f"# Notes\n- {HOSTILE_TEXT}\n"}, edits=[edit])
    plain = cli("review", cwd=project)
    coloured = cli("review", "--color", "always", cwd=project)
    status = cli("status", cwd=project)
    for r in (plain, coloured, status):
        assert r.code == 0, r.err
        assert "\x07" not in r.out and "\u202e" not in r.out and "\x1b]" not in r.out
        assert "\x1b[2J" not in r.out and "\x1b[8m" not in r.out
    assert "Be brief.\\x1b]0;owned\\x07\\x1b[2J\\u202egnp.\\x1b[8m hidden" in plain.out
    # the only escapes left are the diff's own colours
    assert set(re.findall(r"\x1b\[[0-9;]*m", coloured.out)) <= {
        "\x1b[32m",
        "\x1b[0m",
        "\x1b[1m",
        "\x1b[36m",
    }
    bad = cli("adopt", "no-such-night\x1b[2J", cwd=project)
    assert bad.code == 8 and "\x1b" not in bad.err and "\\x1b[2J" in bad.err
