"""A seeded corpus of 1,100 mutated real transcripts of both agents, harvested as a user would.

Every case is one real Claude Code or Codex transcript (tests/fixtures/transcripts), moved to a
project of its own, with one of the known triggers plus random damage on top. The home also
holds a ``*.jsonl`` link loop, a directory loop under ``~/.codex``, an unreadable directory
and poisoned hook payloads. One ``harvest --all-projects`` reads it all.

What must hold: the harvest exits 0 (never 70) and finishes within BOUND_S; every file it
cannot read is named with a reason; every case whose damage leaves its tasks intact (lines
inserted that must be skipped, CR-only endings, impossible timestamps) stores exactly the tasks
of the undamaged transcript; cases that damage a task's own lines still store every other task
they hold, and everything stored reads back as a valid record. A second harvest reads nothing.

Bound: the corpus is ~83 MB in 1,100 files; it harvests in about 2.5 s on the development
machine (2 shared cores); BOUND_S allows 20 times that. A regression to the quadratic tag
stripping alone (230,000 unclosed tags in 4 cases) takes more than 40 minutes.
"""

from __future__ import annotations

import io
import json
import os
import random
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from skillopt_sleep.cli import main
from skillopt_sleep.harvest.claude_code import sanitise_cwd
from skillopt_sleep.store import Store

from .conftest import CLAUDE_FILES, CODEX_FILES

SEED = 20261123
CASES = 1100
BOUND_S = 60.0
FIXTURES = [("claude", p) for p in CLAUDE_FILES] + [("codex", p) for p in CODEX_FILES]

# Triggers, each given to every len(TRIGGERS)-th case. ``exact``: the tasks must be exactly the
# undamaged transcript's; ``count``: as many tasks, same turns; ``valid``: no loss of other files.
TRIGGERS: dict[str, str] = {
    "insert-deep-json": "exact",
    "insert-invalid-utf8": "exact",
    "insert-truncated-json": "exact",
    "insert-not-an-object": "exact",
    "cr-only": "exact",
    "crlf": "exact",
    "timestamp-year-1": "exact",
    "timestamp-year-9999": "exact",
    "lone-surrogate-in-output": "count",
    "lone-surrogate-in-prompt": "count",
    "wrong-field-types": "valid",
    "byte-flips": "valid",
    "truncated-file": "valid",
}
# Triggers that write megabytes: given to a few cases each, not to one in thirteen.
RARE: dict[str, tuple[str, tuple[int, ...]]] = {
    "unclosed-tags-230k": ("count", (7, 300, 601, 902)),
    "unclosed-tags-32k": ("count", (11, 111, 211, 411, 511, 711, 811, 1011)),
    "insert-too-long": ("exact", (13, 513, 1013)),
}
MAX_LINE = 4 * 1024 * 1024


@dataclass
class Case:
    number: int
    agent: str
    fixture: Path
    project: str
    trigger: str
    level: str


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n")


