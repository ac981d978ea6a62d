"""Adopted rules: the ledger follows each rule into its files; one rule comes out exactly, alone."""

from __future__ import annotations

import os
from pathlib import Path

from skillopt_sleep.models import Edit
from skillopt_sleep.review.ledger import rules

from .test_adopt_crash import snapshot
from .test_symlinked_files import ALL_PROVEN, linked_project

HAND = "# Project\n\nHand-written line, kept as is.\r\n"
BLOCK = (
    "<!-- skillopt-sleep:begin -->\n- Use uv.\n- Answer in English.\n<!-- skillopt-sleep:end -->\n"
)


def _adopted(home, project: Path, cli) -> None:
    (project / "CLAUDE.md").write_bytes(HAND.encode())
    (project / "AGENTS.md").write_bytes(HAND.encode())
    edits = [
        Edit(target="memory", content="Use uv.", status="applied"),
        Edit(target="memory", content="Answer in English.", status="applied"),
    ]
    home.stage(
        project, {"CLAUDE.md": HAND + "\n" + BLOCK, "AGENTS.md": HAND + "\n" + BLOCK}, edits=edits
    )
    r = cli("adopt", cwd=project)
    assert r.code == 0, r.err


def test_adopting_a_night_puts_its_rules_in_the_ledger_with_their_files(home, project, cli):
    _adopted(home, project, cli)
    r = cli("rules", "--json", cwd=project)
    assert r.code == 0, r.err
    listed = r.json()["rules"]
    assert [x["text"] for x in listed] == ["Use uv.", "Answer in English."]
    assert all(x["standing"] == "in place" for x in listed)
    assert {Path(f).name for f in listed[0]["files"]} == {"CLAUDE.md", "AGENTS.md"}
    assert listed[0]["verdict"] == "no data yet"
    text = cli("rules", cwd=project).out
    assert "Use uv." in text and "no data yet" in text
    assert "CLAUDE.md: 2 of 30 learned rules" in text


def test_rules_remove_takes_one_rule_out_of_every_file_byte_for_byte(home, project, cli):
    _adopted(home, project, cli)
    rid = rules(home.store, str(project))[0].id
    r = cli("rules", "remove", rid, cwd=project)
    assert r.code == 0, r.err
    expected = HAND + "\n" + BLOCK.replace("- Use uv.\n", "")
    assert (project / "CLAUDE.md").read_bytes() == expected.encode()
    assert (project / "AGENTS.md").read_bytes() == expected.encode()
    assert "backup:" in r.out
    assert [x.text for x in rules(home.store, str(project))] == ["Answer in English."]
    assert "Use uv." in [
        e.content for e in home.store.rejected_edits(str(project))
    ]  # remembered as refused


def test_rollback_rule_is_the_same_as_rules_remove(home, project, cli):
    _adopted(home, project, cli)
    rid = rules(home.store, str(project))[1].id
    r = cli("rollback", "--rule", rid, cwd=project)
    assert r.code == 0, r.err
    assert "Answer in English." not in (project / "CLAUDE.md").read_text()
    assert "Use uv." in (project / "CLAUDE.md").read_text()


def test_a_rule_reworded_by_hand_is_recognised_and_its_removal_refused(home, project, cli):
    _adopted(home, project, cli)
    for name in ("CLAUDE.md", "AGENTS.md"):
        path = project / name
        path.write_text(path.read_text().replace("- Use uv.", "- Use uv for every install."))
    before = snapshot(project)
    listed = cli("rules", "--json", cwd=project).json()["rules"]
    assert listed[0]["standing"] == "reworded by hand"
    assert listed[0]["reworded_to"] == "Use uv for every install."
    rid = listed[0]["id"]
    r = cli("rules", "remove", rid, cwd=project)
    assert r.code != 0
    assert (
        "changed by hand" in r.err
        and "nothing was removed" in r.err
        and len(r.err.strip().splitlines()) == 1
    )
    assert snapshot(project) == before


def test_a_rule_removed_by_hand_is_shown_as_such(home, project, cli):
    _adopted(home, project, cli)
    for name in ("CLAUDE.md", "AGENTS.md"):
        path = project / name
        path.write_text(path.read_text().replace("- Answer in English.\n", ""))
    listed = cli("rules", "--json", cwd=project).json()["rules"]
    assert [x["standing"] for x in listed] == ["in place", "removed by hand"]


def test_an_unknown_rule_id_names_the_command_that_lists_them(home, project, cli):
    _adopted(home, project, cli)
    r = cli("rules", "remove", "rzzzz", cwd=project)
    assert r.code != 0 and "skillopt-sleep rules" in r.err


def test_a_rolled_back_night_takes_its_rules_out_of_the_ledger(home, project, cli):
    _adopted(home, project, cli)
    assert cli("rollback", cwd=project).code == 0
    assert cli("rules", "--json", cwd=project).json()["rules"] == []


def test_remove_through_a_symlinked_memory_file_keeps_the_link(cli, tmp_path):
    project = linked_project(tmp_path)
    r = cli("run", "--project", str(project), "--backend", "simulated", "--json", env=ALL_PROVEN)
    assert r.code == 0, r.err
    assert cli("adopt", cwd=project).code == 0
    listed = cli("rules", "--json", cwd=project).json()["rules"]
    memory = [x for x in listed if x["target"] == "memory"]
    assert memory, listed
    agents_before = (project / "AGENTS.md").read_text()
    r = cli("rules", "remove", memory[0]["id"], cwd=project)
    assert r.code == 0, r.err
    assert os.readlink(project / "CLAUDE.md") == "AGENTS.md"
    after = (project / "AGENTS.md").read_text()
    assert after == agents_before.replace(f"- {memory[0]['text']}\n", "")
    assert memory[0]["validated_on"].startswith("simulated:")


def test_report_writes_the_history_page_with_nights_and_rules(cli, tmp_path):
    project = linked_project(tmp_path)
    assert cli("run", "--project", str(project), "--backend", "simulated", env=ALL_PROVEN).code == 0
    assert cli("adopt", cwd=project).code == 0
    out = tmp_path / "history.html"
    r = cli("report", "--out", str(out), cwd=project)
    assert r.code == 0, r.err
    assert f"report: {out}" in r.out
    page = out.read_text()
    assert "<h2>Nights over time</h2>" in page and page.count("<svg") >= 2
    assert "Adopted rules (" in page and "no data yet" in page
    assert '<meta name="viewport"' in page and "<script" not in page
    default = cli("report", "--json", cwd=project).json()["path"]
    assert Path(default).is_file()
