"""Did an adopted rule help? Its corrections before and after adoption, with an exact test.

For one rule and the project's harvested tasks: the requests of the kind the rule acts on (the
gate's notion of kind, decided from the requests alone, never from whether the user corrected
them), and how many of them the user corrected the same way (the same preference, or the same
checks), before the rule was adopted and after. The tasks the rule was made from are left out of
"before": they were picked because they were corrected, and would make any rule look good.

Verdicts, each from a test whose error rate is at most ``ALPHA``:

- *working*: the correction rate fell (a one-sided exact test of the two rates);
- *ignored*: the rate did not fall several-fold (more corrections after adoption than a rate of
  a ``FOLD``-th of the old one explains): the agent does not follow the rule;
- *contradicted*: since adoption the user corrects in the opposite direction more often than the
  same way (at least ``CONTRADICTED`` times);
- *no data yet*: too few requests of its kind since adoption; ``needed`` says how many more.

A correction is a sure correction turn of a harvested request, or, for a request added by hand
(``tasks add``, no turns), its outcome ``failure`` with the user's feedback.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

from ..evidence.exact import Stratum, stratified_p
from ..evidence.kinds import SIMILAR, request_words
from ..harvest.preferences import corrections
from ..models import TaskRecord
from .ledger import AdoptedRule

Verdict = Literal["working", "ignored", "contradicted", "no data yet", "re-test pending"]
ALPHA = 0.05
FOLD = 3.0  # a rule that works cuts its correction rate at least this many times
CONTRADICTED = 2  # opposite corrections since adoption before a rule counts as contradicted
MAX_NEEDED = 500
# Tags the harvest sets from what happened on a request (corrected, ...): they follow the outcome,
# so they never make two requests one kind.
STATE_TAGS = frozenset(
    {"corrected", "unsure-request", "unsure-turn", "tool-error", "interrupted", "slash-command"}
)
_NEGATION = re.compile(
    r"\b(?:no|not|never|don'?t|do not|stop|without|avoid|nicht|kein|nie|ne|pas|jamais)\b",
    re.IGNORECASE,
)
_CHECK = re.compile(r"^(not_contains|contains) (.*)$")


@dataclass(frozen=True)
class Tally:
    """Requests of the rule's kind in a period, and how the user corrected them."""

    requests: int = 0
    corrected: int = 0
    opposite: int = 0

    @property
    def rate(self) -> float | None:
        return None if not self.requests else self.corrected / self.requests


@dataclass(frozen=True)
class RuleOutcome:
    """A rule's verdict with the counts and tests behind it."""

    verdict: Verdict
    before: Tally
    after: Tally
    p_fell: float | None = None
    p_recurs: float | None = None
    needed: int = 0
    weekly: list[tuple[str, int, int]] = field(
        default_factory=list
    )  # (week start, requests, corrected)
    kind: str = "of its kind"  # the requests it acts on, in words ("about tests")

    def sentence(self) -> str:
        b, a = self.before, self.after
        counts = (
            f"corrected {b.corrected} of {b.requests} requests of its kind before, "
            f"{a.corrected} of {a.requests} since"
        )
        if self.verdict == "working":
            return f"working: {counts} (p={self.p_fell:.3g})"
        if self.verdict == "ignored":
            return f"ignored: {counts}; the agent does not follow it (p={self.p_recurs:.3g})"
        if self.verdict == "contradicted":
            return f"contradicted: since adoption you corrected the opposite way {a.opposite} times"
        if self.verdict == "re-test pending":
            return f"re-test pending under the model you now use; {counts}"

        if not b.corrected:
            return f"no data yet: {self._uncorrected()}"
        if not self.needed:
            return f"no data yet: {counts}"
        more = f"{self.needed} more request{'' if self.needed == 1 else 's'} {self.kind}"
        return f"no data yet: {more} needed; {counts}"

    def _uncorrected(self) -> str:
        """Why there is no rate to compare when no request before adoption was corrected this
        way: there was none, one, or several."""
        b, a = self.before, self.after
        if not b.requests and not a.requests:
            return "no other request of its kind yet"
        if not b.requests:
            before = "no other request of its kind came before adoption"
        elif b.requests == 1:
            before = "the 1 other request of its kind before adoption was not corrected this way"
        else:
            before = (
                f"none of the {b.requests} other requests of its kind before adoption was "
                "corrected this way"
            )
        return f"{before}, so there is no rate to compare; {a.requests} since"


def acts_on(rule: AdoptedRule, task: TaskRecord) -> bool:
    """Whether ``task`` is a request of the kind ``rule`` acts on: one it was made for, a shared
    tag, or a request close in words to one it was made for (as the gate's kinds decide)."""
    if task.id in rule.task_ids or set(rule.tags) & set(task.tags) - STATE_TAGS:
        return True
    words = request_words(task.intent)
    for exemplar in rule.exemplars:
        other = request_words(exemplar)
        if words and other and len(words & other) / len(words | other) >= SIMILAR:
            return True
    return False


def _inverse(check: str) -> str | None:
    m = _CHECK.match(check)
    if m is None:
        return None
    return f"{'contains' if m.group(1) == 'not_contains' else 'not_contains'} {m.group(2)}"


def _relevant(rule: AdoptedRule, text: str) -> bool:
    words = request_words(rule.text)
    return bool(words) and len(words & request_words(text)) / len(words) >= 0.5


def kind_words(rule: AdoptedRule) -> str:
    """The requests ``rule`` acts on, in words: ``about tests`` from its tags, else ``of its kind``."""
    tags = [t for t in rule.tags if t not in STATE_TAGS]
    return f"about {', '.join(tags)}" if tags else "of its kind"


