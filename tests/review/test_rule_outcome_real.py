"""After adoption, through the real harvest of sessions the real ``claude`` writes.

Before the night is adopted, the user corrects two kinds of request every time ("no, always use
`pytest -q`"; "use the heading '## Summary'"). The night adopts one rule for each. Afterwards
the scripted agent follows the first rule (the user stops correcting it) and ignores the second
(the user keeps correcting it). ``rules`` must call the first *working* and the second *ignored*.
Each session is typed in one run of ``claude -p``, its correction as the next turn.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from skillopt_sleep.models import Edit
from skillopt_sleep.store import Store
from skillopt_sleep.testing import ModelServer, Text
from skillopt_sleep.testing.agents import run_claude_turns, which_claude
from skillopt_sleep.testing.replies import Reply
from skillopt_sleep.testing.scripts import claude_bash

pytestmark = [pytest.mark.realbin, pytest.mark.slow]

# As few sessions as each verdict needs: the tests rule is working only with 3 corrected before
# (its cited one aside) and 4 uncorrected after (Fisher 1/35 <= 0.05; 2 before: 1/15); the
# summary rule is ignored with 1 corrected before and 3 corrected after ((1/3)^3 <= 0.05).
MODULES = ("parser", "cache", "router", "auth")
DOCS_BEFORE = ("design", "release")
DOCS_AFTER = ("design", "api", "roadmap")
PYTEST = "No, always use `pytest -q`."
HEADING = "Please use the heading '## Summary' like I asked."
# The sessions touch nothing another could (their commands only echo): three run at a time.
WORKERS = 3
# A session: its user turns, typed one after another in one `claude -p`, and the model's answers.
Session = tuple[tuple[str, ...], tuple[Reply, ...]]


def _tests_session(module: str, corrected: bool) -> Session:
    request = f"Run the tests for the {module} module"
    good = (claude_bash("echo 'pytest -q: 3 passed'"), Text("3 passed with pytest -q."))
    if not corrected:
        return (request,), good
    bad = (claude_bash("echo 'OK'"), Text("OK (python -m unittest)."))
    return (request, PYTEST), bad + good


def _summary_session(doc: str) -> Session:
    return (f"Summarise the {doc} doc", HEADING), (
        Text("It has three parts: harvest, night, review."),
        Text("## Summary\nThree parts: harvest, night, review."),
    )


def _record_one(agent_home: Path, project: Path, session: Session) -> None:
    prompts, replies = session
    with ModelServer(replies) as srv:
        run = run_claude_turns(prompts, home=agent_home, url=srv.url, cwd=project)
        assert run.code == 0 and srv.pending == 0, (prompts, run.err[-2000:])


def record(agent_home: Path, project: Path, sessions: tuple[Session, ...]) -> None:
    """Each session in one run of the real ``claude``; the first alone (it makes the home's
    config), the others ``WORKERS`` at a time."""
    project.mkdir(parents=True, exist_ok=True)
    _record_one(agent_home, project, sessions[0])
    with ThreadPoolExecutor(WORKERS) as pool:
        list(pool.map(lambda s: _record_one(agent_home, project, s), sessions[1:]))


def _harvest(cli, agent_home: Path, project: Path) -> None:
    r = cli(
        "harvest", "--since", "2020-01-01", "--json", cwd=project, env={"HOME": str(agent_home)}
    )
    assert r.code == 0, r.err


def test_a_followed_rule_is_working_and_an_ignored_one_is_ignored(cli, home, tmp_path):
    if which_claude() is None:
        pytest.skip("claude is not installed (npm i -g @anthropic-ai/claude-code)")
    agent_home, work_root = tmp_path / "agent-home", tmp_path / "work"
    project = work_root / "omega"
    record(
        agent_home,
        project,
        tuple(_tests_session(m, True) for m in MODULES)
        + tuple(_summary_session(d) for d in DOCS_BEFORE),
    )
    _harvest(cli, agent_home, project)
    tasks = Store.open(home.paths.db).list_tasks(project=str(project))
    assert len(tasks) == 6 and all(t.turns and t.turns[0].kind == "correction" for t in tasks)
    cite_tests = next(t.id for t in tasks if "parser" in t.intent)
    cite_summary = next(t.id for t in tasks if "design" in t.intent)
    rules = (
        "Run the tests with `pytest -q`.",
        "Start every summary with the heading '## Summary'.",
    )
    (project / "CLAUDE.md").write_text("# Omega\n", encoding="utf-8")
    block = "".join(f"- {r}\n" for r in rules)
    candidate = f"# Omega\n\n<!-- skillopt-sleep:begin -->\n{block}<!-- skillopt-sleep:end -->\n"
    home.stage(
        project,
        {"CLAUDE.md": candidate},
        edits=[
            Edit(target="memory", content=rules[0], status="applied", cites=[cite_tests]),
            Edit(target="memory", content=rules[1], status="applied", cites=[cite_summary]),
        ],
    )
    assert cli("adopt", cwd=project).code == 0
    first = cli("rules", "--json", cwd=project).json()["rules"]
    assert [r["verdict"] for r in first] == ["no data yet", "no data yet"]
    assert first[0]["needed"] == 0 or first[0]["after"]["requests"] == 0

    record(
        agent_home,
        project,
        tuple(_tests_session(m, False) for m in MODULES)
        + tuple(_summary_session(d) for d in DOCS_AFTER),
    )
    _harvest(cli, agent_home, project)
    after = {r["text"]: r for r in cli("rules", "--json", cwd=project).json()["rules"]}
    tests_rule, summary_rule = after[rules[0]], after[rules[1]]
    assert tests_rule["before"] == {"requests": 3, "corrected": 3}
    assert tests_rule["after"]["requests"] == 4 and tests_rule["after"]["corrected"] == 0
    assert tests_rule["verdict"] == "working", tests_rule["summary"]
    assert summary_rule["before"] == {"requests": 1, "corrected": 1}
    assert summary_rule["after"] == {"requests": 3, "corrected": 3, "opposite": 0}
    assert summary_rule["verdict"] == "ignored", summary_rule["summary"]
    status = cli("status", cwd=project)
    assert f"rule {summary_rule['id']} is ignored" in status.out
    assert f"rule {tests_rule['id']}" not in status.out
