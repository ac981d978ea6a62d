"""Small logs are honest: an edit its night could not check on unseen tasks of its kind, or on any
other task, is staged *unconfirmed*: marked in run, review, the report and ``--json``, never
auto-adopted, and retested first by the next night that has the missing evidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillopt_sleep.night.demo import sample_tasks, write_sample_project
from skillopt_sleep.optimize.select import side

AUTO = {"SKILLOPT_SLEEP_NIGHT__AUTO_ADOPT": "true"}
RULE = "Give every new Python function full type hints, return type included."
NOT_FROM = "unconfirmed: checked only on the tasks it came from"
NO_HARM = "no other task to check harm on"


def _id(name: str, where: str) -> str:
    """A task id of ``name`` on the ``where`` side of the split (the side is fixed by the id)."""
    return next(f"t_{name}_{i}" for i in range(1000) if side(f"t_{name}_{i}", 0.35) == where)


def _tasks(project: Path, wanted: list[tuple[str, int, str]]) -> list[dict[str, object]]:
    """Sample tasks as a user adds them by hand: (tag, which of its kind, train or holdout)."""
    by_tag: dict[str, list[dict[str, object]]] = {}
    for t in sample_tasks(project):
        by_tag.setdefault(t.tags[0], []).append(
            t.model_dump(mode="json", include={"intent", "outcome", "feedback", "checks", "tags"})
        )
    return [dict(by_tag[tag][n], id=_id(f"{tag}{n}", where)) for tag, n, where in wanted]


@pytest.fixture
def log(cli, tmp_path):
    """``log(tasks)`` adds tasks to an empty project's log through ``tasks add --file``."""
    project = tmp_path / "project"
    write_sample_project(project)  # a hand-written CLAUDE.md and a skill

    def add(wanted: list[tuple[str, int, str]]) -> Path:
        file = tmp_path / f"tasks-{len(list(tmp_path.glob('tasks-*')))}.json"
        file.write_text(json.dumps(_tasks(project, wanted)))
        r = cli("tasks", "add", "--project", str(project), "--file", str(file), "--json")
        assert r.code == 0, r.err
        return project

    return add


def _run(cli, project: Path, *more: str, env: dict[str, str] | None = None) -> dict:
    env = AUTO | (env or {})
    r = cli("run", "--project", str(project), "--backend", "simulated", *more, env=env)
    assert r.code == 0, r.err
    return r.json() if "--json" in more else {"text": r.out}


def test_a_one_task_log_stages_its_edit_unconfirmed_and_auto_adopt_leaves_it(cli, log):
    project = log([("type-hints", 0, "train")])
    night = _run(cli, project, "--json")
    [ev] = [e for e in night["evidence"] if e["verdict"] == "accepted"]
    assert ev["edit"]["content"] == RULE
    assert ev["unconfirmed"] == ["unseen", "harm"]
    assert night["tally"]["unconfirmed"] == 1
    [waits] = night["waiting"]
    assert waits["needs"] == "1 more task about type-hints and 1 more task of another kind"
    # auto_adopt is on, yet the night stays staged and the live file is untouched
    assert "skillopt-sleep:begin" not in (project / "CLAUDE.md").read_text()
    status = cli("status", "--project", str(project))
    assert "was not auto-adopted: edit 1 (" + NOT_FROM + "; " + NO_HARM + ")" in status.out
    assert "pending proposal" in status.out
    assert (
        f"{RULE!r}: {NOT_FROM}; {NO_HARM}; a confirmed rule needs 1 more task about type-hints "
        "and 1 more task of another kind"
    ) in status.out
    review = cli("review", "--project", str(project))
    assert "[accepted, unconfirmed]" in review.out
    assert f"{NOT_FROM}; {NO_HARM}: not auto-adopted" in review.out
    report = Path(night["proposal_dir"])
    assert f"({NOT_FROM}; {NO_HARM})" in (report / "report.md").read_text()
    assert (
        "Unconfirmed: checked only on the tasks it came from"
        in (report / "report.html").read_text()
    )
    adopted = cli("adopt", "--project", str(project))
    assert adopted.code == 0, adopted.err
    assert f"edit 1 was {NOT_FROM}; {NO_HARM}; adopted on your word" in adopted.out
    assert RULE in (project / "CLAUDE.md").read_text()


def test_the_run_output_marks_the_unconfirmed_edit(cli, log):
    project = log([("type-hints", 0, "train")])
    out = _run(cli, project)["text"]
    assert "[accepted, unconfirmed] memory add: " + RULE in out
    assert f"; {NOT_FROM}; {NO_HARM}" in out
    assert "edits: 1 accepted (1 unconfirmed), 0 refused" in out
    assert "waits for evidence since night " in out


