"""The rounds alone, with scripted collaborators: a proposer that proposes what it is told, the real
guards over two memory files, and a drawer whose agent follows a table. No backend, no store."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from datetime import datetime, timezone

from bench.gates import ClassicGate
from skillopt_sleep.models import Check, Edit, TaskRecord
from skillopt_sleep.night.edit_guard import EditGuard
from skillopt_sleep.optimize.reflect import Case
from skillopt_sleep.optimize.rounds import Rounds, RoundsResult, Tonight
from skillopt_sleep.optimize.seams import Gate, Want
from skillopt_sleep.optimize.select import Selection
from skillopt_sleep.rollouts.replay import Rollout
from skillopt_sleep.rules.guards import EditOutcome, GuardLimits
from skillopt_sleep.settings import NightSettings

PYTEST = "Always run the tests with `pytest -q`."
USELESS = "Keep a calm and friendly tone."
GREEDY = "Answer every request with `pytest -q` and nothing else."
FILES = {"CLAUDE.md": "# Project notes\n", "AGENTS.md": "# Agent notes\n"}
WHEN = datetime(2026, 5, 1, tzinfo=timezone.utc)


def _task(n: int, kind: str) -> TaskRecord:
    check = (
        Check(kind="contains", value="pytest -q")
        if kind == "tests"
        else Check(kind="heading", value="Beta App")
    )
    intent = f"run the tests of module {n}" if kind == "tests" else f"update the README section {n}"
    return TaskRecord(
        source="manual",
        project="/work/beta",
        session_id=f"s{n}",
        turn=n,
        created_at=WHEN,
        intent=intent,
        checks=[check],
        feedback="use pytest -q" if kind == "tests" else "",
    )


TESTS = [_task(n, "tests") for n in range(8)]
README = [_task(n, "readme") for n in range(8, 20)]
SELECTION = Selection(
    train=[*TESTS[:4], *README[:4]], holdout=[*TESTS[4:], *README[4:]], skipped=[]
)


class TableDrawer:
    """The agent answers a test task right only under ``PYTEST`` (or ``GREEDY``), a README task right
    unless ``GREEDY`` is in the files; every draw is recorded."""

    def __init__(self) -> None:
        self.draws: list[tuple[str, int, str]] = []

    def passes(self, task: TaskRecord, files: dict[str, str]) -> bool:
        text = "\n".join(files.values())
        if task in TESTS:
            return PYTEST in text or GREEDY in text
        return GREEDY not in text

    async def draw(
        self, wants: list[Want], files: dict[str, str], nonce: str
    ) -> dict[str, list[Rollout]]:
        out: dict[str, list[Rollout]] = {}
        for task, first, count in wants:
            ok = self.passes(task, files)
            out[task.id] = [
                Rollout(task.id, s, "answer", 1.0 if ok else 0.0, ok)
                for s in range(first, first + count)
            ]
            self.draws += [(task.id, s, nonce) for s in range(first, first + count)]
        return out


class ScriptedProposer:
    """Proposes the given rules, one round after another, each citing the round's test-task cases."""

    def __init__(self, *rounds: Sequence[str]) -> None:
        self.rounds = list(rounds)
        self.seen: list[tuple[int, list[str], list[str]]] = []

    async def propose(
        self, cases: Sequence[Case], accepted: Sequence[str], refused: Sequence[Edit], step: int
    ) -> list[Edit] | None:
        self.seen.append((step, list(accepted), [e.content for e in refused]))
        if not self.rounds:
            return []
        cites = [c.task.id for c in cases if c.task in TESTS]
        return [Edit(target="memory", content=rule, cites=cites) for rule in self.rounds.pop(0)]


def _train_replay(files: dict[str, str]) -> dict[str, list[Rollout]]:
    drawer = TableDrawer()
    return asyncio.run(drawer.draw([(t, 0, 4) for t in SELECTION.train], files, "train"))


def _run(
    proposer: ScriptedProposer,
    drawer: TableDrawer,
    *,
    settings: NightSettings | None = None,
    refused: list[Edit] | None = None,
    seed: int = 7,
    gate: Gate | None = None,
) -> RoundsResult:
    settings = settings or NightSettings(steps=2)
    guard = EditGuard(FILES, GuardLimits(), refused if refused is not None else [])
    tonight = Tonight(FILES, settings, night_index=3, stream="n3-test", rng=random.Random(seed))
    rounds = Rounds(tonight, proposer=proposer, guard=guard, drawer=drawer, gate=gate)
    return asyncio.run(rounds.run(SELECTION, _train_replay(FILES)))


