"""Damaged transcripts: bad lines are skipped and counted, never a crash, never a lost good line."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillopt_sleep.clock import FixedClock
from skillopt_sleep.harvest.claude_code import ClaudeCodeParser
from skillopt_sleep.harvest.codex import CodexParser
from skillopt_sleep.harvest.jsonl import read_chunk
from skillopt_sleep.harvest.mine import mine_chunk
from skillopt_sleep.harvest.run import Harvester, HarvestPlan
from skillopt_sleep.harvest.scan import Roots
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.store import Store

from .conftest import CLAUDE_FILES, CODEX_FILES, FALLBACK_TIME

REAL = {
    "claude": [line for p in CLAUDE_FILES for line in p.read_bytes().splitlines()],
    "codex": [line for p in CODEX_FILES for line in p.read_bytes().splitlines()],
}
PARSERS = {"claude": ClaudeCodeParser, "codex": CodexParser}
MAX_LINE = 64 * 1024  # stands in for the real limit, so "too long" lines stay cheap to make


def _mutate(obj, path: list[str], value):
    """``obj`` with the field at ``path`` (as deep as it goes) replaced by ``value``."""
    node = obj
    for key in path[:-1]:
        if not isinstance(node, dict) or key not in node or not isinstance(node[key], dict):
            break
        node = node[key]
    if isinstance(node, dict) and node:
        node[path[-1] if path[-1] in node else min(node)] = value
    return obj


wrong_values = st.one_of(
    st.none(),
    st.integers(),
    st.booleans(),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@st.composite
def damaged_line(draw, source: str) -> tuple[str, bytes]:
    real = draw(st.sampled_from(REAL[source]))
    kind = draw(st.sampled_from(["good", "truncated", "utf8", "unknown", "wrong", "long"]))
    if kind == "truncated":  # cut between characters: a cut inside one is the "utf8" kind
        text = real.decode("utf-8")
        return kind, text[: draw(st.integers(1, len(text) - 2))].encode("utf-8")
    if kind == "utf8":
        at = draw(st.integers(0, len(real)))
        return kind, real[:at] + b"\xff\xfe\xc3" + real[at:]
    if kind == "unknown":
        return kind, json.dumps(
            {"type": "x-" + draw(st.text("abc", min_size=1, max_size=6)), "payload": {}}
        ).encode()
    if kind == "wrong":
        path = draw(
            st.sampled_from(
                [
                    ["message", "content"],
                    ["message"],
                    ["payload", "item"],
                    ["payload", "type"],
                    ["payload"],
                    ["timestamp"],
                    ["cwd"],
                    ["payload", "item", "content"],
                    ["sessionId"],
                    ["type"],
                ]
            )
        )
        return kind, json.dumps(_mutate(json.loads(real), path, draw(wrong_values))).encode()
    if kind == "long":
        return kind, b'{"type":"user","pad":"' + b"x" * (
            MAX_LINE + draw(st.integers(1, 5000))
        ) + b'"}'
    return kind, real


def _parse(source: str, path: Path):
    chunk, _ = read_chunk(PARSERS[source](), path, 0, max_line=MAX_LINE)
    return chunk


@pytest.mark.parametrize("source", ["claude", "codex"])
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_damaged_lines_are_skipped_and_counted(source, data, tmp_path_factory):
    lines = data.draw(st.lists(damaged_line(source), min_size=1, max_size=40))
    path = tmp_path_factory.mktemp("fuzz") / "t.jsonl"
    path.write_bytes(b"".join(line + b"\n" for _, line in lines))
    chunk = _parse(source, path)  # must not raise
    kinds = [k for k, _ in lines]
    assert chunk.lines == len(lines)
    assert chunk.skipped["line-too-long"] == kinds.count("long")
    assert chunk.skipped["invalid-utf8"] == kinds.count("utf8")
    assert chunk.skipped["invalid-json"] == kinds.count("truncated")
    # a field of the wrong type is skipped as bad (or unknown, when it is the type) or tolerated
    wrong = kinds.count("wrong")
    assert kinds.count("unknown") <= chunk.skipped["unknown-type"] <= kinds.count("unknown") + wrong
    assert chunk.skipped["bad-fields"] + chunk.skipped["not-an-object"] <= wrong
    for record in mine_chunk(chunk, FALLBACK_TIME):  # and what is mined is valid
        TaskRecord.model_validate(record.model_dump())


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_damaged_history_harvests_into_the_store_without_error(data, tmp_path_factory):
    root = tmp_path_factory.mktemp("home")
    claude_dir = root / ".claude" / "projects" / "-home-dev-work-alpha"
    claude_dir.mkdir(parents=True)
    for i in range(3):
        lines = data.draw(st.lists(damaged_line("claude"), min_size=1, max_size=15))
        (claude_dir / f"s{i}.jsonl").write_bytes(b"".join(line + b"\n" for _, line in lines))
    store = Store.open(root / "db.sqlite")
    now = datetime.now(timezone.utc)
    plan = HarvestPlan(Roots(root / ".claude", root / ".codex"), now - timedelta(days=1), None)
    stats = Harvester(store, FixedClock(now), max_line=MAX_LINE).run(plan)["claude-code"]
    assert stats.files_read == 3 and not stats.errors
    store.list_tasks()  # every stored record reads back
    store.close()


def test_a_10_mb_line_is_skipped_and_the_session_goes_on(tmp_path):
    good = CLAUDE_FILES[0].read_bytes()
    huge = json.dumps(
        {
            "type": "user",
            "message": {"role": "user", "content": "x" * (10 * 1024 * 1024)},
            "sessionId": "s",
            "timestamp": "2026-11-21T15:07:11.578Z",
        }
    ).encode()
    path = tmp_path / "big.jsonl"
    path.write_bytes(huge + b"\n" + good)
    chunk, end = read_chunk(ClaudeCodeParser(), path, 0)
    assert chunk.skipped == {"line-too-long": 1}
    assert end == path.stat().st_size
    [task] = mine_chunk(chunk, FALLBACK_TIME)
    assert task.intent == "Create a notes file summarising this project"
