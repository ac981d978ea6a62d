"""report.md's sections agree with its list of edits and its evidence once the review decided.

The demo stages three edits and leaves others over the edit budget or inconclusive; the user
rejects edit 1 and adopts the rest. Before, the page listed ``1. [rejected]`` above
"Rejected edits (0) / none", and "Skipped: nothing" below edits marked "skipped: over budget".
"""

from __future__ import annotations

import re
from pathlib import Path


def _section(report: str, heading: str) -> list[str]:
    """The list items under ``## heading...`` up to the next heading."""
    body = report.split(f"\n## {heading}", 1)[1].split("\n## ", 1)[0]
    return [line for line in body.splitlines() if line.startswith("- ")]


def test_a_rejected_and_skipped_edit_are_listed_under_their_sections(cli, tmp_path: Path):
    root = tmp_path / "demo"
    r = cli("demo", "--dir", str(root), "--json")
    assert r.code == 0, r.err
    env = {"SKILLOPT_SLEEP_HOME": str(root / "home")}
    project = str(root / "project")
    assert cli("reject", "1", "--project", project, env=env).code == 0
    adopted = cli("adopt", "--project", project, env=env)
    assert adopted.code == 0, adopted.err
    night = cli("status", "--project", project, "--json", env=env).json()["nights"][0]
    report = (Path(night["proposal_dir"]) / "report.md").read_text()

    edits = _section(report, "Edits")
    [first] = [e for e in edits if e.startswith("- 1. [rejected] ")]
    rejected = _section(report, "Rejected edits")
    assert re.search(r"\n## Rejected edits \((\d+)\)", report).group(1) == str(len(rejected))
    assert rejected[0] == first.replace("[rejected] ", "").split(" — why:")[0] + (
        " — **rejected at review**"
    )

    marked = re.findall(r"^- \*\*(skipped: [^*]+)\*\*: (.+)$", report, re.M)
    assert marked  # the demo leaves edits over the budget and inconclusive
    skipped = _section(report, "Skipped")
    assert skipped != ["- nothing"]
    for status, edit in marked:
        assert any(line.startswith(f"- {edit} — {status}: ") for line in skipped), (status, edit)
