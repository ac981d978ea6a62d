"""The night's page shows, under Changes, what is live after a partial adoption (and, while
edits are rejected but others still staged, what ``adopt`` would write now), never the night's
whole diff with an edit the user left out. Through the CLI, on the staged night of
``test_edit_by_edit``."""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

from skillopt_sleep.night.demo import SKILL_PATH
from skillopt_sleep.review.diff import unified_diff

from .test_edit_by_edit import _editor, _page, night, staged_night

__all__ = ["night", "staged_night"]  # the fixtures, shared with test_edit_by_edit

FILES = ("CLAUDE.md", SKILL_PATH)


def _md_changes(md: str) -> dict[str, str]:
    """The diffs under report.md's Changes, file name -> diff text."""
    section = md[md.index("\n## Changes\n") :]
    blocks = re.findall(r"^### (\S+)\n\n(`{3,})diff\n(.*?)\n\2$", section, re.S | re.M)
    return {name: body + "\n" for name, _, body in blocks}


def _html_changes(page: str) -> str:
    section = page[page.index("<h2>Changes</h2>") :]
    end = section.find("<h2>", 1)
    return section if end < 0 else section[:end]


def _live_diffs(project: Path, before: dict[str, str]) -> dict[str, str]:
    """What adoption changed in the live files, as the page's diffs are written."""
    out = {}
    for rel, old in before.items():
        new = (project / rel).read_text()
        if new != old:
            out[Path(rel).name] = unified_diff(old, new, rel)
    return out


def _home() -> Path:
    return Path(os.environ["SKILLOPT_SLEEP_HOME"])


def _assert_changes(night_id: str, live: dict[str, str], shown: list[str], left: list[str]):
    md, page = _page(_home(), night_id)
    assert _md_changes(md) == live
    changes = _html_changes(page)
    for text in shown:
        assert html.escape(text) in changes, text
    for text in left:
        assert text not in _md_changes(md).get("CLAUDE.md", "") + _md_changes(md).get(
            "SKILL.md", ""
        )
        assert html.escape(text) not in changes, text


def test_reject_1_then_adopt_the_page_shows_the_edits_live_and_after_rollback_too(cli, night):
    project, night_id, texts = night
    before = {rel: (project / rel).read_text() for rel in FILES}
    assert cli("reject", "1", cwd=project).code == 0
    would = cli("review", "--json", cwd=project).json()["diffs"]
    md, _ = _page(_home(), night_id)
    assert _md_changes(md) == would  # what adopt would write now, as review shows it
    assert texts[0] not in "".join(would.values())

    r = cli("adopt", cwd=project)
    assert r.code == 0, r.err
    live = _live_diffs(project, before)
    assert set(live) == {"CLAUDE.md", "SKILL.md"}
    _assert_changes(night_id, live, [texts[1], texts[2]], [texts[0]])

    assert cli("rollback", cwd=project).code == 0
    _assert_changes(night_id, live, [texts[1], texts[2]], [texts[0]])


def test_adopt_2_the_page_shows_edit_2_alone(cli, night):
    project, night_id, texts = night
    before = {rel: (project / rel).read_text() for rel in FILES}
    r = cli("adopt", "2", cwd=project)
    assert r.code == 0, r.err
    live = _live_diffs(project, before)
    assert list(live) == ["SKILL.md"]  # edits 1 and 3 are of CLAUDE.md, left out
    _assert_changes(night_id, live, [texts[1]], [texts[0], texts[2]])


def test_adopt_in_your_words_the_page_shows_your_words(cli, night, tmp_path):
    project, night_id, texts = night
    before = {rel: (project / rel).read_text() for rel in FILES}
    mine = "The README title is Beta App, as a level-1 heading."
    r = cli("adopt", "1", "3", "--edit", "1", cwd=project, env=_editor(tmp_path, mine + "\n"))
    assert r.code == 0, r.err
    live = _live_diffs(project, before)
    assert list(live) == ["CLAUDE.md"]
    _assert_changes(night_id, live, [mine, texts[2]], [texts[0], texts[1]])
