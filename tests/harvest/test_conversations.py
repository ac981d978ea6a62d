"""Conversations written by the real claude and codex: every later turn lands where it belongs.

The stored fixtures (tests/fixtures/conversations/, recorded by ``conversations.py`` against the
loopback model server) are harvested through the CLI; the live test records three of them again
(:data:`LIVE`) with the binaries on PATH and checks they harvest the same; a correction
that arrives after a harvest still lands on its stored request.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from skillopt_sleep.action_models import ACTION_KINDS
from skillopt_sleep.checks.judge import rule_check
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.store import Store
from skillopt_sleep.testing.agents import which_claude, which_codex

from .conversations import FIXTURES, SESSIONS, Scenario, record, rewrite

SOURCE = {"claude": "claude-code", "codex": "codex"}


def _harvest(cli, home: Path, **extra: str) -> dict:
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex"), **extra}
    r = cli("harvest", "--all-projects", "--since", "2020-01-01", "--json", env=env)
    assert r.code == 0, r.err
    return r.json()


def _tasks(sandbox_home: Path) -> list[TaskRecord]:
    return Store.open(sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db").list_tasks()


def _requests(scenario: Scenario) -> list[tuple[str, list[tuple[str, str]]]]:
    """The tasks a scenario should give: each request and the (kind, text) of its later turns."""
    out: list[tuple[str, list[tuple[str, str]]]] = []
    for step in scenario.steps:
        if step.how == "new" or step.kind == "new_request":
            out.append((step.prompt, []))
        else:
            out[-1][1].append((step.kind, step.prompt))
    return out


def check_conversations(
    tasks: list[TaskRecord], sessions: tuple[Scenario, ...] = SESSIONS
) -> dict[str, int]:
    """Assert every scenario's turns landed on their request; count the checkable corrections."""
    by_intent = {(t.source, t.intent): t for t in tasks}
    praise = {s.prompt for sc in sessions for s in sc.steps if s.kind == "praise"}
    corrections = {s.prompt for sc in sessions for s in sc.steps if s.kind == "correction"}
    assert not {t.intent for t in tasks} & (praise | corrections), "feedback became a task"
    checkable = ruled = 0
    for scenario in sessions:
        for request, later in _requests(scenario):
            task = by_intent[(SOURCE[scenario.agent], request)]
            assert [(n.kind, n.text) for n in task.turns] == later, scenario.name
            assert not any(n.unsure for n in task.turns)
            kinds = {k for k, _ in later}
            expected = (
                "mixed"
                if {"correction", "praise"} <= kinds
                else "failure"
                if "correction" in kinds
                else "success"
                if "praise" in kinds
                else "unknown"
            )
            assert task.outcome == expected, (scenario.name, request)
            for step in scenario.steps:
                if step.checkable and (step.kind, step.prompt) in later:
                    checkable += 1
                    rules = [c for c in task.checks if c.kind not in ACTION_KINDS | {"rubric"}]
                    ruled += any(not rule_check(c, task.attempt)[0] for c in rules)
    assert len(tasks) == sum(len(_requests(s)) for s in sessions)
    return {"checkable": checkable, "with_rule": ruled}


def test_stored_conversations_attach_every_turn_to_its_request(cli, sandbox_home):
    home = sandbox_home / "agents"
    shutil.copytree(FIXTURES, home)
    out = _harvest(cli, home)
    assert out["totals"]["tasks_new"] == sum(len(_requests(s)) for s in SESSIONS)
    counts = check_conversations(_tasks(sandbox_home))
    assert counts["checkable"] == 20
    assert counts["with_rule"] >= 8, counts


def test_the_stored_conversations_cover_every_kind_in_english_and_german_and_every_resume():
    seen = {(sc.agent, s.how) for sc in SESSIONS for s in sc.steps}
    assert {
        ("claude", "resume"),
        ("claude", "continue"),
        ("codex", "resume"),
        ("codex", "last"),
    } <= seen
    german = [sc for sc in SESSIONS if sc.project in ("delta", "zeta")]
    for langs in (german, [sc for sc in SESSIONS if sc not in german]):
        kinds = {s.kind for sc in langs for s in sc.steps if s.how != "new"}
        assert kinds == {"correction", "praise", "follow_up", "new_request"}


def test_tasks_list_shows_the_turns_and_the_preference_seen_with_both_agents(cli, sandbox_home):
    home = sandbox_home / "agents"
    shutil.copytree(FIXTURES, home)
    _harvest(cli, home)
    out = cli("tasks", "list", "--all-projects").out
    assert "  intent:   Run the test suite\n  turns:\n" in out
    assert "    correction  I've told you three times now: use `pytest -q`, not unittest.\n" in out
    assert (
        "    praise      🎉\n    follow-up   Can you do the same for the integration tests?\n"
        in out
    )
    assert "  checks:   contains 'pytest -q'; runs pytest; never runs unittest\n" in out
    assert "preferences (a correction made again strengthens one): 1\n  x2  " in out
    assert (
        "claude-code, codex; contains 'pytest -q'" in out or "codex, claude-code; contains" in out
    )

    # reading every transcript again (cursors lost) counts no sighting twice
    db = sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db"
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM cursors")
    again = _harvest(cli, home)
    assert again["totals"]["tasks_new"] == 0
    [pref] = [p for p in Store.open(db).preferences() if p.count > 1]
    assert pref.count == 2 and sorted(pref.sources) == ["claude-code", "codex"]
    assert pref.project == "/home/dev/work/gamma" and pref.first_seen <= pref.last_seen


