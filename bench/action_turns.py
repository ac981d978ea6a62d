"""Accuracy of reading action corrections: later turns that tell the agent not to do, or to do
differently, what its previous attempt just did (tests/fixtures/action_turns/suite.jsonl).

    python -m bench.action_turns          # both classifiers; every error is listed
    python -m bench.action_turns --json

Each row holds the previous attempt's actions, the later turn, its language and whether it is a
correction of that attempt (or a genuinely new request / follow-up). A turn counts as read as a
correction when the harvest acts on it: kind ``correction`` and sure. The baseline in the same run
is the turn rules alone (:mod:`skillopt_sleep.harvest.turns`); the candidate adds what the turn
refers to in the previous attempt (:mod:`skillopt_sleep.harvest.action_refs`).

The suite (66 turns: 43 corrections, 23 new requests or follow-ups, 9 of which name a file the
attempt touched; en, de, fr, es) was written before the classifier was changed. Measured then:
the rules alone 48.5% (9 of 43 corrections caught, none of the others misread); with the
references 95.5% (42 of 43 caught; 2 new requests misread: one names ``.env`` with a "not", one
is a short request naming the attempt's ``jq``). The classifier was written with the suite in
view, so 95.5% is an estimate for turns like these, not for unseen phrasing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict

from skillopt_sleep.harvest.turns import TurnVerdict, classify_turn
from skillopt_sleep.models import Action

SUITE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "action_turns" / "suite.jsonl"
Reader = Callable[[str, list[Action]], TurnVerdict]


class Row(TypedDict):
    """One turn of the suite, with the actions of the attempt before it."""

    actions: list[Action]
    text: str
    lang: str
    label: str


class Miss(TypedDict):
    """A turn the reader got wrong, and what it read instead."""

    text: str
    label: str
    read: str
    sure: bool
    reason: str


class Score(TypedDict):
    """How well one reader did on the suite."""

    accuracy: float
    corrections_caught: int
    corrections: int
    false_corrections: int
    by_lang: dict[str, float]
    errors: list[Miss]


def load(path: Path = SUITE) -> list[Row]:
    """The suite's turns, each with its attempt's actions made into :class:`Action` records."""
    return [
        _row(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line
    ]


def _row(raw: dict[str, Any]) -> Row:
    """One line of the suite; its actions are ``[kind, command or path]`` pairs."""
    actions = [
        Action(kind=k, **({"command": v} if k == "command" else {"path": v}))
        for k, v in raw["actions"]
    ]
    return Row(actions=actions, text=raw["text"], lang=raw["lang"], label=raw["label"])


def rules_only(text: str, actions: list[Action]) -> TurnVerdict:
    return classify_turn(text)


def with_refs(text: str, actions: list[Action]) -> TurnVerdict:
    from skillopt_sleep.harvest.action_refs import refine

    return refine(classify_turn(text), text, actions)


def score(rows: list[Row], reader: Reader) -> Score:
    errors: list[Miss] = []
    by_lang: dict[str, list[int]] = {}
    right = 0
    for row in rows:
        verdict = reader(row["text"], row["actions"])
        said = verdict.kind == "correction" and verdict.sure
        ok = said == (row["label"] == "correction")
        right += ok
        lang = by_lang.setdefault(row["lang"], [0, 0])
        lang[0] += ok
        lang[1] += 1
        if not ok:
            errors.append(
                {
                    "text": row["text"],
                    "label": row["label"],
                    "read": verdict.kind,
                    "sure": verdict.sure,
                    "reason": verdict.reason,
                }
            )
    positives = [r for r in rows if r["label"] == "correction"]
    caught = sum(
        1
        for r in positives
        if (v := reader(r["text"], r["actions"])).kind == "correction" and v.sure
    )
    return {
        "accuracy": right / len(rows),
        "corrections_caught": caught,
        "corrections": len(positives),
        "false_corrections": sum(1 for e in errors if e["label"] != "correction"),
        "by_lang": {k: v[0] / v[1] for k, v in sorted(by_lang.items())},
        "errors": errors,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = load()
    readers: dict[str, Reader] = {"rules": rules_only}
    try:
        from skillopt_sleep.harvest import action_refs  # noqa: F401

        readers["rules+refs"] = with_refs
    except ImportError:
        pass
    result = {name: score(rows, reader) for name, reader in readers.items()}
    if args.json:
        print(json.dumps({"turns": len(rows), **result}, indent=2, ensure_ascii=False))
        return 0
    for name, res in result.items():
        print(
            f"{name:>11}: accuracy {res['accuracy']:.1%} on {len(rows)} turns; corrections caught "
            f"{res['corrections_caught']}/{res['corrections']}; new requests read as corrections "
            f"{res['false_corrections']}; by language {res['by_lang']}"
        )
        for e in res["errors"]:
            print(
                f"    {e['label']:>10} read as {e['read']}{'' if e['sure'] else ' (unsure)'}: "
                f"{e['text']!r}  [{e['reason']}]"
            )
    if len(result) == 2:
        print(
            f"ratio: {result['rules+refs']['accuracy'] / result['rules']['accuracy']:.2f}x the rules' accuracy"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
