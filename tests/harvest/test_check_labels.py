"""The hand-labelled correction sets load, and their labels cannot drift from what was recorded:
every labelled correction is a correction of its scenarios and was sent, word for word, in the
stored sessions; every right check the labels name is a check the package accepts. Needs neither
binary: it reads the stored fixtures only."""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from skillopt_sleep.models import Action, Check

from . import (
    check_conversations,
    check_conversations_eighth,
    check_conversations_eleventh,
    check_conversations_fifth,
    check_conversations_fourth,
    check_conversations_ninth,
    check_conversations_seventh,
    check_conversations_sixth,
    check_conversations_tenth,
    check_conversations_third,
    check_conversations_thirteenth,
    check_conversations_twelfth,
    check_conversations_unseen,
)

BENCH = Path(__file__).resolve().parents[2] / "bench" / "corrections.py"
_REGEX_KINDS = frozenset({"ran", "never_ran", "regex", "file_contains", "file_not_contains"})
SETS = {
    "checks": (
        check_conversations.CHECK_SESSIONS,
        check_conversations.CHECK_LABELS,
        check_conversations.CHECKS,
        30,
    ),
    "checks2": (
        check_conversations_unseen.CHECK_UNSEEN_SESSIONS,
        check_conversations_unseen.CHECK_UNSEEN_LABELS,
        check_conversations_unseen.CHECKS_UNSEEN,
        12,
    ),
    "checks3": (
        check_conversations_third.CHECK_THIRD_SESSIONS,
        check_conversations_third.CHECK_THIRD_LABELS,
        check_conversations_third.CHECKS_THIRD,
        16,
    ),
    "checks4": (
        check_conversations_fourth.CHECK_FOURTH_SESSIONS,
        check_conversations_fourth.CHECK_FOURTH_LABELS,
        check_conversations_fourth.CHECKS_FOURTH,
        16,
    ),
    "checks5": (
        check_conversations_fifth.CHECK_FIFTH_SESSIONS,
        check_conversations_fifth.CHECK_FIFTH_LABELS,
        check_conversations_fifth.CHECKS_FIFTH,
        20,
    ),
    "checks6": (
        check_conversations_sixth.CHECK_SIXTH_SESSIONS,
        check_conversations_sixth.CHECK_SIXTH_LABELS,
        check_conversations_sixth.CHECKS_SIXTH,
        30,
    ),
    "checks7": (
        check_conversations_seventh.CHECK_SEVENTH_SESSIONS,
        check_conversations_seventh.CHECK_SEVENTH_LABELS,
        check_conversations_seventh.CHECKS_SEVENTH,
        20,
    ),
    "checks8": (
        check_conversations_eighth.CHECK_EIGHTH_SESSIONS,
        check_conversations_eighth.CHECK_EIGHTH_LABELS,
        check_conversations_eighth.CHECKS_EIGHTH,
        14,
    ),
    "checks9": (
        check_conversations_ninth.CHECK_NINTH_SESSIONS,
        check_conversations_ninth.CHECK_NINTH_LABELS,
        check_conversations_ninth.CHECKS_NINTH,
        18,
    ),
    "checks10": (
        check_conversations_tenth.CHECK_TENTH_SESSIONS,
        check_conversations_tenth.CHECK_TENTH_LABELS,
        check_conversations_tenth.CHECKS_TENTH,
        16,
    ),
    "checks11": (
        check_conversations_eleventh.CHECK_ELEVENTH_SESSIONS,
        check_conversations_eleventh.CHECK_ELEVENTH_LABELS,
        check_conversations_eleventh.CHECKS_ELEVENTH,
        20,
    ),
    "checks12": (
        check_conversations_twelfth.CHECK_TWELFTH_SESSIONS,
        check_conversations_twelfth.CHECK_TWELFTH_LABELS,
        check_conversations_twelfth.CHECKS_TWELFTH,
        22,
    ),
    "checks13": (
        check_conversations_thirteenth.CHECK_THIRTEENTH_SESSIONS,
        check_conversations_thirteenth.CHECK_THIRTEENTH_LABELS,
        check_conversations_thirteenth.CHECKS_THIRTEENTH,
        22,
    ),
}


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def _sent(fixtures: Path) -> set[str]:
    """Every string of every stored transcript line."""
    found: set[str] = set()
    for path in fixtures.rglob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                found.update(_strings(json.loads(line)))
    return found


@pytest.mark.parametrize("name", sorted(SETS))
def test_every_correction_has_one_label_and_was_recorded(name):
    sessions, labels, fixtures, least = SETS[name]
    # a correction split over two messages is labelled once, on the part that says what to do
    checkable = [s for sc in sessions for s in sc.steps if s.kind == "correction" and s.checkable]
    corrections = [s.prompt for s in checkable]
    assert len(corrections) >= least
    assert sorted(corrections) == sorted(label.correction for label in labels)
    assert len(set(corrections)) == len(corrections), "a correction text is used twice"
    sent = _sent(fixtures)
    assert sent, f"no recorded sessions under {fixtures}"
    unsent = [c for c in corrections if c not in sent]
    assert not unsent, f"labelled but not in the recorded sessions (re-record {fixtures.name})"
    requests = [s.prompt for sc in sessions for s in sc.steps if s.how == "new"]
    assert not [r for r in requests if r not in sent]


@pytest.mark.parametrize("name", sorted(SETS))
def test_labels_are_a_mix_and_name_valid_checks(name):
    _, labels, _, _ = SETS[name]
    about = [label.about for label in labels]
    assert min(about.count("text"), about.count("action")) >= len(labels) // 3
    for label in labels:
        assert label.attaches
        assert label.checks, label.correction
        for want in label.checks:
            # the label holds the literal text a regex kind must catch, not a regex
            value = re.escape(want.value) if want.kind in _REGEX_KINDS else want.value
            Check.model_validate({"kind": want.kind, "value": value, "path": want.path})
        example = label.example
        if example is None:
            continue
        assert example.answer or example.commands or example.writes, label.correction
        for command in example.commands:
            Action(kind="command", command=command)
        for path in (*example.reads, *example.deletes, *(p for p, _ in example.writes)):
            Action(kind="read", path=path)
    assert sum(label.example is not None for label in labels) >= len(labels) // 2


def test_the_bench_counts_a_check_failing_on_the_users_example_as_a_contradiction():
    spec = importlib.util.spec_from_file_location("corrections", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    [label] = [
        lab
        for lab in check_conversations.CHECK_LABELS
        if lab.correction.startswith("Please run it via `python3 -m pytest -q`")
    ]
    mined = SimpleNamespace(
        checks=[
            Check(kind="never_ran", value=r"(?<![\w-])unittest(?![\w-])"),
            Check(kind="never_ran", value=r"(?<![\w-])python3(?![\w-])"),
            Check(kind="rubric", value="uses pytest"),
        ]
    )
    row = dict.fromkeys(("correct", "contradicting", "contradicting_checks"), 0)
    wrong: list[str] = []
    case = bench._tally(mined, label, row, wrong)
    assert row == {"correct": 1, "contradicting": 1, "contradicting_checks": 1}
    assert case["correct"] and wrong == [f"{label.correction}  ->  {case['checks'][1]}"]