def _cut_before(path: Path, prompt: str) -> bytes:
    """The transcript up to the line that first carries ``prompt`` (a session before a resume)."""
    data = path.read_bytes()
    needle = prompt.encode()
    at = data.index(needle)
    return data[: data.rindex(b"\n", 0, at) + 1]


@pytest.mark.parametrize("name", ["tests-claude-en", "csv-codex-de"])
def test_a_correction_sent_after_a_harvest_lands_on_the_stored_request(cli, sandbox_home, name):
    scenario = next(s for s in SESSIONS if s.name == name)
    home = sandbox_home / "agents"
    shutil.copytree(FIXTURES, home)
    files = [
        p for p in home.rglob("*.jsonl") if scenario.steps[1].prompt.encode() in p.read_bytes()
    ]
    [path] = files
    full = path.read_bytes()
    path.write_bytes(_cut_before(path, scenario.steps[1].prompt))
    _harvest(cli, home)
    [task] = [t for t in _tasks(sandbox_home) if t.intent == scenario.steps[0].prompt]
    assert (task.turns, task.outcome) == ([], "unknown")
    path.write_bytes(full)
    out = _harvest(cli, home)
    assert out["totals"]["tasks_new"] == len(_requests(scenario)) - 1
    [task] = [t for t in _tasks(sandbox_home) if t.intent == scenario.steps[0].prompt]
    assert task.turns[0].kind == "correction" and task.turns[0].text == scenario.steps[1].prompt
    assert task.outcome in ("failure", "mixed") and task.checks


# Recorded live: the fewest sessions that send, with each agent, every kind of later turn
# (correction, praise, follow-up, new request) and every way of continuing a session (claude
# --resume / --continue, codex resume <id> / --last), a tool call of each agent, and checkable
# corrections: claude's English session has all of them; codex's follow-up is only in its
# English one and its new request only in its German one. The live run checks that the binaries
# still write what the stored sessions hold; what the miner makes of every language and wording
# is the stored-fixture tests' (above), which harvest all of the stored sessions (claude's
# German dockerfile-de among them).
LIVE = ("release-en", "tests-codex-en", "csv-codex-de")


def _checks(tasks: list[TaskRecord]) -> dict[tuple[str, str], list[tuple[str, str]]]:
    return {(t.source, t.intent): [(c.kind, c.value) for c in t.checks] for t in tasks}


@pytest.mark.realbin
@pytest.mark.slow
def test_live_recording_with_the_real_binaries_gives_the_same_conversations(
    cli, sandbox_home, tmp_path
):
    """The live sessions (:data:`LIVE`) recorded again with the real binaries harvest to the
    same tasks, turns, outcomes and mined checks as the stored recordings of the same sessions."""
    if which_claude() is None or which_codex() is None:
        pytest.skip(
            "claude and codex are not both installed (npm i -g @anthropic-ai/claude-code "
            "@openai/codex)"
        )
    live = tuple(s for s in SESSIONS if s.name in LIVE)
    seen = {(sc.agent, s.how) for sc in live for s in sc.steps}
    assert seen == {(sc.agent, s.how) for sc in SESSIONS for s in sc.steps}
    for agent in ("claude", "codex"):
        kinds = {s.kind for sc in live if sc.agent == agent for s in sc.steps if s.how != "new"}
        assert kinds == {"correction", "praise", "follow_up", "new_request"}, agent
    home, work, stable = tmp_path / "rec-home", tmp_path / "rec-work", tmp_path / "stable"
    work.mkdir()
    record(home, work, live)
    rewrite(home, work.resolve(), stable)
    _harvest(cli, stable)
    recorded = _tasks(sandbox_home)
    counts = check_conversations(recorded, live)
    assert counts == {"checkable": 4, "with_rule": counts["with_rule"]}
    assert counts["with_rule"] >= 4

    stored, stored_home = tmp_path / "stored", tmp_path / "stored-sleep-home"
    shutil.copytree(FIXTURES, stored)
    _harvest(cli, stored, SKILLOPT_SLEEP_HOME=str(stored_home))
    db = Store.open(stored_home / "data" / "skillopt-sleep.db").list_tasks()
    wanted = {(SOURCE[sc.agent], request) for sc in live for request, _ in _requests(sc)}
    assert _checks(recorded) == {k: v for k, v in _checks(db).items() if k in wanted}


def test_tasks_list_says_what_a_mined_regex_asks_for(cli, sandbox_home):
    home = sandbox_home / "agents"
    shutil.copytree(FIXTURES, home)
    _harvest(cli, home)
    out = cli("tasks", "list", "--all-projects").out
    for label in (
        "checks:   at most 3 bullet points\n",
        "checks:   no tables\n",
        "checks:   addresses the user formally (Sie); never says du\n",
        "checks:   at most 2 sentences\n",
        "checks:   at most 49 words\n",
        "checks:   no emoji\n",
        "checks:   heading 'Zusammenfassung'\n",
    ):
        assert label in out, label