def test_two_tasks_of_one_kind_no_unseen_task_and_no_other_kind(cli, log):
    project = log([("type-hints", 0, "train"), ("type-hints", 1, "train")])
    night = _run(cli, project, "--json")
    [ev] = [e for e in night["evidence"] if e["verdict"] == "accepted"]
    assert ev["unseen"] == [] and ev["harm_tasks"] == []
    assert ev["unconfirmed"] == ["unseen", "harm"]
    assert "skillopt-sleep:begin" not in (project / "CLAUDE.md").read_text()  # not auto-adopted


def test_no_other_kind_then_a_night_with_one_retests_it_first_and_confirms_it(cli, log):
    project = log(
        [("type-hints", 0, "train"), ("type-hints", 1, "train"), ("type-hints", 2, "holdout")]
    )
    first = _run(cli, project, "--json")
    [ev] = [e for e in first["evidence"] if e["verdict"] == "accepted"]
    assert ev["unseen"] and ev["unconfirmed"] == ["harm"]  # the memorisation check ran
    assert "skillopt-sleep:begin" not in (project / "CLAUDE.md").read_text()
    status = cli("status", "--project", str(project)).out
    assert (
        f"{RULE!r}: unconfirmed: {NO_HARM}; a confirmed rule needs 1 more task of another kind"
        in status
    )

    log([("brevity", 0, "holdout"), ("brevity", 1, "holdout")])  # tasks of another kind come in
    status = cli("status", "--project", str(project)).out
    assert f"{RULE!r}: unconfirmed: {NO_HARM}; its evidence is logged now" in status
    second = _run(cli, project, "--json")
    why = second["evidence"][0]["reason"]
    since = first["night_id"]
    assert second["retested"] == [
        f"retested first, unconfirmed since night {since}: {RULE!r}: confirmed ({why})"
    ]
    [ev] = second["evidence"]
    assert ev["edit"]["content"] == RULE and ev["verdict"] == "accepted"
    assert ev["unconfirmed"] == [] and len(ev["harm_tasks"]) == 2
    assert second["waiting"] == []
    # confirmed: auto_adopt takes it now
    assert RULE in (project / "CLAUDE.md").read_text()
    assert "waiting for evidence" not in cli("status", "--project", str(project)).out


def test_a_night_without_the_missing_evidence_keeps_it_waiting_and_staged(cli, log):
    project = log([("type-hints", 0, "train")])
    first = _run(cli, project, "--json")
    second = _run(cli, project, "--json")
    assert second["retested"] == []
    [waits] = second["waiting"]
    assert waits["since"] == first["night_id"] and waits["missing"] == ["unseen", "harm"]
    assert not [e for e in second["evidence"] if e["edit"]["content"] == RULE]  # not tested again
    review = cli("review", "--project", str(project), first["night_id"])
    assert review.code == 0 and f"{NOT_FROM}; {NO_HARM}: not auto-adopted" in review.out


def test_a_retest_that_does_not_confirm_it_says_how_to_drop_it_from_its_night(cli, log):
    project = log([("type-hints", 0, "train")])
    first = _run(cli, project, "--json")["night_id"]
    log([("type-hints", 2, "holdout"), ("brevity", 0, "holdout")])  # the missing evidence
    # a level no unseen task of this night can reach: the retest cannot confirm it
    strict = {"SKILLOPT_SLEEP_NIGHT__UNSEEN_ALPHA": "1e-9"}
    second = _run(cli, project, "--json", env=strict)
    [retest] = second["retested"]
    assert retest.startswith(f"retested first, unconfirmed since night {first}: {RULE!r}: ")
    assert "inconclusive (helps the cited tasks but not unseen tasks of their kind" in retest
    assert second["waiting"] == []  # tested: its evidence goes on as any inconclusive edit's
    drop = f"`skillopt-sleep reject {first} 1`"
    assert (
        f"night {first} still stages it as edit 1, not confirmed tonight (inconclusive): "
        f"{drop} drops it"
    ) in second["notes"]
    r = cli("reject", "--project", str(project), first, "1")
    assert r.code == 0, r.err
    assert "skillopt-sleep:begin" not in (project / "CLAUDE.md").read_text()


