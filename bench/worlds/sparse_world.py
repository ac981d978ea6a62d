"""The sparse regime: a user whose day holds a preference once or twice, not ten times.

:class:`SparseWorld` keeps the user, the agent and the kinds of
:class:`~worlds.preference_world.PreferenceWorld` (eight recurring preferences, a rule that lifts
its own kind from :data:`BASE_RATE` to :data:`RULE_RATE` and does nothing elsewhere) and changes
what a night has to learn from:

- a night works on its own day's tasks only (the benchmark runs it with ``recall = 0``): ten tasks
  whose kinds are drawn at random, so a kind shows up on one or two of them, sometimes on none;
- the optimizer's reply mixes, for each kind among its cases, the kind's correct rule
  (:data:`GOOD_RATE`), a *vague* rule about the kind that names its subject and changes nothing
  (:data:`VAGUE_RATE`: it lands on the kind's tasks, where a generic useless rule would not, so
  it competes for the same evidence as the good one), and, a reply in :data:`HARMFUL_RATE`, a
  harmful rule; every edit cites the cases it was learned from, another case one time in
  :data:`WRONG_CITATION_RATE`.

A vague rule is ``useless`` to :meth:`classify` (it changes no pass rate), so every count of the
learning benchmark reads it as such.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bench.worlds.preference_kinds import (
    BREAKS_ALL,
    BY_KEY,
    HARMFUL_RULES,
    HELPED_KIND,
    HELPS_ONE,
    KINDS,
    Kind,
)
from bench.worlds.preference_world import (
    PreferenceWorld,
    ProposedEdit,
    _Case,
    _cases,
    _mentions,
    _rng,
    _section,
    reply_json,
)

GOOD_RATE = 0.5  # chance a reply carries the correct rule of a kind among its cases
VAGUE_RATE = 0.4  # ... and a vague rule about that kind
HARMFUL_RATE = 0.15  # chance a reply carries a harmful rule
WRONG_CITATION_RATE = 0.15  # chance an edit cites another case than the one it learned from

# Rules that name a kind's subject and change nothing: the words a reply uses when it has seen
# the correction but not what it asks for.
VAGUE: dict[str, tuple[str, ...]] = {
    "readme-title": ("Take care over the README: it is the first thing people read.",),
    "pytest-quiet": ("Run the tests whenever the code changes, and report what they say.",),
    "logging": ("Make debug output useful when someone is debugging a module.",),
    "conventional-commits": ("Write a commit message that explains the change.",),
    "type-hints": ("Keep function signatures tidy and easy to follow.",),
    "brevity": ("Make every summary easy to read for the team.",),
    "changelog": ("Keep the changelog up to date with each change.",),
    "iso-dates": ("Write every date in the docs clearly and consistently.",),
}
VAGUE_RULES: tuple[str, ...] = tuple(r for rules in VAGUE.values() for r in rules)


class SparseWorld(PreferenceWorld):
    """:class:`PreferenceWorld` with the sparse regime's optimizer (see the module docstring)."""

    name = "sparse-world"

    def optimize(self, system: str, prompt: str, seed: int | None) -> str:
        """The optimizer's reply to a reflection prompt, as JSON; records what it proposed."""
        rng = _rng("sparse-optimize", self.seed, seed, prompt)
        current = system + "\n" + _section(prompt, "CURRENT RULES")
        tried = _section(prompt, "ALREADY TRIED")
        cases = _cases(prompt.split("\n## CASES", 1)[-1] if "\n## CASES" in prompt else "")

        def fresh(rule: str) -> bool:
            return not _mentions(current, rule) and not _mentions(tried, rule)

        edits: list[ProposedEdit] = []
        for kind in dict.fromkeys(c.kind for c in cases if c.kind is not None):
            known = kind.rule_re.search(current) or kind.rule_re.search(tried)
            if not known and rng.random() < GOOD_RATE:
                rule = rng.choice(kind.rules)
                edits.append(self._cite(rule, kind.target, cases, kind, rng, seed, "good"))
            vague = [r for r in VAGUE.get(kind.key, ()) if fresh(r)]
            if vague and rng.random() < VAGUE_RATE:
                rule = rng.choice(vague)
                edits.append(self._cite(rule, kind.target, cases, kind, rng, seed, "useless"))
        harmful = [
            r
            for r in HARMFUL_RULES
            if fresh(r)
            and (
                r == BREAKS_ALL
                or (r == HELPS_ONE and any(c.kind is BY_KEY[HELPED_KIND] for c in cases))
            )
        ]
        if harmful and cases and rng.random() < HARMFUL_RATE:
            rule = rng.choice(harmful)
            helped = BY_KEY[HELPED_KIND] if rule == HELPS_ONE else None
            edits.append(self._cite(rule, "skill", cases, helped, rng, seed, "harmful"))
        rng.shuffle(edits)
        self.proposals += edits
        return reply_json(edits)

    def _cite(
        self,
        rule: str,
        target: str,
        cases: Sequence[_Case],
        kind: Kind | None,
        rng: random.Random,
        seed: int | None,
        verdict: str,
    ) -> ProposedEdit:
        """The edit proposing ``rule``, citing the cases of ``kind`` (or one case), sometimes wrongly."""
        source = [c.number for c in cases if kind is not None and c.kind is kind] or (
            [rng.choice(cases).number] if cases else []
        )
        others = [c.number for c in cases if c.number not in source]
        wrong = bool(others) and rng.random() < WRONG_CITATION_RATE
        cited = [rng.choice(others)] if wrong else source
        good_kind = kind.key if verdict == "good" and kind is not None else None
        truth = self.classify(rule)
        return ProposedEdit(rule, target, truth, good_kind, tuple(cited), not wrong, seed)


__all__ = ["KINDS", "VAGUE_RULES", "SparseWorld"]
