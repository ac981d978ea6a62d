"""The simulated backend's question-answer world: facts its agent knows, and two habits of form
a skill can teach it.

The agent knows every answer of :data:`FACTS`, but says it in a sentence ("I believe the answer
is Paris.") unless the system text tells it to give the answer alone, and spells numbers out
("eight") unless told to write them as digits; with a rule it follows it at the backend's
follow rate, without one it gets the form right at :data:`BASE_RATE`. Exact match fails on both
habits and token F1 gives partial credit to the first, so a QA skill has something to learn
offline (``skillopt_sleep/sample/qa.jsonl`` asks these questions). The optimizer proposes each
lesson when the attempts it is shown show the habit.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Fact:
    key: str  # what a question about it contains, lower case
    answer: str
    spoken: str = ""  # a number's words ("" when the answer is no number)


FACTS: tuple[Fact, ...] = (
    Fact("capital of france", "Paris"),
    Fact("capital of japan", "Tokyo"),
    Fact("capital of italy", "Rome"),
    Fact("capital of canada", "Ottawa"),
    Fact("capital of australia", "Canberra"),
    Fact("capital of egypt", "Cairo"),
    Fact("capital of kenya", "Nairobi"),
    Fact("capital of peru", "Lima"),
    Fact("capital of norway", "Oslo"),
    Fact("capital of spain", "Madrid"),
    Fact("largest ocean", "Pacific Ocean"),
    Fact("chemical symbol for gold", "Au"),
    Fact("red planet", "Mars"),
    Fact("wrote hamlet", "William Shakespeare"),
    Fact("hardest natural mineral", "diamond"),
    Fact("gas do plants absorb", "carbon dioxide"),
    Fact("legs does a spider", "8", "eight"),
    Fact("continents are there", "7", "seven"),
    Fact("sides does a hexagon", "6", "six"),
    Fact("players does a soccer team", "11", "eleven"),
    Fact("months are in a year", "12", "twelve"),
    Fact("planets are in the solar system", "8", "eight"),
    Fact("minutes are in an hour", "60", "sixty"),
    Fact("hours are in a day", "24", "twenty-four"),
    Fact("keys does a standard piano", "88", "eighty-eight"),
    Fact("degrees are in a right angle", "90", "ninety"),
    Fact("legs does an insect", "6", "six"),
    Fact("strings does a standard guitar", "6", "six"),
    Fact("boiling point of water in celsius", "100", "one hundred"),
    Fact("smallest prime number", "2", "two"),
)

BASE_RATE = 0.2
SENTENCE = "I believe the answer is {}."
ALONE_RULE = r"[Aa]nswer alone|no sentence around"
DIGITS_RULE = r"numbers as digits"
ALONE_LESSON = "Answer with the answer alone, with no sentence around it."
DIGITS_LESSON = "Write numbers as digits (8, not eight)."
_SPOKEN = re.compile(
    r"\b(" + "|".join(sorted({f.spoken for f in FACTS if f.spoken}, key=len, reverse=True)) + r")\b"
)


def fact_in(text: str) -> Fact | None:
    """The fact a question in ``text`` asks about, if the agent knows one."""
    low = text.lower()
    return next((f for f in FACTS if f.key in low), None)


def qa_answer(prompt: str, system: str, rng: random.Random, follow_rate: float) -> str | None:
    """The agent's answer to a question it knows (None for any other request)."""
    fact = fact_in(prompt)
    if fact is None:
        return None

    def right(rule: str) -> bool:
        return rng.random() < (follow_rate if re.search(rule, system) else BASE_RATE)

    alone, digits = right(ALONE_RULE), right(DIGITS_RULE)
    said = fact.answer if digits or not fact.spoken else fact.spoken
    return said if alone else SENTENCE.format(said)


def qa_lessons(
    cases: Sequence[tuple[int, str]], current: str, tried: str
) -> list[dict[str, object]]:
    """The optimizer's edits for the QA cases it is shown: each habit the attempts show, once."""
    asked = [(n, body) for n, body in cases if fact_in(body) is not None]
    out: list[dict[str, object]] = []
    for lesson, habit in (
        (ALONE_LESSON, r"I believe the answer is"),
        (DIGITS_LESSON, _SPOKEN.pattern),
    ):
        cited = [n for n, body in asked if re.search(habit, body)]
        if cited and lesson not in current and lesson not in tried:
            out.append(
                {
                    "target": "skill",
                    "op": "add",
                    "content": lesson,
                    "rationale": "the attempts answer in the wrong form",
                    "cases": cited,
                }
            )
    return out
