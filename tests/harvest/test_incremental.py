"""Cursors: a harvest reads what is new, re-reads what was replaced, and reads nothing twice."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from bench.worlds import synthetic as syn
from skillopt_sleep.clock import FixedClock
from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.harvest.run import Harvester, HarvestPlan, SourceStats
from skillopt_sleep.harvest.scan import CLAUDE, CODEX, Roots
from skillopt_sleep.store import Store

NOW = datetime(2026, 11, 21, 16, 0, tzinfo=timezone.utc)
PROJECT = "/work/alpha"
SID = "7d9c1c52-5d0e-4a43-9f0e-4a9b5e1c2d3e"
TID = "01a1fea5-0000-7000-8000-000000000001"


@pytest.fixture
def env(tmp_path: Path):
    store = Store.open(tmp_path / "db.sqlite")
    roots = Roots(tmp_path / ".claude", tmp_path / ".codex")
    yield store, roots
    store.close()


def harvest(store: Store, roots: Roots, **plan) -> dict[str, SourceStats]:
    plan = HarvestPlan(
        roots=roots,
        since=NOW - timedelta(days=7),
        projects=plan.get("projects"),
        sources=plan.get("sources", (CLAUDE, CODEX)),
    )
    return Harvester(store, FixedClock(NOW)).run(plan)


TEST_TURN = syn.SynthTurn("Run the test suite", "All tests pass.", "python -m unittest", "OK")
FIX_TURN = syn.SynthTurn(
    "No, that's wrong: always use pytest -q", "Understood.", "pytest -q", "1 passed"
)
NEW_TURN = syn.SynthTurn("Add a changelog", "Added CHANGELOG.md.")


def _prompt_offset(path: Path, prompt: str) -> int:
    """Byte offset of the ``user`` record holding ``prompt``."""
    offset = 0
    for line in path.read_bytes().splitlines(keepends=True):
        record = json.loads(line)
        if record["type"] == "user" and record["message"]["content"] == prompt:
            return offset
        offset += len(line)
    raise AssertionError(prompt)


def _claude(roots: Roots, turns, sid: str = SID, project: str = PROJECT, start=NOW) -> Path:
    """A Claude Code session written where Claude Code would keep it."""
    path = syn.claude_path(roots.claude, project, sid)
    return syn.write(path, syn.claude_session(sid, project, turns, start))


def test_nothing_new_means_nothing_read(env):
    store, roots = env
    _claude(roots, [TEST_TURN])
    syn.write(
        syn.codex_path(roots.codex, TID, NOW), syn.codex_rollout(TID, PROJECT, [TEST_TURN], NOW)
    )
    first = harvest(store, roots)
    assert first[CLAUDE].tasks_new == 1 and first[CODEX].tasks_updated == 1  # same request: folded
    second = harvest(store, roots)
    for stats in second.values():
        assert (stats.files_read, stats.bytes_read, stats.lines_read) == (0, 0, 0)
        assert stats.files_unchanged == 1 and stats.tasks_new == stats.tasks_updated == 0


def test_a_resumed_session_is_read_from_its_last_task_and_gets_its_correction(env):
    store, roots = env
    path = _claude(roots, [NEW_TURN, TEST_TURN])
    harvest(store, roots)
    [_, task] = store.list_tasks()
    assert task.intent == "Run the test suite" and task.outcome == "unknown" and not task.feedback

    resume_from = _prompt_offset(path, "Run the test suite")
    syn.write(
        path, syn.claude_session(SID, PROJECT, [FIX_TURN], NOW + timedelta(minutes=1)), append=True
    )
    stats = harvest(store, roots)[CLAUDE]
    assert stats.bytes_read == path.stat().st_size - resume_from  # not the whole file again
    assert (stats.tasks_new, stats.tasks_updated) == (0, 1)
    task = store.get_task(task.id)
    assert task.feedback == "No, that's wrong: always use pytest -q"
    assert task.outcome == "failure" and task.occurrences == 1
    assert [plain(c) for c in task.checks] == [
        "contains 'pytest -q'",
        "runs pytest",
        "never runs unittest",
    ]


def test_a_resumed_codex_rollout_is_read_from_its_offset(env):
    store, roots = env
    path = syn.write(
        syn.codex_path(roots.codex, TID, NOW), syn.codex_rollout(TID, PROJECT, [TEST_TURN], NOW)
    )
    harvest(store, roots)
    size = path.stat().st_size
    syn.write(
        path,
        syn.codex_rollout(TID, PROJECT, [FIX_TURN], NOW + timedelta(minutes=1), meta=False),
        append=True,
    )
    stats = harvest(store, roots)[CODEX]
    assert (
        0 < stats.bytes_read < path.stat().st_size and stats.bytes_read > path.stat().st_size - size
    )
    [task] = store.list_tasks()
    assert task.source == "codex" and task.outcome == "failure" and task.checks


def test_a_truncated_file_is_read_again_from_the_start(env):
    store, roots = env
    path = _claude(roots, [NEW_TURN, TEST_TURN])
    harvest(store, roots)
    syn.write(
        path, syn.claude_session(SID, PROJECT, [syn.SynthTurn("Tidy the imports", "Done.")], NOW)
    )
    stats = harvest(store, roots)[CLAUDE]
    assert stats.bytes_read == path.stat().st_size and stats.tasks_updated == 1
    assert [t.intent for t in store.list_tasks()] == ["Tidy the imports", "Run the test suite"]


def test_a_replaced_file_of_the_same_size_is_read_again(env):
    store, roots = env
    path = _claude(roots, [NEW_TURN])
    harvest(store, roots)
    other = syn.claude_session(
        SID, PROJECT, [syn.SynthTurn("Add a changelag", "Added CHANGELAG.md.")], NOW
    )
    old = path.read_text()
    other = other + " " * max(0, len(old) - len(other))  # same or larger size, same inode
    with open(path, "r+", encoding="utf-8") as fh:
        fh.write(other)
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    stats = harvest(store, roots)[CLAUDE]
    assert stats.tasks_updated == 1 and stats.bytes_read >= len(old)
    assert [t.intent for t in store.list_tasks()] == ["Add a changelag"]


def test_a_file_replaced_by_rename_is_read_from_the_start(env, tmp_path):
    store, roots = env
    path = _claude(roots, [NEW_TURN])
    harvest(store, roots)
    fresh = syn.write(
        tmp_path / "new.jsonl", syn.claude_session(SID, PROJECT, [NEW_TURN, TEST_TURN], NOW)
    )
    os.replace(fresh, path)
    stats = harvest(store, roots)[CLAUDE]
    assert stats.bytes_read == path.stat().st_size
    assert (stats.tasks_new, stats.tasks_updated) == (1, 0)  # the known turn is not counted again
    assert [t.occurrences for t in store.list_tasks()] == [1, 1]


def test_an_unfinished_last_line_waits_for_its_newline(env):
    store, roots = env
    text = syn.claude_session(SID, PROJECT, [NEW_TURN, TEST_TURN], NOW)
    cut_at = text.index('"name":"Bash"')  # inside the last turn's first agent record
    path = syn.write(syn.claude_path(roots.claude, PROJECT, SID), text[:cut_at])
    harvest(store, roots)
    assert [t.intent for t in store.list_tasks()] == ["Add a changelog"]  # no work seen yet
    syn.write(path, text[cut_at:], append=True)
    harvest(store, roots)
    [_, task] = store.list_tasks()
    assert task.intent == "Run the test suite" and "All tests pass." in task.attempt


def test_files_older_than_the_window_are_not_read_on_a_first_harvest(env):
    store, roots = env
    path = _claude(roots, [NEW_TURN])
    old = (NOW - timedelta(days=30)).timestamp()
    os.utime(path, (old, old))
    stats = harvest(store, roots)[CLAUDE]
    assert (stats.files_too_old, stats.files_read, stats.tasks_new) == (1, 0, 0)


def test_project_scoping_reads_only_the_invoked_project(env):
    store, roots = env
    _claude(roots, [NEW_TURN])
    _claude(roots, [TEST_TURN], sid=SID[::-1], project="/work/beta")
    syn.write(
        syn.codex_path(roots.codex, TID, NOW),
        syn.codex_rollout(TID, "/work/beta", [TEST_TURN], NOW),
    )
    stats = harvest(store, roots, projects=frozenset({PROJECT}))
    assert stats[CLAUDE].files_scanned == 1  # the other project's directory is never listed
    assert stats[CODEX].files_other_projects == 1 and stats[CODEX].files_read == 0
    assert {t.project for t in store.list_tasks()} == {PROJECT}
    later = harvest(store, roots)  # all projects: the skipped rollout is read now
    assert later[CODEX].files_read == 1
    assert {t.project for t in store.list_tasks()} == {PROJECT, "/work/beta"}
