"""Fixtures for the harvest tests: the real transcripts, and homes laid out like the real CLIs'."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.harvest.claude_code import ClaudeCodeParser
from skillopt_sleep.harvest.codex import CodexParser
from skillopt_sleep.harvest.jsonl import read_chunk
from skillopt_sleep.harvest.session import SessionChunk

TRANSCRIPTS = Path(__file__).resolve().parent.parent / "fixtures" / "transcripts"
CLAUDE_ROOT = TRANSCRIPTS / "claude" / ".claude"
CODEX_ROOT = TRANSCRIPTS / "codex" / ".codex"
CLAUDE_FILES = sorted((CLAUDE_ROOT / "projects").glob("*/*.jsonl"))
CODEX_FILES = sorted((CODEX_ROOT / "sessions").rglob("*.jsonl"))
HOOK_RECORDS = TRANSCRIPTS / "hook-records"
FALLBACK_TIME = datetime(2026, 11, 21, tzinfo=timezone.utc)


def claude_file(session_id: str) -> Path:
    return next(p for p in CLAUDE_FILES if p.stem == session_id)


def codex_file(thread_id: str) -> Path:
    return next(p for p in CODEX_FILES if p.stem.endswith(thread_id))


def parse(path: Path, start: int = 0) -> SessionChunk:
    parser = CodexParser() if path.name.startswith("rollout-") else ClaudeCodeParser()
    chunk, _ = read_chunk(parser, path, start)
    return chunk


def records_json(records) -> str:
    return json.dumps([r.model_dump(mode="json") for r in records], indent=2, sort_keys=True) + "\n"


@pytest.fixture
def agent_homes(sandbox_home: Path) -> tuple[Path, Path]:
    """``~/.claude`` and ``~/.codex`` in the test's HOME, holding the real transcripts."""
    claude = sandbox_home / ".claude"
    codex = sandbox_home / ".codex"
    shutil.copytree(CLAUDE_ROOT, claude)
    shutil.copytree(CODEX_ROOT, codex)
    return claude, codex