def _join(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def _insert(rng: random.Random, lines: list[bytes], poison: bytes) -> list[bytes]:
    at = rng.randrange(len(lines) + 1)
    return [*lines[:at], poison, *lines[at:]]


def _prompt_lines(agent: str, lines: list[bytes]) -> list[int]:
    """Indexes of the lines that hold a typed prompt."""
    out = []
    for i, line in enumerate(lines):
        obj = json.loads(line)
        if agent == "claude" and obj.get("type") == "user":
            content = obj.get("message", {}).get("content")
            if isinstance(content, str) and not obj.get("isMeta"):
                out.append(i)
        if agent == "codex" and obj.get("type") == "event_msg":
            item = obj.get("payload", {}).get("item", {})
            if isinstance(item, dict) and item.get("type") == "UserMessage":
                out.append(i)
    return out


def _set_prompt(agent: str, line: bytes, change) -> bytes:
    obj = json.loads(line)
    if agent == "claude":
        obj["message"]["content"] = change(obj["message"]["content"])
    else:
        for part in obj["payload"]["item"]["content"]:
            if isinstance(part.get("text"), str):
                part["text"] = change(part["text"])
                break
    return json.dumps(obj).encode()


def mutate(rng: random.Random, case: Case, data: bytes) -> bytes:
    """The case's transcript: its trigger, and for ``valid`` cases some random damage too."""
    lines = _lines(data)
    t = case.trigger
    if t == "insert-deep-json":
        return _join(
            _insert(rng, lines, b'{"type":"user","x":' + b"[" * 100_000 + b"]" * 100_000 + b"}")
        )
    if t == "insert-invalid-utf8":
        return _join(_insert(rng, lines, b'{"type":"user","message":{"content":"\xff\xfe"}}'))
    if t == "insert-truncated-json":
        victim = rng.choice(lines)
        return _join(_insert(rng, lines, victim[: rng.randrange(1, len(victim) - 1)]))
    if t == "insert-not-an-object":
        return _join(_insert(rng, lines, rng.choice([b"[1,2]", b'"text"', b"null", b"42"])))
    if t == "insert-too-long":
        return _join(
            _insert(rng, lines, b'{"type":"user","pad":"' + b"x" * (MAX_LINE + 10) + b'"}')
        )
    if t == "cr-only":
        return b"".join(line + b"\r" for line in lines)
    if t == "crlf":
        return b"".join(line + b"\r\n" for line in lines)
    if t.startswith("timestamp-year-"):
        stamp = b"0001-01-01T00:00:00+05:00" if t.endswith("-1") else b"9999-12-31T23:59:59-05:00"
        out = []
        for line in lines:
            obj = json.loads(line)
            if "timestamp" in obj:
                obj["timestamp"] = stamp.decode()
            out.append(json.dumps(obj).encode())
        return _join(out)
    if t == "lone-surrogate-in-output":
        # A tool's output cut mid-emoji: the JSON escape of half a surrogate pair.
        prompts = set(_prompt_lines(case.agent, lines))
        outputs = [
            i
            for i, line in enumerate(lines)
            if i not in prompts
            and (
                b'"aggregated_output":"' in line
                or b'"tool_result","content":"' in line
                or b'"text":"' in line
            )
        ]
        assert outputs
        for i in rng.sample(outputs, min(3, len(outputs))):
            lines[i] = (
                lines[i]
                .replace(b'"tool_result","content":"', b'"tool_result","content":"\\ud83d', 1)
                .replace(b'"aggregated_output":"', b'"aggregated_output":"\\udc00 cut ', 1)
                .replace(b'"text":"', b'"text":"\\ud83d', 1)
            )
        return _join(lines)
    if t == "lone-surrogate-in-prompt":
        # The first prompt: always a task, so the change cannot turn it into feedback.
        i = _prompt_lines(case.agent, lines)[0]
        lines[i] = _set_prompt(case.agent, lines[i], lambda s: s + " \ud83d")
        assert b"\\ud83d" in lines[i]
        return _join(lines)
    if t in ("unclosed-tags-32k", "unclosed-tags-230k"):
        n = 32_000 if t.endswith("32k") else 230_000
        i = _prompt_lines(case.agent, lines)[0]
        lines[i] = _set_prompt(case.agent, lines[i], lambda s: s + " " + "<system-reminder>" * n)
        return _join(lines)
    if t == "wrong-field-types":
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(lines))
            obj = json.loads(lines[i])
            key = rng.choice(sorted(obj))
            obj[key] = rng.choice([None, 7, True, [], {}, "x", -1.5])
            lines[i] = json.dumps(obj).encode()
        return _join(lines)
    if t == "byte-flips":  # never in a line naming the project: a flip must not move a task
        for _ in range(rng.randint(1, 30)):
            i = rng.randrange(len(lines))
            if b'"cwd"' not in lines[i]:
                at = rng.randrange(len(lines[i]))
                lines[i] = lines[i][:at] + bytes([rng.randrange(256)]) + lines[i][at + 1 :]
        return _join(lines)
    if t == "truncated-file":
        raw = _join(lines)
        return raw[: rng.randrange(1, len(raw))]
    raise AssertionError(t)


