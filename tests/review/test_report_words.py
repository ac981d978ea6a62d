"""report.md says every note of the night whole, and holds no HTML entity in its raw text."""

from __future__ import annotations

from pathlib import Path

from .one_task import log_one_corrected_request


def test_report_md_keeps_notes_whole_and_has_no_html_entities(cli, project):
    log_one_corrected_request(cli, project)
    r = cli("run", "--backend", "simulated", "--json", cwd=project)
    assert r.code == 0, r.err
    night = r.json()
    (rule,) = [e["content"] for e in night["edits"]]
    assert len(rule) > 80  # long enough that a clipped copy would show
    md = (Path(night["proposal_dir"]) / "report.md").read_text(encoding="utf-8")
    notes = md.split("## Also tonight\n\n")[1].split("\n\n")[0].splitlines()
    (waits,) = [n for n in notes if "waits for evidence" in n]
    assert waits.endswith("the next night that has it retests it first")
    assert "it needs 1 more task of its kind and 1 more task of another kind" in waits
    assert "&lt;" not in md and "&gt;" not in md and "&amp;" not in md
    assert "<= 0.0" in md  # the gate's reason, as it reads
