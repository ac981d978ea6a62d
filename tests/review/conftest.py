"""Fixtures for review tests: a staged night built by hand, in the staging layout."""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.models import Edit, NightSummary, Proposal, ProposalFile
from skillopt_sleep.paths import Paths, resolve_paths
from skillopt_sleep.review.diff import unified_diff
from skillopt_sleep.store import Store, sha256_file
from skillopt_sleep.store.db import NightRow

LIVE = {
    "CLAUDE.md": "CLAUDE.md",
    "AGENTS.md": "AGENTS.md",
    "SKILL.md": ".claude/skills/demo/SKILL.md",
}


class Home:
    """The test's SKILLOPT_SLEEP_HOME: its paths and store, shared with the in-process CLI."""

    def __init__(self) -> None:
        self.paths: Paths = resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).ensure()
        self.store = Store.open(self.paths.db)

    def stage(
        self,
        project: Path,
        candidates: Mapping[str, str],
        *,
        night_id: str = "20260301-031700-aaaaaa",
        edits: list[Edit] | None = None,
        state: str = "staged",
        started_at: datetime | None = None,
        base: bool = False,
    ) -> NightRow:
        """Stage ``candidates`` (file name -> candidate text) for ``project`` as a night does
        (with ``base``, keeping the text each candidate was built from, as a night now does)."""
        directory = self.paths.night_dir(night_id)
        files = []
        for name, text in candidates.items():
            live = project / LIVE[name]
            old = live.read_bytes().decode("utf-8") if live.exists() else ""
            (directory / "candidate").mkdir(parents=True, exist_ok=True)
            (directory / "diffs").mkdir(parents=True, exist_ok=True)
            (directory / "candidate" / name).write_bytes(text.encode("utf-8"))
            if base and live.exists():
                (directory / "base").mkdir(parents=True, exist_ok=True)
                (directory / "base" / name).write_bytes(live.read_bytes())
            (directory / "diffs" / f"{name}.diff").write_bytes(
                unified_diff(old, text, name).encode("utf-8")
            )
            files.append(
                ProposalFile(
                    name=name,
                    live_path=str(live),
                    base_sha256=sha256_file(live),
                    candidate=f"candidate/{name}",
                    diff=f"diffs/{name}.diff",
                )
            )
        started = started_at or datetime(2026, 3, 1, 3, 17, tzinfo=timezone.utc)
        summary = NightSummary(
            night_id=night_id,
            project=str(project),
            started_at=started,
            decision="accept",
            reason="1 of 1 edits proven and adopted",
            proposal_dir=str(directory),
            edits=edits
            if edits is not None
            else [Edit(target="memory", op="add", content="Use uv.", status="applied")],
        )
        (directory / "report.md").write_text("# report\n", encoding="utf-8")
        (directory / "report.html").write_text("<html></html>\n", encoding="utf-8")
        proposal = Proposal(
            night_id=night_id,
            project=str(project),
            created_at=started,
            files=files,
            summary=summary,
        )
        (directory / "proposal.json").write_text(
            proposal.model_dump_json(indent=2), encoding="utf-8"
        )
        self.store.save_night(summary, state)
        row = self.store.night(night_id)
        assert row is not None
        return row


@pytest.fixture
def home() -> Home:
    return Home()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    return path