def _relocate(data: bytes, agent: str, old_project: str, project: str, number: int) -> bytes:
    """The transcript moved to its own project and session, so cases never fold together."""
    data = data.replace(old_project.encode(), project.encode())
    sid = _session_id(agent, data)
    return data.replace(sid.encode(), f"{sid[:-4]}{number:04d}".encode())


def _session_id(agent: str, data: bytes) -> str:
    first = json.loads(data.split(b"\n", 1)[0])
    if agent == "codex":
        return first["payload"]["id"]
    for line in _lines(data):
        obj = json.loads(line)
        if obj.get("sessionId"):
            return obj["sessionId"]
    raise AssertionError("no session id")


def _project_of(agent: str, data: bytes) -> str:
    for line in _lines(data):
        obj = json.loads(line)
        payload = obj.get("payload") if agent == "codex" else None
        cwd = payload.get("cwd") if isinstance(payload, dict) else obj.get("cwd")
        if isinstance(cwd, str) and cwd.startswith("/"):
            return cwd
    raise AssertionError("no project")


def _place(home: Path, case: Case, data: bytes) -> Path:
    if case.agent == "claude":
        path = (
            home / ".claude" / "projects" / sanitise_cwd(case.project) / f"s{case.number:04d}.jsonl"
        )
    else:
        path = (
            home
            / ".codex"
            / "sessions"
            / "2026"
            / "11"
            / f"{1 + case.number % 28:02d}"
            / (f"rollout-2026-11-21T15-07-16-{case.number:04d}.jsonl")
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _tasks_by_project(store: Store) -> dict[str, list[tuple]]:
    out: dict[str, list[tuple]] = {}
    for t in store.list_tasks():
        out.setdefault(t.project, []).append((t.turn, t.intent, t.attempt, t.feedback))
    return {k: sorted(v) for k, v in out.items()}


def _build(home: Path, rng: random.Random) -> tuple[list[Case], dict[str, list[tuple]]]:
    """Write the corpus; returns the cases and, per project, the undamaged transcript's tasks."""
    cases: list[Case] = []
    clean_home = home / "clean"
    names = list(TRIGGERS)
    rare = {n: (trigger, level) for trigger, (level, numbers) in RARE.items() for n in numbers}
    for number in range(CASES):
        agent, fixture = FIXTURES[number % len(FIXTURES)]
        trigger = names[number % len(names)]
        trigger, level = rare.get(number, (trigger, TRIGGERS[trigger]))
        raw = fixture.read_bytes()
        old = _project_of(agent, raw)
        case = Case(number, agent, fixture, f"{old}-c{number:04d}", trigger, level)
        clean = _relocate(raw, agent, old, case.project, number)
        _place(clean_home, case, clean)
        _place(home, case, mutate(rng, case, clean))
        cases.append(case)
    return cases, _clean_tasks(clean_home)


def _clean_tasks(clean_home: Path) -> dict[str, list[tuple]]:
    env = dict(os.environ, HOME=str(clean_home), SKILLOPT_SLEEP_HOME=str(clean_home / "sleep"))
    code = main(
        ["harvest", "--all-projects", "--lookback", "36500", "--quiet"],
        env=env,
        stdout=io.StringIO(),
        stderr=io.StringIO(),
        cwd=clean_home,
    )
    assert code == 0
    store = Store.open(clean_home / "sleep" / "data" / "skillopt-sleep.db")
    try:
        return _tasks_by_project(store)
    finally:
        store.close()


def _hostile_layout(home: Path) -> dict[str, str]:
    """Links that loop, a directory that cannot be read, and poisoned hook payloads."""
    claude_dir = next((home / ".claude" / "projects").iterdir())
    (claude_dir / "loop.jsonl").symlink_to(claude_dir / "loop.jsonl")
    os.symlink(
        home / ".codex" / "sessions", home / ".codex" / "sessions" / "2026" / "11" / "01" / "back"
    )
    os.symlink(home / ".codex", home / ".codex" / "archived_sessions")
    unreadable = home / ".codex" / "sessions" / "2026" / "12"
    unreadable.mkdir()
    spool = home / "sleep-home" / "state" / "spool"
    spool.mkdir(parents=True)
    (spool / "00000000000000000001-1-aa.json").write_text("{not json")
    (spool / "00000000000000000002-1-bb.json").write_text(
        '{"a":' + "[" * 100_000 + "]" * 100_000 + "}"
    )
    return {"loop": str(claude_dir / "loop.jsonl"), "unreadable": str(unreadable)}


@pytest.mark.slow
def test_a_mutated_corpus_of_both_agents_harvests_without_loss_or_crash(
    cli, sandbox_home, monkeypatch
):
    rng = random.Random(SEED)
    home = sandbox_home
    cases, clean = _build(home, rng)
    assert len(cases) >= 1000 and {c.agent for c in cases} == {"claude", "codex"}
    assert set(TRIGGERS) | set(RARE) <= {c.trigger for c in cases}
    hostile = _hostile_layout(home)
    # The tests run as root, where chmod 000 does not stop a read: the directory fails as an
    # unreadable one does, at the one call that lists it.
    real_scandir = os.scandir

    def scandir(path):
        if os.fspath(path) == hostile["unreadable"]:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)

    started = time.monotonic()
    r = cli("harvest", "--all-projects", "--lookback", "36500", "--json", cwd=home)
    elapsed = time.monotonic() - started
    assert r.code == 0, r.err
    assert elapsed < BOUND_S, f"harvest took {elapsed:.1f} s"
    out = r.json()

    errors = "\n".join(out["errors"])
    assert f"{hostile['loop']}: Too many levels of symbolic links" in errors
    assert f"{hostile['unreadable']}: Permission denied" in errors
    assert "a link back to a directory already listed (a loop)" in errors
    assert "unreadable hook payload" in errors
    failed = sorted(p.name for p in (home / "sleep-home" / "state" / "spool" / "failed").iterdir())
    assert failed == ["00000000000000000001-1-aa.json", "00000000000000000002-1-bb.json"]
    skipped = out["totals"]["lines_skipped"]
    for reason in ("too-deep", "invalid-utf8", "invalid-json", "not-an-object", "line-too-long"):
        assert skipped.get(reason, 0) > 0, reason

    store = Store.open(home / "sleep-home" / "data" / "skillopt-sleep.db")
    stored = _tasks_by_project(store)  # every stored record reads back valid
    store.close()
    outcome: Counter[str] = Counter()
    for case in cases:
        want, got = clean.get(case.project, []), stored.get(case.project, [])
        assert want, case.number  # every undamaged transcript holds tasks
        if case.level == "exact":
            assert got == want, (case.number, case.trigger)
        elif case.level == "count":
            assert [t[0] for t in got] == [t[0] for t in want], (case.number, case.trigger)
        elif case.trigger == "truncated-file":  # the tasks before the cut, exactly
            assert got[:-1] == want[: max(len(got) - 1, 0)], case.number
        outcome[case.level] += 1
    assert outcome["exact"] >= 600 and outcome["valid"] >= 200
    print(
        f"harvest of {len(cases)} mutated transcripts: {elapsed:.1f} s; {dict(outcome)}; "
        f"{out['totals']['bytes_read'] / 1e6:.1f} MB, tasks {sum(map(len, stored.values()))}"
    )

    again = cli("harvest", "--all-projects", "--lookback", "36500", "--json", cwd=home).json()
    assert again["totals"]["bytes_read"] == 0  # every cursor moved past what was read
    status = cli("status", cwd=home)
    assert "last harvest" in status.out and hostile["unreadable"] in status.out
