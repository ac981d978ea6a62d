"""Damage is isolated to the file or line it is in: named, counted, stepped over, never fatal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from bench.worlds import synthetic as syn
from skillopt_sleep.clock import FixedClock
from skillopt_sleep.harvest.claude_code import clean_prompt, strip_blocks
from skillopt_sleep.harvest.run import Harvester, HarvestPlan
from skillopt_sleep.harvest.scan import CLAUDE, CODEX, Roots
from skillopt_sleep.store import Store

NOW = datetime(2026, 11, 21, 16, 0, tzinfo=timezone.utc)
PROJECT = "/work/alpha"
SID = "7d9c1c52-5d0e-4a43-9f0e-4a9b5e1c2d3e"
TID = "01a1fea5-0000-7000-8000-000000000001"
TURNS = [
    syn.SynthTurn("Run the test suite", "All tests pass.", "python -m unittest", "OK"),
    syn.SynthTurn("Add a changelog", "Added CHANGELOG.md."),
    syn.SynthTurn("Write a README", "Wrote README.md."),
]


@pytest.fixture
def env(tmp_path: Path):
    store = Store.open(tmp_path / "db.sqlite")
    yield store, Roots(tmp_path / ".claude", tmp_path / ".codex")
    store.close()


def _run(store: Store, roots: Roots, harvester: Harvester | None = None, days: int = 7):
    plan = HarvestPlan(roots, NOW - timedelta(days=days), None)
    return (harvester or Harvester(store, FixedClock(NOW))).run(plan)


def test_a_codex_session_resumed_ten_days_later_is_harvested(env):
    store, roots = env
    started = NOW - timedelta(days=12)
    path = syn.write(
        syn.codex_path(roots.codex, TID, started),
        syn.codex_rollout(TID, PROJECT, TURNS[:1], started),
    )
    assert "/2026/11/09/" in str(path)  # filed under the day it started
    os.utime(path, (started.timestamp(), started.timestamp()))
    assert _run(store, roots)[CODEX].files_too_old == 1  # last touched 12 days ago: not tonight's

    later = NOW - timedelta(hours=1)
    syn.write(path, syn.codex_rollout(TID, PROJECT, TURNS[1:2], later, meta=False), append=True)
    os.utime(path, (later.timestamp(), later.timestamp()))
    stats = _run(store, roots)[CODEX]
    assert stats.files_read == 1 and stats.tasks_new >= 1
    assert "Add a changelog" in {t.intent for t in store.list_tasks()}


def test_a_big_file_is_read_in_bounded_pieces_and_loses_nothing(env, tmp_path):
    store, roots = env
    turns = [
        syn.SynthTurn(f"Add task number {i} to the list", f"Done {i}.", "ls", "x" * 3000)
        for i in range(12)
    ]
    path = syn.write(
        syn.claude_path(roots.claude, PROJECT, SID), syn.claude_session(SID, PROJECT, turns, NOW)
    )
    piece = path.stat().st_size // 5
    harvester = Harvester(store, FixedClock(NOW), max_file_bytes=piece)
    rounds = []
    while True:
        stats = _run(store, roots, harvester)[CLAUDE]
        if not stats.bytes_read:
            break
        rounds.append(stats)
        assert stats.bytes_read <= piece + 8000  # one line past the limit at most
    assert len(rounds) >= 5 and rounds[0].files_partly_read == 1
    whole = Store.open(tmp_path / "whole.sqlite")
    _run(whole, roots)

    def key(s: Store) -> list[tuple[str, str]]:
        return sorted((t.intent, t.attempt) for t in s.list_tasks())

    assert key(store) == key(whole) and len(key(store)) == 12
    whole.close()


def test_a_read_out_of_time_moves_on_and_the_next_harvest_goes_on(env):
    store, roots = env
    syn.write(
        syn.claude_path(roots.claude, PROJECT, SID), syn.claude_session(SID, PROJECT, TURNS, NOW)
    )
    harvester = Harvester(store, FixedClock(NOW), max_file_seconds=0.0)  # stops after one line
    reads = 0
    while _run(store, roots, harvester)[CLAUDE].bytes_read:
        reads += 1
        assert reads < 100
    assert reads > 3
    assert sorted(t.intent for t in store.list_tasks()) == sorted(t.prompt for t in TURNS)


def test_an_unexpected_failure_names_the_file_and_the_cursor_steps_past_it(env, monkeypatch):
    store, roots = env
    bad = syn.write(
        syn.claude_path(roots.claude, PROJECT, SID), syn.claude_session(SID, PROJECT, TURNS, NOW)
    )
    good_sid = SID[:-1] + "f"
    syn.write(
        syn.claude_path(roots.claude, PROJECT, good_sid),
        syn.claude_session(good_sid, "/work/beta", TURNS, NOW),
    )
    from skillopt_sleep.harvest import run

    real = run.mine_chunk

    def mine(chunk, fallback, *rest):  # a defect met by one file only
        if chunk.state.session_id == SID:
            raise MemoryError("boom")
        return real(chunk, fallback, *rest)

    monkeypatch.setattr(run, "mine_chunk", mine)  # the one way to reach the last line of defence
    stats = _run(store, roots)[CLAUDE]
    assert stats.errors == [f"{bad}: unreadable transcript (MemoryError: boom)"]
    assert {t.project for t in store.list_tasks()} == {"/work/beta"}
    assert _run(store, roots)[CLAUDE].files_unchanged == 2  # not met again until it changes


def test_a_non_utf8_file_name_is_skipped_with_its_name_escaped(env):
    store, roots = env
    folder = syn.claude_path(roots.claude, PROJECT, SID).parent
    folder.mkdir(parents=True)
    (folder / "bad.jsonl").write_text("{}\n")
    os.rename(folder / "bad.jsonl", os.fsencode(folder) + b"/\xff\x1b[31m.jsonl")
    stats = _run(store, roots)[CLAUDE]
    assert stats.errors == [f"{folder}/\\xff\\x1b[31m.jsonl: the file name is not UTF-8"]


def test_tag_stripping_is_linear_and_keeps_what_the_regex_kept():
    text = "a<system-reminder>x</system-reminder>b<system-reminder>y</system-reminder>c"
    assert strip_blocks(text, "system-reminder") == "abc"
    assert strip_blocks("<system-reminder>open " + text, "system-reminder") == "bc"
    assert strip_blocks("a<system-reminder>b", "system-reminder") == "a<system-reminder>b"
    assert clean_prompt("<command-name>/x</command-name><command-args>1</command-args>") == (
        "/x 1",
        "x",
    )
    prompt = "do it " + "<system-reminder>" * 230_000
    started = time.perf_counter()
    assert clean_prompt(prompt) == (prompt.strip(), "")
    assert time.perf_counter() - started < 2.0  # the lazy regex took more than 10 minutes


def test_status_names_what_the_last_harvest_skipped(cli, agent_homes, sandbox_home):
    claude, _ = agent_homes
    folder = next((claude / "projects").iterdir())
    (folder / "deep.jsonl").write_bytes(
        b'{"type":"user","x":' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
    )
    r = cli("harvest", "--all-projects", "--since", "2026-11-01")
    assert r.code == 0, r.err
    assert f"    {folder / 'deep.jsonl'}: too-deep 1" in r.out
    status = cli("status").out
    assert "last harvest" in status and "skipped 0 file(s) and 1 line(s) in 1 file(s)" in status
    assert f"{folder / 'deep.jsonl'}: lines skipped: too-deep 1" in status


def test_the_spool_moves_a_poisoned_payload_aside_and_goes_on(cli, agent_homes, sandbox_home):
    claude, _ = agent_homes
    transcript = next((claude / "projects").glob("*/*.jsonl"))
    spool = sandbox_home / "sleep-home" / "state" / "spool"
    spool.mkdir(parents=True)
    (spool / "1-poison.json").write_text('{"a":' + "[" * 50_000 + "]" * 50_000 + "}")
    (spool / "2-good.json").write_text(
        json.dumps({"session_id": "s", "transcript_path": str(transcript)})
    )
    for n, bad in enumerate(("/x\ud83d.jsonl", "/x\x00.jsonl", str(transcript) + "\x00")):
        (spool / f"3-bad-path-{n}.json").write_text(
            json.dumps({"session_id": "s", "transcript_path": bad})
        )
    r = cli("log", "--drain")
    assert r.code == 0
    assert [p.name for p in (spool / "failed").iterdir()] == ["1-poison.json"]
    assert not list(spool.glob("*.json"))
    assert Store.open(sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db").list_tasks()
    assert (
        f"unreadable hook payload {spool / '1-poison.json'}: nested too deep" in cli("status").out
    )


def test_the_hook_exits_0_with_its_output_streams_closed(subprocess_env):
    # buffered, as Claude Code starts it: a write to a closed descriptor fails at the exit's flush
    subprocess_env = {k: v for k, v in subprocess_env.items() if k != "PYTHONUNBUFFERED"}
    for stdin in (b"not json", b'{"session_id":"s","transcript_path":"/nowhere.jsonl"}'):
        # closed before the interpreter starts (sys.stdout is None), and closed under it
        launched = subprocess.run(
            ["sh", "-c", f'exec "{sys.executable}" -m skillopt_sleep log >&- 2>&-'],
            check=False,
            input=stdin,
            env=subprocess_env,
            timeout=30,
        )
        under = subprocess.run(
            [
                sys.executable,
                "-c",
                (
                    "import os,sys; os.close(1); os.close(2); "
                    "from skillopt_sleep.cli import main; sys.exit(main(['log']))"
                ),
            ],
            check=False,
            input=stdin,
            env=subprocess_env,
            timeout=30,
        )
        assert (launched.returncode, under.returncode) == (0, 0)


def test_the_hook_returns_when_its_input_never_ends(subprocess_env):
    payload = b'{"session_id":"s","transcript_path":"/nowhere.jsonl"}'
    for data in (payload, payload[:20]):  # complete JSON at once; or half of it, then silence
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "skillopt_sleep", "log"],
            stdin=subprocess.PIPE,
            env=subprocess_env,
            stderr=subprocess.DEVNULL,
        )
        assert proc.stdin is not None
        proc.stdin.write(data)
        proc.stdin.flush()  # and the pipe stays open
        try:
            assert proc.wait(timeout=20) == 0
        finally:
            proc.stdin.close()
        assert time.monotonic() - started < 15
