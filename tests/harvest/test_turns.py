"""The turn classifier on the labelled suites, and the reasons it gives (rules alone)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from skillopt_sleep.harvest.turns import RuleClassifier, classify_turn

BENCH = Path(__file__).resolve().parents[2] / "bench" / "turns.py"
SUITES = BENCH.parents[1] / "tests" / "fixtures" / "turns"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_turns", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_turns"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("suite", ["labelled.jsonl", "heldout.jsonl"])
def test_the_rules_read_at_least_95_percent_of_a_labelled_suite(suite):
    bench = _bench()
    rows = bench.load(SUITES / suite)
    result = bench.measure(rows)
    assert result["accuracy"] >= 0.95, result["errors"]
    assert result["accuracy"] > result["legacy_accuracy"]


def test_the_labelled_suite_has_100_turns_of_every_kind_in_english_german_and_emoji():
    rows = _bench().load(SUITES / "labelled.jsonl")
    assert len(rows) >= 100
    kinds = {(r["label"], r["lang"]) for r in rows}
    for kind in ("correction", "praise", "follow_up", "new_request"):
        assert (kind, "en") in kinds and (kind, "de") in kinds
    assert ("praise", "emoji") in kinds


def test_bench_prints_the_accuracy_and_every_error(capsys, tmp_path):
    suite = tmp_path / "suite.jsonl"
    suite.write_text(
        '{"text": "Danke!", "label": "praise", "lang": "de", "note": ""}\n'
        '{"text": "Thanks!", "label": "correction", "lang": "en", "note": "mislabelled on purpose"}\n',
        encoding="utf-8",
    )
    assert _bench().main(["--suite", str(suite)]) == 0
    out = capsys.readouterr().out
    assert "rules accuracy: 50.0%" in out
    assert "errors: 1" in out and "[correction -> praise] 'Thanks!'" in out


@pytest.mark.parametrize(
    ("prompt", "kind", "reason"),
    [
        (
            "Thanks, but you used tabs again.",
            "correction",
            "praise ('Thanks') then a reservation ('but')",
        ),
        ("LGTM, thanks! Commit it please.", "praise", "praises the attempt ('LGTM')"),
        ("No rush, but could you add a LICENSE file?", "new_request", "'No rush', then a request"),
        ("Zu lang.", "correction", "opens like a correction ('Zu lang')"),
        ("👍", "praise", "positive emoji only"),
        ("Now run the tests.", "follow_up", "continues the request ('Now')"),
    ],
)
def test_a_verdict_says_why(prompt, kind, reason):
    verdict = classify_turn(prompt)
    assert (verdict.kind, verdict.reason, verdict.sure) == (kind, reason, True)


def test_a_turn_no_rule_explains_is_marked_unsure_not_guessed():
    [short, long] = RuleClassifier().classify(["hmm", "Il faudrait un test pour le parseur"])
    assert (short.kind, short.sure) == ("follow_up", False)
    assert (long.kind, long.sure) == ("new_request", False)
    assert "no cue" in long.reason