def test_a_retest_needs_only_what_its_night_lacked_and_takes_no_level_from_new_edits(cli, log):
    """Its effect was shown on its own night, at that night's level: the retest spends none of
    tonight's, so a night whose level no new edit can reach still confirms it on its unseen task."""
    project = log([("type-hints", 0, "train")])
    first = _run(cli, project, "--json")["night_id"]
    log([("type-hints", 2, "holdout"), ("brevity", 0, "holdout")])  # the missing evidence
    none_pass = {
        "SKILLOPT_SLEEP_NIGHT__ALPHA": "1e-9",
        "SKILLOPT_SLEEP_NIGHT__EVIDENCE_ALPHA": "1e-9",
    }
    second = _run(cli, project, "--json", env=none_pass)
    [ev] = [e for e in second["evidence"] if e["edit"]["content"] == RULE]
    assert ev["verdict"] == "accepted" and ev["unconfirmed"] == [] and ev["unseen"]
    assert ev["reason"].startswith(
        f"helps where it acts (shown on night {first}; unseen tasks p = "
    )
    assert second["retested"] == [
        f"retested first, unconfirmed since night {first}: {RULE!r}: confirmed ({ev['reason']})"
    ]
    # no new edit of tonight's reaches a level of 1e-9
    assert all(
        e["verdict"] != "accepted" for e in second["evidence"] if e["edit"]["content"] != RULE
    )
    assert RULE in (project / "CLAUDE.md").read_text()  # confirmed: auto_adopt takes it


def test_an_edit_the_budget_cut_waits_and_the_next_night_retests_it_first(cli, log):
    """Shown to help, cut by the edit budget before its harm check: it is not staged, not lost."""
    budget = {"SKILLOPT_SLEEP_NIGHT__EDIT_BUDGET": "1"}
    kinds = ("type-hints", "brevity", "logging")
    project = log([(k, n, where) for k in kinds for n, where in ((0, "train"), (1, "holdout"))])
    first = _run(cli, project, "--json", env=budget)
    cut = [e for e in first["evidence"] if e["verdict"] == "over_budget"]
    assert cut and {w["edit"]["content"] for w in first["waiting"]} == {
        e["edit"]["content"] for e in cut
    }
    assert all(w["missing"] == ["budget"] for w in first["waiting"])
    assert "over its night's edit budget, not checked for harm" in "\n".join(first["notes"])
    staged = (project / "CLAUDE.md").read_text()
    assert not any(e["edit"]["content"] in staged for e in cut)  # not adopted meanwhile

    log([(k, 2, "holdout") for k in kinds])
    second = _run(cli, project, "--json", env=budget)
    [confirmed] = [e for e in second["evidence"] if e["verdict"] == "accepted"]
    assert confirmed["edit"]["content"] in {e["edit"]["content"] for e in cut}
    assert confirmed["reason"].startswith(
        f"helps where it acts (shown on night {first['night_id']}"
    )
    assert any(
        r.startswith(f"retested first, over the edit budget since night {first['night_id']}: ")
        and r.endswith(f"confirmed ({confirmed['reason']})")
        for r in second["retested"]
    )
    assert confirmed["edit"]["content"] in (project / "CLAUDE.md").read_text()


def test_an_inconclusive_edit_on_strong_evidence_waits_and_passes_on_its_evidence_over_nights(
    cli, log
):
    """Its e-value carries over and the next night retests it first, out of the family: it passes
    once the product reaches 1/evidence_alpha, on a night whose level no new edit can reach."""
    project = log(
        [("type-hints", 0, "train"), ("type-hints", 1, "holdout"), ("brevity", 0, "holdout")]
    )
    none_pass = {"SKILLOPT_SLEEP_NIGHT__ALPHA": "1e-9"}
    first = _run(
        cli, project, "--json", env=none_pass | {"SKILLOPT_SLEEP_NIGHT__EVIDENCE_ALPHA": "1e-9"}
    )
    [ev] = [e for e in first["evidence"] if e["edit"]["content"] == RULE]
    assert ev["verdict"] == "inconclusive" and ev["e_total"] >= 10
    [waits] = first["waiting"]
    assert waits["edit"]["content"] == RULE and waits["missing"] == ["evidence"]
    assert "not enough evidence yet, its evidence carried over" in "\n".join(first["notes"])
    assert RULE not in (project / "CLAUDE.md").read_text()

    log([("type-hints", 2, "holdout")])
    second = _run(cli, project, "--json", env=none_pass)
    [ev] = [e for e in second["evidence"] if e["edit"]["content"] == RULE]
    assert ev["verdict"] == "accepted" and ev["e_total"] >= 200
    assert ev["reason"].startswith("helps where it acts (evidence over nights e = ")
    since = first["night_id"]
    assert second["retested"] == [
        f"retested first, inconclusive since night {since}: {RULE!r}: confirmed ({ev['reason']})"
    ]
    assert RULE in (project / "CLAUDE.md").read_text()
