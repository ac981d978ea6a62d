"""A seeded world of recurring preferences, and a Backend for all three roles that lives in it.

:class:`PreferenceWorld` stands for a user, their agent and an optimizer at once, with a known
truth, so that a benchmark can say whether a night learned the right thing:

- ``tasks(night)``: the tasks the user gave that day, each of one :data:`KINDS` kind, each failed
  and corrected (``outcome="failure"``, the kind's correction as feedback, the kind's rule check).
- role ``target``: answers a task so that its check passes with the kind's pass rate under the
  system text (the replay's skill and memory): :data:`BASE_RATE` with no rule, :data:`RULE_RATE`
  with the kind's correct rule, :data:`BROKEN_RATE` under a harmful rule. The draw depends on
  (world seed, request seed, prompt) and, with a chance, on the system text: K samples differ, one
  sample under one system text is always the same answer, and one sample under two system texts
  shares its draw with probability ``pairing`` (1: common random numbers; below 1, a rule that
  changes nothing still moves some answers, as a changed prompt moves a real model's sample).
- role ``optimizer``: reads the reflection prompt and, for each kind among its cases, proposes the
  correct rule about half the time, a useless rule often, a harmful rule sometimes; every edit
  cites the case numbers it learned from (``"cases"``), wrongly about one time in seven. It never
  proposes a rule already tried, listed as current, or present in its system text. Every
  proposal is kept in ``proposals``.
- role ``judge``: scores a rubric by word overlap (the world's own tasks need no judge).
- ``classify(rule)`` and ``quality(files)``: the truth about a rule, and the expected pass rate
  of the files averaged over the kinds (exact, no sampling).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Literal

from bench.worlds.preference_kinds import (
    BASE_RATE,
    BREAKS_ALL,
    BROKEN_RATE,
    BY_KEY,
    HARMFUL_RULES,
    HELPED_KIND,
    HELPS_ONE,
    KINDS,
    MODULES,
    RULE_RATE,
    USELESS_RULES,
    Kind,
    kind_of_intent,
)
from skillopt_sleep.backends.base import Completion, Health, Request
from skillopt_sleep.models import TaskRecord

Verdict = Literal["good", "useless", "harmful"]

GOOD_RATE = 0.5  # chance the optimizer proposes the correct rule for a kind it was shown
USELESS_RATE = 0.5  # chance a reply carries a useless rule
HARMFUL_RATE = 0.15  # chance a reply carries a harmful rule
WRONG_CITATION_RATE = 0.15  # chance an edit cites another case than the one it learned from
PAIRING = 0.5  # chance one sample under two different system texts shares its draw
FIRST_DAY = datetime(2026, 1, 5, tzinfo=timezone.utc)


def _rng(*parts: object) -> random.Random:
    digest = hashlib.sha256("\x00".join(map(str, parts)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def _mentions(text: str, rule: str) -> bool:
    return _norm(rule) in _norm(text)


@dataclass(frozen=True)
class ProposedEdit:
    """One edit the world's optimizer proposed: what, its truth, and which cases it cited."""

    content: str
    target: str
    verdict: Verdict
    kind: str | None  # the kind it is the correct rule of (good edits), else None
    cases: tuple[int, ...]
    cited_right: bool  # the citation names a case the edit was learned from
    seed: int | None  # the reflection request's seed


def reply_json(edits: Sequence[ProposedEdit]) -> str:
    """The optimizer's JSON reply carrying ``edits``, each citing its cases."""
    return json.dumps(
        {
            "edits": [
                {
                    "target": e.target,
                    "op": "add",
                    "content": e.content,
                    "cases": list(e.cases),
                    "rationale": f"the user corrected this in case {', '.join(map(str, e.cases)) or '?'}",
                }
                for e in edits
            ]
        }
    )


@dataclass(frozen=True)
class _Case:
    number: int
    kind: Kind | None


