"""A night of several kinds checks each accepted edit for harm on the tasks of the other kinds.

Six tasks of three kinds, one of each kind on the train side: one rule per kind helps where it
acts, and the tasks of every kind are where one of those rules acts. No task is left outside all
of them, yet each rule's other tasks (the two other kinds) exist: each is checked alone on them
(a harmless rule is still refused at most ``harm_alpha`` of the time), and none waits for "a task
of another kind" the log already holds.

A night's draws follow its id (the clock's second), so whether the simulated optimizer's three
rules all pass where they act is a draw too: each test runs its nights in fresh projects until
one does (nearly always the first) and checks what the user sees on that night.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from skillopt_sleep.harvest.hand_written import Defaults, make_record
from skillopt_sleep.optimize.select import side

NO_HARM = "no other task to check harm on"
Kind = tuple[list[str], list[str], str]  # requests, checks, the user's correction
LOGGING: Kind = (
    [f"Add debug output to the {x}" for x in ("loader", "parser")],
    ["--check", "not_contains=print(", "--check", "contains=logging"],
    "use the logging module, not print",
)
HINTS: Kind = (
    [f"Write a helper that {x}" for x in ("loads the settings file", "parses dates")],
    ["--check", "contains=->"],
    "Add type hints to every function.",
)
PYTEST: Kind = (
    [f"Run the tests {x}" for x in ("after the refactor", "for the loader")],
    ["--check", "contains=pytest -q"],
    "always use pytest -q",
)
TRIES = 6  # fresh projects a test may take to see its night


def _side(project: Path, intent: str) -> str:
    """Where a task added by hand in ``project`` falls (its side is fixed by its id, and its id by
    the project and the request)."""
    record = make_record({"intent": intent}, Defaults(project=str(project), now=datetime.now(UTC)))
    return side(record.id, 0.35)


def _projects(tmp_path: Path, fits: Callable[[Path], bool]) -> list[Path]:
    """``TRIES`` new git projects whose tasks fall as ``fits`` wants."""
    found = [p for n in range(400) if fits(p := tmp_path / f"repo{n}")][:TRIES]
    for project in found:
        project.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True)
    return found


def _add(cli, project: Path, intent: str, kind: Kind) -> str:
    r = cli(
        "tasks", "add", "--intent", intent, *kind[1], "--feedback", kind[2],
        "--outcome", "failure", cwd=project,
    )  # fmt: skip
    assert r.code == 0, r.err
    [task] = re.findall(r"t_[0-9a-f]{16}", r.out)
    return task


def _one_of_each_kind_trains(project: Path) -> bool:
    return all(
        sorted(_side(project, i) for i in kind[0]) == ["holdout", "train"]
        for kind in (LOGGING, HINTS, PYTEST)
    )


def test_six_tasks_of_three_kinds_check_each_rule_on_the_other_kinds(cli, tmp_path):
    for project in _projects(tmp_path, _one_of_each_kind_trains):
        ids = {_add(cli, project, i, kind) for kind in (LOGGING, HINTS, PYTEST) for i in kind[0]}
        r = cli("run", "--backend", "simulated", cwd=project)
        assert r.code == 0, r.err
        night = cli("review", "--json", cwd=project).json()
        # the rules that helped where they act (accepted, or refused only by the harm check)
        helped = [e for e in night["evidence"] if e["verdict"] == "accepted" or e["harm_tasks"]]
        if {i for ev in helped for i in [*ev["cited"], *ev["unseen"]]} == ids:
            break  # every task is where one of them acts: the night this test is about
    else:
        raise AssertionError(f"no night of {TRIES} had a rule that helped for each kind")
    assert "tasks: 3 train, 3 holdout" in r.out
    assert NO_HARM not in r.out and "task of another kind" not in r.out
    assert "harm 0," not in r.out
    assert r.out.count("; 4 others;") == len(helped) == 3
    for ev in helped:  # each checked on the four tasks of the two other kinds
        acting = set(ev["cited"]) | set(ev["unseen"])
        assert set(ev["harm_tasks"]) == ids - acting
        assert len(ev["harm_tasks"]) == 4 and ev["harm"]["after_n"] >= 4
        assert "harm" not in ev["unconfirmed"]
    review = cli("review", cwd=project)
    assert NO_HARM not in review.out
    status = cli("status", cwd=project)
    assert NO_HARM not in status.out and "task of another kind" not in status.out


def test_a_waiting_rules_need_is_counted_again_each_night_as_status_counts_it(cli, tmp_path):
    """A rule from one task waits for a task of its kind and one of another kind; a night that
    logs one of another kind (but none of its kind) says it needs only the task of its kind."""
    hints, logging = HINTS[0][1], LOGGING[0][0]

    def fits(p: Path) -> bool:
        return _side(p, hints) == _side(p, logging) == "train"

    for project in _projects(tmp_path, fits):
        _add(cli, project, hints, HINTS)
        first = cli("run", "--backend", "simulated", cwd=project)
        assert first.code == 0, first.err
        waits = [x for x in first.out.splitlines() if x.startswith("note: waits for evidence")]
        if any("type hints" in x for x in waits):
            break  # the rule helped on its one task: it waits for the checks it lacked
    else:
        raise AssertionError(f"no night of {TRIES} accepted the type-hints rule")
    assert "it needs 1 more task of its kind and 1 more task of another kind" in first.out
    _add(cli, project, logging, LOGGING)
    second = cli("run", "--backend", "simulated", cwd=project)
    assert second.code == 0, second.err
    [line] = [x for x in second.out.splitlines() if "type hints" in x and "waits" in x]
    assert line.endswith(
        "it needs 1 more task of its kind; the next night that has it retests it first"
    )
    status = cli("status", cwd=project)
    assert "type hints" in status.out and "task of another kind" not in status.out
    assert "a confirmed rule needs 1 more task of its kind" in status.out