def correction_ways(rule: AdoptedRule, task: TaskRecord) -> tuple[bool, bool]:
    """(the user corrected ``task`` the way the rule asks, the user corrected it the opposite way)."""
    same = opposite = False
    inverses = {inv for c in rule.checks if (inv := _inverse(c)) is not None}
    rule_negated = bool(_NEGATION.search(rule.text))
    for s in corrections(task):
        flipped = bool(_NEGATION.search(s.statement)) != rule_negated
        relevant = _relevant(rule, s.statement)
        inverse = _shared(s.checks, inverses)
        alike = s.key in rule.preference_keys or _shared(s.checks, rule.checks)
        if inverse and (flipped or not alike):
            opposite = True
        elif alike or (not rule.preference_keys and not rule.checks and relevant):
            same = True
        elif flipped and relevant:
            opposite = True
        elif not s.checks and relevant:  # words no check was read from, close to the rule's
            same = True
    return same, opposite


def _shared(checks: Sequence[str], others: Iterable[str]) -> bool:
    """Whether a check of ``checks`` asks what one of ``others`` asks: the same check, or the
    same kind (``contains`` / ``not_contains``) of text one holds whole words of the other's
    (``contains 'logging'`` and ``contains 'logging module'``)."""
    wanted = list(others)
    for check in checks:
        if check in wanted:
            return True
        m = _CHECK.match(check)
        if m is None:
            continue
        for other in wanted:
            n = _CHECK.match(other)
            if n is not None and n.group(1) == m.group(1) and _words_within(m.group(2), n.group(2)):
                return True
    return False


def _words_within(one: str, other: str) -> bool:
    """Whether the shorter of two quoted texts is whole words of the longer (case aside)."""
    a, b = sorted((one.strip("'\"").lower(), other.strip("'\"").lower()), key=len)
    return bool(a.strip()) and re.search(rf"(?<!\w){re.escape(a)}(?!\w)", b) is not None


def tally(rule: AdoptedRule, tasks: Sequence[TaskRecord]) -> tuple[Tally, Tally, list[TaskRecord]]:
    """(before, after, the requests of its kind after adoption)."""
    counts = {"before": [0, 0, 0], "after": [0, 0, 0]}
    after_tasks = []
    made_from = set(rule.cited)
    for task in tasks:
        if not acts_on(rule, task):
            continue
        side = "after" if task.created_at >= rule.adopted_at else "before"
        if side == "before" and task.id in made_from:
            continue
        same, opposite = correction_ways(rule, task)
        c = counts[side]
        c[0] += 1
        c[1] += same
        c[2] += opposite
        if side == "after":
            after_tasks.append(task)
    return Tally(*counts["before"]), Tally(*counts["after"]), after_tasks


def binom_sf(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    if k <= 0:
        return 1.0
    return min(1.0, sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1)))


def _p_fell(before: Tally, after: Tally) -> float:
    return stratified_p(
        [Stratum(before.corrected, before.requests, after.corrected, after.requests)], "less"
    )


def needed_requests(before: Tally) -> int:
    """Requests of the kind after adoption a verdict needs: enough that none corrected would show
    a fall, and that corrections at the old rate would show the rule ignored."""
    rate = before.rate or 0.0
    fall = next(
        (m for m in range(1, MAX_NEEDED) if _p_fell(before, Tally(m, 0)) <= ALPHA), MAX_NEEDED
    )
    recur = next(
        (
            m
            for m in range(1, MAX_NEEDED)
            if binom_sf(math.floor(m * rate), m, rate / FOLD) <= ALPHA
        ),
        MAX_NEEDED,
    )
    return max(fall, recur)


def weekly(rule: AdoptedRule, tasks: Sequence[TaskRecord]) -> list[tuple[str, int, int]]:
    """(Monday of the week, requests of its kind, corrected the same way), week by week."""
    weeks: dict[str, list[int]] = {}
    for task in tasks:
        if not acts_on(rule, task):
            continue
        day = task.created_at.date()
        start = (day - timedelta(days=day.weekday())).isoformat()
        same, _ = correction_ways(rule, task)
        w = weeks.setdefault(start, [0, 0])
        w[0] += 1
        w[1] += same
    return [(k, v[0], v[1]) for k, v in sorted(weeks.items())]


def assess(rule: AdoptedRule, tasks: Sequence[TaskRecord]) -> RuleOutcome:
    """The rule's verdict from the project's tasks (see the module docstring)."""
    before, after, _ = tally(rule, tasks)
    week = weekly(rule, tasks)
    if after.opposite >= CONTRADICTED and after.opposite >= after.corrected:
        return RuleOutcome("contradicted", before, after, weekly=week)
    if not before.corrected:
        return RuleOutcome("no data yet", before, after, needed=0, weekly=week)
    p_fell = _p_fell(before, after) if after.requests else None
    rate = before.rate or 0.0
    p_recurs = binom_sf(after.corrected, after.requests, rate / FOLD) if after.requests else None
    if (
        p_fell is not None and p_fell <= ALPHA and not after.opposite
    ):  # one opposite correction: wait
        verdict: Verdict = "re-test pending" if rule.retest_model else "working"
        return RuleOutcome(verdict, before, after, p_fell, p_recurs, weekly=week)
    if p_recurs is not None and p_recurs <= ALPHA:
        return RuleOutcome("ignored", before, after, p_fell, p_recurs, weekly=week)
    needed = max(0, needed_requests(before) - after.requests) or 1
    return RuleOutcome(
        "no data yet",
        before,
        after,
        p_fell,
        p_recurs,
        needed=needed,
        weekly=week,
        kind=kind_words(rule),
    )


def since(rule: AdoptedRule, now: datetime) -> str:
    days = (now - rule.adopted_at).days
    return "today" if days <= 0 else f"{days} day{'s' if days != 1 else ''} ago"
