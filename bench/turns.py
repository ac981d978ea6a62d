"""Accuracy of the turn classifier on the labelled suite (tests/fixtures/turns/labelled.jsonl).

    python -m bench.turns            # rules alone; every error is listed
    python -m bench.turns --suite tests/fixtures/turns/fresh.jsonl
    python -m bench.turns --json

Prints the accuracy overall, per kind and per language, how many verdicts were marked unsure,
and each misread turn with the rule's reason. The baseline in the same run is the classifier
the harvest used before (``feedback.classify``: a correction or praise by its opening words,
everything else a request).

Each suite was written before the rules were tuned on it; what the rules scored on it then is the
honest estimate for unseen turns: labelled 95.5% (7 errors), heldout 65.0%, fresh 47.5% (14 of
its 21 errors marked unsure, not guessed). Turns the rules cannot read are what
``[harvest] llm_classify`` sends to the judge model.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import TypedDict

from skillopt_sleep.harvest.turns import TURN_KINDS, classify_turn

SUITE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "turns" / "labelled.jsonl"
# Written later, each before the rules were tuned on it (see --suite to list their errors).
OTHER_SUITES = (
    ("heldout.jsonl", "written after the first tuning"),
    ("fresh.jsonl", "written after the second tuning"),
)


class Misread(TypedDict):
    """A turn the rules got wrong: what it is, what they read, and why."""

    text: str
    label: str
    got: str
    sure: bool
    reason: str
    note: str


class Measure(TypedDict):
    """The rules' and the legacy heuristic's accuracy on one suite, and the rules' errors."""

    turns: int
    accuracy: float
    legacy_accuracy: float
    unsure: int
    per_kind: dict[str, str]
    per_language: dict[str, str]
    errors: list[Misread]


def load(path: Path = SUITE) -> list[dict[str, str]]:
    """The labelled turns: ``text``, ``label``, ``lang``, ``note``."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    for row in rows:
        if row["label"] not in TURN_KINDS:
            raise SystemExit(f"{path}: unknown label {row['label']!r} for {row['text']!r}")
    return rows


def _legacy(text: str) -> str:
    """The previous heuristic, mapped onto the four kinds (its 'none' was a new request)."""
    from bench.legacy_turns import legacy_kind

    return legacy_kind(text)


def measure(rows: list[dict[str, str]]) -> Measure:
    """Accuracy of the rules and of the legacy heuristic on ``rows``; every error of the rules."""
    hits, legacy_hits, unsure = 0, 0, 0
    by_kind: Counter[str] = Counter()
    by_kind_hit: Counter[str] = Counter()
    by_lang: Counter[str] = Counter()
    by_lang_hit: Counter[str] = Counter()
    errors: list[Misread] = []
    for row in rows:
        verdict = classify_turn(row["text"])
        ok = verdict.kind == row["label"]
        hits += ok
        legacy_hits += _legacy(row["text"]) == row["label"]
        unsure += not verdict.sure
        by_kind[row["label"]] += 1
        by_kind_hit[row["label"]] += ok
        by_lang[row["lang"]] += 1
        by_lang_hit[row["lang"]] += ok
        if not ok:
            errors.append(
                {
                    "text": row["text"],
                    "label": row["label"],
                    "got": verdict.kind,
                    "sure": verdict.sure,
                    "reason": verdict.reason,
                    "note": row["note"],
                }
            )
    n = len(rows)
    return {
        "turns": n,
        "accuracy": hits / n,
        "legacy_accuracy": legacy_hits / n,
        "unsure": unsure,
        "per_kind": {k: f"{by_kind_hit[k]}/{by_kind[k]}" for k in TURN_KINDS},
        "per_language": {k: f"{by_lang_hit[k]}/{v}" for k, v in sorted(by_lang.items())},
        "errors": errors,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--suite", type=Path, default=SUITE)
    args = parser.parse_args(argv)
    result = measure(load(args.suite))
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    print(
        f"turns: {result['turns']}  rules accuracy: {result['accuracy']:.1%}  "
        f"(legacy heuristic: {result['legacy_accuracy']:.1%}, "
        f"ratio {result['accuracy'] / max(result['legacy_accuracy'], 1e-9):.2f}x)"
    )
    print(f"unsure verdicts: {result['unsure']}")
    print("per kind:     " + "  ".join(f"{k} {v}" for k, v in result["per_kind"].items()))
    print("per language: " + "  ".join(f"{k} {v}" for k, v in result["per_language"].items()))
    errors = result["errors"]
    print(f"errors: {len(errors)}")
    for e in errors:
        mark = "" if e["sure"] else " (unsure)"
        print(f"  [{e['label']} -> {e['got']}{mark}] {e['text']!r}: {e['reason']}")
    if args.suite == SUITE:
        for name, when in OTHER_SUITES:
            other = measure(load(SUITE.with_name(name)))
            print(
                f"{name} ({when}): {other['turns']} turns, rules {other['accuracy']:.1%}, "
                f"legacy {other['legacy_accuracy']:.1%}, {len(other['errors'])} error(s)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
