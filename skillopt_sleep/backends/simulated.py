"""The simulated backend: offline, deterministic, free. For the demo and the tests.

Its *agent* (role ``target``) answers coding requests from a small world of recurring user
preferences (:data:`WORLD`). For each preference a request touches, it gets it right with a low
base rate, or with high probability when a rule for it is written in the system text (the skill
and memory under test), and rarely when a harmful rule pushes the other way. Draws come from the
request's seed, so K samples differ while the same sample under two skills is paired.

Its *optimizer* reads the reflection prompt and proposes the rule that the user's feedback points
at, sometimes padded with a useless or a harmful rule, as a real optimizer sometimes is. Its
*judge* scores rubrics by word overlap.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..settings import RoleSettings
from .base import Completion, Health, Request
from .simulated_merge import merge_reply, rank_reply
from .simulated_qa import qa_answer, qa_lessons


@dataclass(frozen=True)
class Preference:
    """One recurring user preference of the simulated world."""

    key: str
    topic: str  # regex: the request concerns this preference
    rule: str  # regex: the system text holds a rule for it
    anti: str  # regex: the system text holds a rule against it
    base_rate: float  # chance of getting it right with no rule
    right: str
    wrong: str
    feedback: str  # regex: the reflection shows the user complaining about it
    lesson: str  # the rule the optimizer proposes
    target: str  # where the optimizer puts it: "skill" or "memory"
    lead: bool = False  # the fragment must open the answer


WORLD: tuple[Preference, ...] = (
    Preference(
        "readme-title",
        r"\breadme\b",
        r"README title",
        r"(?!)",
        0.25,
        "# Beta App\n\nA small app for tracking beta testers.",
        "# beta_app\n\nA small app.",
        r"Beta App",
        "The README title is always 'Beta App' (a level-1 heading, exactly).",
        "memory",
        lead=True,
    ),
    Preference(
        "pytest-quiet",
        r"\btests?\b|\bsuite\b",
        r"pytest -q",
        r"bare `pytest` for",
        0.3,
        "Run them with `pytest -q`.",
        "Run them with `pytest`.",
        r"pytest -q",
        "Run the test suite with `pytest -q`, never bare `pytest`.",
        "skill",
    ),
    Preference(
        "logging",
        r"\blog(ging)?\b|\bdebug\b|diagnos",
        r"\blogging\b",
        r"print\(\) for|use print",
        0.3,
        '```python\nimport logging\nlog = logging.getLogger(__name__)\nlog.debug("loaded %s", path)\n```',
        '```python\nprint("loaded", path)\n```',
        r"logging|print",
        "Use the logging module (logging.getLogger(__name__)), never print(), for diagnostics.",
        "skill",
    ),
    Preference(
        "conventional-commits",
        r"\bcommit\b",
        r"[Cc]onventional [Cc]ommit|feat:",
        r"(?!)",
        0.2,
        "feat(export): add the CSV export command",
        "Added the CSV export command",
        r"[Cc]onventional|feat[:(]",
        "Write commit messages as Conventional Commits: `type(scope): summary`.",
        "skill",
        lead=True,
    ),
    Preference(
        "type-hints",
        r"\bfunction\b|\bhelper\b",
        r"type hint|annotat",
        r"(?!)",
        0.35,
        "```python\ndef load(path: str) -> dict[str, str]:\n    ...\n```",
        "```python\ndef load(path):\n    ...\n```",
        r"type hint|annotat",
        "Give every new Python function full type hints, return type included.",
        "memory",
    ),
    Preference(
        "brevity",
        r"\bsummar",
        r"under 300 characters",
        r"(?!)",
        0.3,
        "Short version: the change adds CSV export and its tests.",
        "Sure! Here is a detailed summary of everything that happened in this change. " * 5,
        r"shorter|too long|300 char",
        "Keep summaries under 300 characters.",
        "memory",
    ),
)

USELESS = "Double-check your work before answering."
HARMFUL = "Use print() for debugging output and run bare `pytest` for the full output."


def _rng(*parts: object) -> random.Random:
    digest = hashlib.sha256("\x00".join(map(str, parts)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


class SimulatedBackend:
    """Offline backend for all three roles; see the module docstring."""

    name = "simulated"

    def __init__(
        self, model: str = "simulated", *, follow_rate: float = 0.92, noise: float = 0.3
    ) -> None:
        self.model = model
        self.follow_rate = follow_rate
        self.noise = noise

    @classmethod
    def from_settings(cls, role: RoleSettings, env: Mapping[str, str]) -> SimulatedBackend:
        return cls(role.model or "simulated")

    @classmethod
    def usable(cls, env: Mapping[str, str], which: object) -> bool:
        return False  # never chosen automatically for a real night

    async def check(self) -> Health:
        return Health(True, "simulated backend (offline, deterministic)", version="1")

    async def complete(self, request: Request) -> Completion:
        if request.role == "target":
            text = self._answer(request)
        elif request.role == "optimizer" and request.tag == "meta":
            text = self._notes(request)
        elif request.role == "optimizer" and request.tag.startswith("merge-"):
            text = merge_reply(request.prompt)  # a training run's merge of its proposed edits
        elif request.role == "optimizer" and request.tag == "rank":
            text = rank_reply(request.prompt)
        elif request.role == "optimizer":
            text = self._optimize(request)
        else:
            text = self._judge(request)
        return Completion(
            text, _tokens(request.system) + _tokens(request.prompt), _tokens(text), 0.0, self.model
        )

    def _answer(self, request: Request) -> str:
        rng = _rng("answer", request.seed, request.prompt)
        intent, system = request.prompt, request.system
        known = qa_answer(intent, system, rng, self.follow_rate)
        if known is not None:  # a question of the QA world (:mod:`.simulated_qa`)
            return known
        lead: list[str] = []
        body: list[str] = []
        for pref in WORLD:
            if not re.search(pref.topic, intent, re.IGNORECASE):
                continue
            if re.search(pref.anti, system):
                p = 0.05
            elif re.search(pref.rule, system):
                p = self.follow_rate
            else:
                p = pref.base_rate
            fragment = pref.right if rng.random() < p else pref.wrong
            (lead if pref.lead else body).append(fragment)
        body.insert(0, f"Done: {intent.strip().splitlines()[0][:80]}")
        return "\n\n".join(lead + body) + "\n"

    def _optimize(self, request: Request) -> str:
        rng = _rng("optimize", request.seed, request.prompt)
        text = request.prompt
        current = request.system + "\n" + _section(text, "CURRENT RULES")
        tried = _section(text, "ALREADY TRIED")
        cases = _cases(_section(text, "CASES"))
        edits: list[dict[str, object]] = []
        for pref in WORLD:
            cited = [n for n, body in cases if re.search(pref.feedback, body)]
            if cited and pref.lesson not in current and pref.lesson not in tried:
                edits.append(
                    {
                        "target": pref.target,
                        "op": "add",
                        "content": pref.lesson,
                        "rationale": f"the user corrected this ({pref.key})",
                        "cases": cited,
                    }
                )
        edits += qa_lessons(cases, current, tried)
        some = [n for n, _ in cases][:1]
        if rng.random() < self.noise:
            edits.append(
                {
                    "target": "skill",
                    "op": "add",
                    "content": USELESS,
                    "rationale": "general care",
                    "cases": some,
                }
            )
        if rng.random() < self.noise / 3 and HARMFUL not in tried:
            edits.insert(
                0,
                {
                    "target": "skill",
                    "op": "add",
                    "content": HARMFUL,
                    "rationale": "simpler debugging",
                    "cases": some,
                },
            )
        return json.dumps({"edits": edits})

    def _notes(self, request: Request) -> str:
        """A training run's meta skill: notes on which rules were kept and which were refused."""
        kept = len(re.findall(r"^- ", _section(request.prompt, "ACCEPTED RULES"), re.MULTILINE))
        refused = len(re.findall(r"^- ", _section(request.prompt, "REFUSED RULES"), re.MULTILINE))
        notes = (
            f"{kept} rules kept so far: propose rules the users' corrections point at.\n"
            f"{refused} rules refused: do not propose them again, nor generic advice."
        )
        return json.dumps({"notes": notes})

    def _judge(self, request: Request) -> str:
        text = request.prompt
        rubric = text.split("\n", 1)[0].lower()
        answer = text.split("Answer:", 1)[-1].lower()
        words = set(re.findall(r"[a-z]{5,}", rubric))
        hit = sum(1 for w in words if w in answer)
        score = round(hit / len(words), 2) if words else 0.5
        return json.dumps(
            {"score": score, "reason": f"{hit} of {len(words)} rubric terms addressed"}
        )


def _cases(section: str) -> list[tuple[int, str]]:
    """(number, text) of every ``### Case N`` of the reflection prompt's CASES section."""
    parts = re.split(r"^### Case (\d+)\b.*$", section, flags=re.MULTILINE)
    return [(int(parts[i]), parts[i + 1]) for i in range(1, len(parts) - 1, 2)]


def _section(text: str, title: str) -> str:
    """The body of a ``## TITLE`` section of the reflection prompt."""
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.DOTALL | re.MULTILINE)
    return m.group(1) if m else ""
