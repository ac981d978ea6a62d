"""After adoption, through the real harvest of sessions the real ``claude`` writes.

Before the night is adopted, the user corrects two kinds of request every time ("no, always use
`pytest -q`"; "use the heading '## Summary'"). The night adopts one rule for each. Afterwards
the scripted agent follows the first rule (the user stops correcting it) and ignores the second
(the user keeps correcting it). ``rules`` must call the first *working* and the second *ignored*.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_sleep.models import Edit
from skillopt_sleep.store import Store
from skillopt_sleep.testing import Text
from skillopt_sleep.testing.agents import which_claude
from skillopt_sleep.testing.scripts import claude_bash

from ..harvest.conversations import Scenario, Step, record

pytestmark = [pytest.mark.realbin, pytest.mark.slow]

MODULES = ("parser", "cache", "router", "auth")
DOCS = ("design", "release", "api", "roadmap")
PYTEST = "No, always use `pytest -q`."
HEADING = "Please use the heading '## Summary' like I asked."
# The sessions are resumed by id and their commands only echo: three are recorded at a time.
WORKERS = 3


def _tests_session(module: str, corrected: bool) -> Scenario:
    request = f"Run the tests for the {module} module"
    if not corrected:
        return Scenario(
            f"tests-{module}",
            "claude",
            "omega",
            (
                Step(
                    request,
                    (claude_bash("echo 'pytest -q: 3 passed'"), Text("3 passed with pytest -q.")),
                    "new",
                ),
            ),
        )
    return Scenario(
        f"tests-{module}",
        "claude",
        "omega",
        (
            Step(request, (claude_bash("echo 'OK'"), Text("OK (python -m unittest).")), "new"),
            Step(
                PYTEST,
                (claude_bash("echo 'pytest -q: 3 passed'"), Text("3 passed with pytest -q.")),
                "resume",
                "correction",
            ),
        ),
    )


def _summary_session(doc: str) -> Scenario:
    return Scenario(
        f"summary-{doc}",
        "claude",
        "omega",
        (
            Step(
                f"Summarise the {doc} doc",
                (Text("It has three parts: harvest, night, review."),),
                "new",
            ),
            Step(
                HEADING,
                (Text("## Summary\nThree parts: harvest, night, review."),),
                "resume",
                "correction",
            ),
        ),
    )


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
        work_root,
        tuple(_tests_session(m, True) for m in MODULES) + tuple(_summary_session(d) for d in DOCS),
        workers=WORKERS,
    )
    _harvest(cli, agent_home, project)
    tasks = Store.open(home.paths.db).list_tasks(project=str(project))
    assert len(tasks) == 8 and all(t.turns and t.turns[0].kind == "correction" for t in tasks)
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
        work_root,
        tuple(_tests_session(m, False) for m in MODULES) + tuple(_summary_session(d) for d in DOCS),
        workers=WORKERS,
    )
    _harvest(cli, agent_home, project)
    after = {r["text"]: r for r in cli("rules", "--json", cwd=project).json()["rules"]}
    tests_rule, summary_rule = after[rules[0]], after[rules[1]]
    assert tests_rule["before"] == {"requests": 3, "corrected": 3}
    assert tests_rule["after"]["requests"] == 4 and tests_rule["after"]["corrected"] == 0
    assert tests_rule["verdict"] == "working", tests_rule["summary"]
    assert summary_rule["after"] == {"requests": 4, "corrected": 4, "opposite": 0}
    assert summary_rule["verdict"] == "ignored", summary_rule["summary"]
    status = cli("status", cwd=project)
    assert f"rule {summary_rule['id']} is ignored" in status.out
    assert f"rule {tests_rule['id']}" not in status.out
