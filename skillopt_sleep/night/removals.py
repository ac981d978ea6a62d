"""A rule the user now corrects the other way is proposed for removal, in the night's proposal.

The removal is an ordinary edit of the staged candidate (the rule's line leaves the managed
block, every other byte stays), shown in the diff and the report, adopted or rejected with the
rest. Nothing live changes here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..models import Edit
from ..review.rule_views import RuleView
from ..rules.managed_block import BlockError, replace_rule
from .recorder import NightResult

REASON = "contradicted: since it was adopted you corrected the other way"


def propose_removals(result: NightResult, contradicted: Sequence[RuleView]) -> NightResult:
    """``result`` whose candidate also drops each contradicted rule still in place."""
    if not contradicted or result.summary.decision in ("outage", "budget_exhausted"):
        return result
    names = {str(path): name for name, path in result.workspace.paths.items()}
    candidate = dict(result.candidate or result.workspace.texts)
    removed = []
    for view in contradicted:
        hit = False
        for live in view.rule.files:
            name = names.get(live)
            if name is None:
                continue
            try:
                new = replace_rule(candidate.get(name, ""), view.rule.text, None)
            except BlockError:
                new = None
            if new is not None:
                candidate[name], hit = new, True
        if hit:
            removed.append(
                Edit(
                    target="skill" if view.rule.target == "skill" else "memory",
                    op="remove",
                    content=view.rule.text,
                    old=view.rule.text,
                    status="applied",
                    reason=REASON,
                    rationale=view.outcome.sentence(),
                )
            )
    if not removed:
        return result
    s = result.summary
    note = f"proposes removing {len(removed)} contradicted rule(s)"
    reason = (
        f"{s.reason}; {note}" if s.decision == "accept" else f"{note} (tonight's edits: {s.reason})"
    )
    summary = s.model_copy(
        update={"edits": [*s.edits, *removed], "decision": "accept", "reason": reason}
    )
    return dataclasses.replace(result, summary=summary, candidate=candidate)