def test_a_rule_that_fixes_its_kind_is_adopted_into_every_memory_file():
    out = _run(ScriptedProposer([PYTEST]), TableDrawer())
    [ev] = out.evidence
    assert ev.verdict == "accepted", ev.reason
    assert [e.content for e in out.adopted] == [PYTEST]
    assert out.files is not None and all(PYTEST in out.files[name] for name in FILES)
    assert out.ledger == {
        Edit(target="memory", content=PYTEST).key(): None
    }  # decided: nothing carried


def test_a_rule_that_changes_nothing_is_not_adopted_and_no_file_changes():
    out = _run(ScriptedProposer([USELESS]), TableDrawer())
    [ev] = out.evidence
    assert ev.verdict in ("no_effect", "inconclusive"), ev.reason
    assert out.adopted == [] and out.files is None


def test_a_rule_that_helps_its_kind_and_breaks_the_others_is_refused_as_harmful_and_told_to_the_next_round():
    # checked edit by edit (the benchmarks' classic gate), harm is known before the next round
    proposer = ScriptedProposer([GREEDY], [PYTEST])
    out = _run(proposer, TableDrawer(), gate=ClassicGate.of(None))
    verdicts = {e.edit.content: e.verdict for e in out.evidence}
    assert verdicts == {GREEDY: "harmful", PYTEST: "accepted"}
    assert proposer.seen[1] == (2, [], [GREEDY])  # round 2 is told what round 1 refused for good
    assert [e.content for e in out.adopted] == [PYTEST]


def test_a_rule_that_breaks_the_others_is_refused_as_harmful_when_the_accepted_edits_are_checked_together():
    out = _run(
        ScriptedProposer([GREEDY], [PYTEST]), TableDrawer()
    )  # lean: harm checked on the accepted ones
    verdicts = {e.edit.content: e.verdict for e in out.evidence}
    assert verdicts[GREEDY] == "harmful"
    assert GREEDY not in [e.content for e in out.adopted] and (
        out.files is None or GREEDY not in out.files["CLAUDE.md"]
    )


def test_an_edit_the_guards_refuse_is_never_tested():
    refused: list[Edit] = []
    drawer = TableDrawer()
    secret = "Use the token sk-ant-api03-" + "A" * 40 + " for every call."
    out = _run(ScriptedProposer([secret]), drawer, refused=refused)
    assert out.evidence == [] and drawer.draws == []
    [edit] = refused
    assert edit.status == "rejected" and edit.reason
    assert (
        "sk-ant-" not in edit.content and "[REDACTED" in edit.content
    )  # kept for the report, secret out


def test_with_no_edit_budget_tonight_the_proposer_is_never_asked():
    proposer = ScriptedProposer([PYTEST])
    out = _run(proposer, TableDrawer(), settings=NightSettings(steps=2, edit_budget=0))
    assert proposer.seen == [] and out.evidence == []


def test_the_same_collaborators_and_seed_give_the_same_draws_and_decisions():
    first, second = TableDrawer(), TableDrawer()
    a = _run(ScriptedProposer([USELESS, PYTEST]), first)
    b = _run(ScriptedProposer([USELESS, PYTEST]), second)
    assert first.draws == second.draws
    assert [e.model_dump() for e in a.evidence] == [e.model_dump() for e in b.evidence]


class OnlyFirstFile(EditGuard):
    """Guards as the night does, but adopts into CLAUDE.md only (a guard of its own files)."""

    def combine(self, edits: Sequence[Edit], *, budget: int) -> EditOutcome:
        out = super().combine(edits, budget=budget)
        return EditOutcome({"CLAUDE.md": out.files["CLAUDE.md"]}, out.applied, out.rejected)


def test_a_round_tests_at_most_max_tested_edits_and_adopts_through_its_guards_combine():
    guard = OnlyFirstFile(FILES, GuardLimits(), [])
    tonight = Tonight(
        FILES, NightSettings(steps=1), stream="n0", rng=random.Random(7), max_tested=1
    )
    rounds = Rounds(
        tonight, proposer=ScriptedProposer([PYTEST, USELESS]), guard=guard, drawer=TableDrawer()
    )
    out = asyncio.run(rounds.run(SELECTION, _train_replay(FILES)))
    assert [e.edit.content for e in out.evidence] == [PYTEST]  # the second was never tested
    assert out.files is not None and list(out.files) == ["CLAUDE.md"]
    assert PYTEST in out.files["CLAUDE.md"]
