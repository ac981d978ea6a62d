"""What was refused stays refused, however the optimizer words it again.

An edit the user rejected, or one the gate refused conclusively (harmful, worse, no effect), is
shown to the optimizer as "already tried"; that is a request, not a rail. So every new edit is
compared with them before a rollout is spent on it, on its *meaning key*: the folded text's
words, lower case, crudely stemmed, without filler words and in any order ("Run bare pytest
for the full output" is "For the full output, run pytest bare"). Two rules are the same when
their keys are equal or overlap by :data:`SAME` (Jaccard), negations included ("never" and
"always" stay in the key, so a rule and its opposite differ).

Only new evidence of a different kind reopens one: an edit citing a task of a kind none of the
refused edit's cited tasks is of (:func:`.evidence.kinds.same_kind`), and that the rule speaks
to (a quarter of its words in the task's request or feedback: a loose citation reopens
nothing). When the refused edit's tasks are no longer known, nothing reopens it.

A refusal that depended on the circumstances of its night (over the edit budget, a duplicate, a
file the project lacked, a URL or a language the user had not used yet) refuses nothing later.

An edit refused as one said again is recorded too (its words may differ), with the first
refusal's reason, never the chain of nights that repeated it (:func:`refused_before`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..evidence.kinds import relevance, same_kind
from ..models import Edit, TaskRecord
from .text import fold

# The guards' reasons that depend on the night's files, budget, URLs and languages, not on the rule.
_CIRCUMSTANTIAL = (
    "over tonight's edit budget",
    "duplicate:",
    "this project has no",
    "no learned rule",
    "is not one of this project's files",
    "SKILL.md has no valid",
    "points to a URL",
    "written in a language",
    "needs the rule it changes",
)
SAME = 0.75
RELEVANT = 0.25
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_FILLER_WORDS = (
    "a an the to of in on for with by as at is are be it its this that these those your you please "
    "and or so then also just any all every each when while should must do does"
)
_FILLER = frozenset(_FILLER_WORDS.split())
_SUFFIX = re.compile(r"(?:ies|es|s|ing|ed|ly|er)$")


def _stem(word: str) -> str:
    if len(word) <= 4:
        return word
    stem = _SUFFIX.sub("", word)
    if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "aeiou":
        stem = stem[:-1]  # "debugging" -> "debugg" -> "debug"
    return stem


def meaning_key(text: str) -> frozenset[str]:
    """The words of a rule that carry its meaning, in no order."""
    words = (w.lower() for w in _WORD.findall(fold(text)))
    return frozenset(_stem(w) for w in words if w not in _FILLER)


def same_rule(a: str, b: str) -> bool:
    """Whether two rule texts say the same thing in other words (see the module docstring)."""
    ka, kb = meaning_key(a), meaning_key(b)
    if not ka or not kb:
        return a.strip().lower() == b.strip().lower()
    return ka == kb or len(ka & kb) / len(ka | kb) >= SAME


_BEFORE = "refused before, in other words ("
_REOPENS = "); only evidence from a new kind of task reopens it"


def refused_before(old: Edit) -> str:
    """Why an edit is refused as ``old`` said again: ``old``'s own text and its first reason.

    ``old`` may itself have been refused as an earlier edit said again: its reason then names
    that first one, and is unwrapped, so the wording stays one level deep however many nights
    say the rule again."""
    return f"{_BEFORE}{old.content!r}: {first_reason(old.reason) or 'rejected'}{_REOPENS}"


def first_reason(reason: str) -> str:
    """The reason under any number of "refused before, in other words (...)" wrappings."""
    while reason.startswith(_BEFORE) and reason.endswith(_REOPENS):
        inner = _after_text(reason[len(_BEFORE) : -len(_REOPENS)])
        if inner is None:
            break
        reason = inner
    return reason


def _after_text(wrapped: str) -> str | None:
    """What follows the quoted rule text at the start of ``wrapped`` (``'text': reason``)."""
    for sep in re.finditer(": ", wrapped):
        try:
            text = ast.literal_eval(wrapped[: sep.start()])
        except (ValueError, SyntaxError):
            continue
        if isinstance(text, str):
            return wrapped[sep.end() :]
    return None


@dataclass(frozen=True)
class RefusedEdits:
    """The edits refused before, and the tasks known tonight (to tell a new kind of evidence)."""

    edits: Sequence[Edit] = ()
    tasks: Mapping[str, TaskRecord] = field(default_factory=dict)

    def refusal(self, edit: Edit) -> Edit | None:
        """The refused edit that ``edit`` says again, unless new evidence of another kind reopens it."""
        for old in self.edits:
            if old.reason.startswith(_CIRCUMSTANTIAL) or " bytes, over its cap of " in old.reason:
                continue
            if (
                old.content
                and same_rule(edit.content, old.content)
                and not self._reopened(edit, old)
            ):
                return old
        return None

    def _reopened(self, edit: Edit, old: Edit) -> bool:
        before = [self.tasks[i] for i in old.cites if i in self.tasks]
        if not before:
            return False
        new = [self.tasks[i] for i in edit.cites if i in self.tasks and i not in old.cites]
        return any(
            relevance(edit.content, t) >= RELEVANT and not any(same_kind(b, t) for b in before)
            for t in new
        )
