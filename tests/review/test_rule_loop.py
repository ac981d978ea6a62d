"""The loop closes: an ignored rule goes back to the optimizer, a contradicted one is proposed for removal."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

from skillopt_sleep.models import Edit, TaskRecord, TurnNote
from skillopt_sleep.night.demo import sample_tasks, write_sample_project
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.review.ledger import AdoptedRule, rule_id, rules, save
from skillopt_sleep.store import Store

RULE = "Run the tests with `pytest -q`."
ALL = {"SKILLOPT_SLEEP_NIGHT__EDIT_BUDGET": "8"}


def _project_with_rule(root: Path, after: list[str | None]) -> tuple[Path, Store]:
    project = root / "project"
    write_sample_project(project)
    claude = project / "CLAUDE.md"
    claude.write_text(
        claude.read_text()
        + f"\n<!-- skillopt-sleep:begin -->\n- {RULE}\n<!-- skillopt-sleep:end -->\n"
    )
    store = Store.open(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).ensure().db)
    now = datetime.now(timezone.utc)
    adopted = now - timedelta(days=20)

    def task(i: int, when: datetime, said: str | None) -> TaskRecord:
        turns = [TurnNote(kind="correction", text=said, at=when)] if said else []
        return TaskRecord(
            source="claude-code",
            project=str(project),
            session_id=f"r{i}",
            created_at=when,
            intent=f"run the tests for the {['parser', 'cache', 'auth', 'io'][i % 4]} module",
            turns=turns,
            feedback=said or "",
        )

    before = [task(i, adopted - timedelta(days=10 - i), "no, use `pytest -q`") for i in range(6)]
    later = [task(100 + i, adopted + timedelta(days=1 + i), said) for i, said in enumerate(after)]
    store.upsert_tasks([*sample_tasks(project), *before, *later], now)
    edit = Edit(target="memory", content=RULE, status="applied", cites=[before[0].id])
    save(
        store,
        AdoptedRule(
            id=rule_id(edit),
            project=str(project),
            text=RULE,
            target="memory",
            files=[str(claude)],
            night_id="20260101-000000-aaaaaa",
            adopted_at=adopted,
            edit=edit,
            task_ids=[before[0].id],
            cited=[before[0].id],
            exemplars=[before[0].intent],
            checks=["contains 'pytest -q'"],
        ),
    )
    return project, store


def test_a_contradicted_rule_is_proposed_for_removal_and_adopting_removes_it(cli, tmp_path):
    opposite = "don't use `pytest -q` any more, run plain `pytest`"
    project, store = _project_with_rule(tmp_path, [opposite, opposite, opposite, None])
    assert cli("rules", "--json", cwd=project).json()["rules"][0]["verdict"] == "contradicted"
    r = cli("run", "--project", str(project), "--backend", "simulated", "--json", env=ALL)
    assert r.code == 0, r.err
    night = r.json()
    removal = [e for e in night["edits"] if e["op"] == "remove"]
    assert [e["content"] for e in removal] == [RULE] and "contradicted" in removal[0]["reason"]
    diff = (Path(night["proposal_dir"]) / "diffs" / "CLAUDE.md.diff").read_text()
    assert f"-- {RULE}" in diff
    assert "contradicted" in (Path(night["proposal_dir"]) / "report.html").read_text()
    assert cli("adopt", cwd=project).code == 0
    assert RULE not in (project / "CLAUDE.md").read_text()
    assert rules(store, str(project)) == [] or all(
        x.text != RULE for x in rules(store, str(project))
    )


def test_an_ignored_rule_is_handed_to_the_next_nights_optimizer(cli, tmp_path):
    project, _ = _project_with_rule(tmp_path, ["no, use `pytest -q`"] * 5)
    assert cli("rules", "--json", cwd=project).json()["rules"][0]["verdict"] == "ignored"
    r = cli("run", "--project", str(project), "--backend", "simulated", "--json", env=ALL)
    assert r.code == 0, r.err
    artifacts = (
        Path(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).night_dir(r.json()["night_id"]))
        / "artifacts"
    )
    prompt = json.loads((artifacts / "reflection.json").read_text())["prompt"]
    section = prompt.split("## ADOPTED RULES THE AGENT DOES NOT FOLLOW", 1)[1].split("##", 1)[0]
    # the five later corrections, and the sample's request that failed with "Run it with pytest -q
    # please." (its own check contains 'pytest -q', the rule's)
    assert RULE in section and "the user corrected 6 of 6" in section


def _moved_model_project(root: Path) -> tuple[Path, Store]:
    """A working rule adopted while the user's sessions ran on one model; since, on another."""
    project, store = _project_with_rule(root, [None] * 6)
    moved = []
    for t in store.list_tasks(project=str(project)):
        if t.intent.startswith("run the tests for"):
            later = t.created_at > datetime.now(timezone.utc) - timedelta(days=20)
            checks = [{"kind": "contains", "value": "pytest -q"}]
            moved.append(
                TaskRecord.model_validate(
                    t.model_dump() | {"model": "model-b" if later else "model-a", "checks": checks}
                )
            )
    store.upsert_tasks(moved, datetime.now(timezone.utc))
    rule = rules(store, str(project))[0]
    save(store, rule.model_copy(update={"session_model": "model-a"}))
    return project, store


def test_after_a_model_change_a_rule_counts_as_working_only_once_a_night_retests_it(cli, tmp_path):
    project, _store = _moved_model_project(tmp_path)
    listed = cli("rules", "--json", cwd=project).json()["rules"][0]
    assert listed["verdict"] == "re-test pending" and listed["retest_model"] == "model-b", {
        k: listed[k] for k in ("retest_model", "session_model", "verdict")
    }
    r = cli(
        "run",
        "--project",
        str(project),
        "--backend",
        "simulated",
        "--model",
        "model-b",
        "--json",
        env=ALL,
    )
    assert r.code == 0, r.err
    note = next(n for n in r.json()["notes"] if "re-tested" in n)
    assert note.startswith("rule ") and "re-tested: confirmed under model-b" in note, note
    after = cli("rules", "--json", cwd=project).json()["rules"][0]
    assert after["verdict"] == "working" and after["confirmed_models"] == ["model-b"], {
        k: after[k] for k in ("retest_model", "confirmed_models", "retest_note")
    }


def test_a_retest_on_another_replay_model_says_so_and_keeps_the_rule_pending(cli, tmp_path):
    project, _ = _moved_model_project(tmp_path)
    r = cli("run", "--project", str(project), "--backend", "simulated", "--json", env=ALL)
    assert r.code == 0, r.err
    note = next(n for n in r.json()["notes"] if "re-tested" in n)
    assert "not yet tested on model-b" in note and "roles.target.model = 'model-b'" in note
    assert cli("rules", "--json", cwd=project).json()["rules"][0]["verdict"] == "re-test pending"