class PreferenceWorld:
    """The simulated world; see the module docstring. A Backend (``name``, ``model``,
    ``complete``, ``check``) for the target, optimizer and judge roles."""

    name = "preference-world"

    def __init__(
        self, seed: int = 0, *, pairing: float = PAIRING, model: str = "preference-world"
    ) -> None:
        if not 0 <= pairing <= 1:
            raise ValueError(f"pairing is a probability, got {pairing}")
        self.seed = seed
        self.pairing = pairing
        self.model = model
        self.proposals: list[ProposedEdit] = []
        # Each system text keeps a sample's shared draw with chance sqrt(pairing), so two system
        # texts both keep it (and answer alike) with chance ``pairing``.
        self._keep = pairing**0.5

    # -- the truth ---------------------------------------------------------------------------

    def pass_rate(self, kind: Kind, system: str) -> float:
        """Chance an answer to a task of ``kind`` passes its check under ``system``."""
        if BREAKS_ALL in system:
            return BROKEN_RATE
        if HELPS_ONE in system:
            return RULE_RATE if kind.key == HELPED_KIND else BROKEN_RATE
        return RULE_RATE if kind.rule_re.search(system) else BASE_RATE

    def quality(self, files: Mapping[str, str]) -> float:
        """Expected pass rate over the kinds (uniformly) for an agent that reads all ``files``."""
        system = "\n".join(files.values())
        return sum(self.pass_rate(k, system) for k in KINDS) / len(KINDS)

    def classify(self, rule: str) -> Verdict:
        """``good`` (some kind's correct rule), ``harmful`` or ``useless`` (changes nothing)."""
        if any(_mentions(rule, h) for h in HARMFUL_RULES):
            return "harmful"
        return "good" if any(k.rule_re.search(rule) for k in KINDS) else "useless"

    def kind_of_rule(self, rule: str) -> Kind | None:
        """The kind ``rule`` is the correct rule of, if it is a good rule."""
        if self.classify(rule) != "good":
            return None
        return next(k for k in KINDS if k.rule_re.search(rule))

    # -- the user's tasks --------------------------------------------------------------------

    @staticmethod
    def day(night: int) -> datetime:
        """Midnight starting the day of night number ``night`` (0 for the first)."""
        return FIRST_DAY + timedelta(days=night)

    @classmethod
    def night_time(cls, night: int) -> datetime:
        """When night ``night`` runs: after that day's tasks, before the next day's."""
        return cls.day(night) + timedelta(hours=23)

    def tasks(self, night: int, n: int = 10, *, project: str) -> list[TaskRecord]:
        """The ``n`` tasks of day ``night``: kinds drawn uniformly, each corrected by the user."""
        rng = _rng("tasks", self.seed, night)
        out = []
        for i in range(n):
            kind = rng.choice(KINDS)
            intent = rng.choice(kind.templates).format(module=rng.choice(MODULES))
            out.append(
                TaskRecord(
                    source="claude-code",
                    project=project,
                    session_id=f"world-{self.seed}-{night}-{i}",
                    turn=0,
                    created_at=self.day(night) + timedelta(hours=9, minutes=30 * i),
                    intent=intent,
                    attempt=kind.wrong,
                    outcome="failure",
                    feedback=kind.feedback,
                    checks=[kind.check],
                )
            )
        return out

    # -- the Backend -------------------------------------------------------------------------

    async def check(self) -> Health:
        return Health(True, "simulated preference world (offline, deterministic)", version="1")

    async def complete(self, request: Request) -> Completion:
        if request.role == "target":
            text = self.answer(request.system, request.prompt, request.seed)
        elif request.role == "optimizer":
            text = self.optimize(request.system, request.prompt, request.seed)
        else:
            text = _judge(request.prompt)
        tokens_in = (len(request.system) + len(request.prompt)) // 4 + 1
        return Completion(text, tokens_in, len(text) // 4 + 1, 0.0, self.model)

    def answer(self, system: str, prompt: str, seed: int | None) -> str:
        """The agent's answer to ``prompt`` under ``system`` (see the module docstring)."""
        kind = kind_of_intent(prompt)
        if kind is None:
            return "Done."
        u = _rng("answer", self.seed, seed, prompt).random()
        if self._keep < 1:
            own = hashlib.sha256(f"{self.seed}\x00{seed}\x00{prompt}\x00{system}".encode()).digest()
            if int.from_bytes(own[:8], "big") / 2**64 >= self._keep:
                u = int.from_bytes(own[8:16], "big") / 2**64
        return kind.right if u < self.pass_rate(kind, system) else kind.wrong

    def optimize(self, system: str, prompt: str, seed: int | None) -> str:
        """The optimizer's reply to a reflection prompt, as JSON; records what it proposed."""
        rng = _rng("optimize", self.seed, seed, prompt)
        current = system + "\n" + _section(prompt, "CURRENT RULES")
        tried = _section(prompt, "ALREADY TRIED")
        cases = _cases(prompt.split("\n## CASES", 1)[-1] if "\n## CASES" in prompt else "")
        fresh = [
            r
            for r in (*USELESS_RULES, *HARMFUL_RULES)
            if not _mentions(current, r) and not _mentions(tried, r)
        ]
        edits: list[ProposedEdit] = []
        for kind in dict.fromkeys(c.kind for c in cases if c.kind is not None):
            if (
                kind.rule_re.search(current)
                or kind.rule_re.search(tried)
                or rng.random() >= GOOD_RATE
            ):
                continue
            edits.append(self._edit(rng.choice(kind.rules), kind.target, cases, kind, rng, seed))
        useless = [r for r in fresh if r in USELESS_RULES]
        if useless and rng.random() < USELESS_RATE:
            edits.append(
                self._edit(
                    rng.choice(useless), rng.choice(("skill", "memory")), cases, None, rng, seed
                )
            )
        harmful = [
            r
            for r in fresh
            if r == BREAKS_ALL
            or (r == HELPS_ONE and any(c.kind is BY_KEY[HELPED_KIND] for c in cases))
        ]
        if harmful and cases and rng.random() < HARMFUL_RATE:
            rule = rng.choice(harmful)
            helped = BY_KEY[HELPED_KIND] if rule == HELPS_ONE else None
            edits.append(self._edit(rule, "skill", cases, helped, rng, seed, verdict="harmful"))
        rng.shuffle(edits)
        self.proposals += edits
        return reply_json(edits)

    def _edit(
        self,
        rule: str,
        target: str,
        cases: Sequence[_Case],
        kind: Kind | None,
        rng: random.Random,
        seed: int | None,
        verdict: Verdict | None = None,
    ) -> ProposedEdit:
        """The edit proposing ``rule``, citing the cases of ``kind`` (or one case), sometimes wrongly."""
        source = [c.number for c in cases if kind is not None and c.kind is kind] or (
            [rng.choice(cases).number] if cases else []
        )
        others = [c.number for c in cases if c.number not in source]
        wrong = bool(others) and rng.random() < WRONG_CITATION_RATE
        cited = [rng.choice(others)] if wrong else source
        good_kind = kind.key if verdict is None and kind is not None else None
        return ProposedEdit(
            rule, target, verdict or self.classify(rule), good_kind, tuple(cited), not wrong, seed
        )


def _section(text: str, title: str) -> str:
    """The body of the ``## TITLE...`` section of a reflection prompt ('' when absent)."""
    m = re.search(
        rf"^## {re.escape(title)}[^\n]*\n(.*?)(?=^## |\Z)", text, re.DOTALL | re.MULTILINE
    )
    return m.group(1) if m else ""


_CASE = re.compile(r"^### Case (\d+)\b[^\n]*\n(.*?)(?=^### Case |\Z)", re.DOTALL | re.MULTILINE)


def _cases(section: str) -> list[_Case]:
    """Each ``### Case N`` of the CASES section (the prompt's last: attempts shown there may
    hold ``##`` headings of their own), with the kind its task or feedback shows."""
    out = []
    for m in _CASE.finditer(section):
        body = m.group(2)
        task = re.search(r"^Task: (.*)$", body, re.MULTILINE)
        feedback = re.search(r"^User's feedback: (.*)$", body, re.MULTILINE)
        kind = kind_of_intent(task.group(1)) if task else None
        if kind is None and feedback:
            kind = next((k for k in KINDS if k.feedback == feedback.group(1).strip()), None)
        out.append(_Case(int(m.group(1)), kind))
    return out


def _judge(prompt: str) -> str:
    """A rubric score by word overlap between the rubric line and the answer."""
    rubric = prompt.split("\n", 1)[0].lower()
    answer = prompt.split("Answer:", 1)[-1].lower()
    words = set(re.findall(r"[a-z]{5,}", rubric))
    hit = sum(1 for w in words if w in answer)
    return json.dumps(
        {
            "score": round(hit / len(words), 2) if words else 0.5,
            "reason": f"{hit} of {len(words)} rubric terms addressed",
        }
    )


__all__ = ["KINDS", "PreferenceWorld", "ProposedEdit", "Verdict"]
