"""Applying accepted edits to the skill, in one of two modes.

- ``rules``: the night's own guarded edit (:func:`~skillopt_sleep.rules.guards.apply_edits`):
  learned rules live in the managed block of the skill, every other byte stays the user's.
- ``document``: the skill is one document the optimizer may change anywhere: insert a line
  (after a given line, or at the end), replace a line, delete a line. Every new line passes the
  same rule lint as a night's, the frontmatter is kept byte for byte, and the size cap holds.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..models import Edit
from ..redact import redact
from ..rules.guards import EditOutcome, GuardLimits, apply_edits
from ..rules.lint import lint_rule
from ..rules.managed_block import frontmatter, mentions_rule, same_rule
from .config import Mode

SKILL = "SKILL.md"
HEAD = "---\nname: trained\ndescription: a trained text\n---\n"


def apply_mode(
    mode: Mode, skill: str, edits: Sequence[Edit], *, budget: int, limits: GuardLimits
) -> EditOutcome:
    """``skill`` with ``edits`` applied in ``mode`` (every edit targets the skill in a training run)."""
    edits = [e.model_copy(update={"target": "skill"}) for e in edits]
    if mode == "rules":
        if frontmatter(skill) is not None:
            return apply_edits({SKILL: skill}, edits, budget=budget, limits=limits)
        # A skill without frontmatter (a system prompt): its rules block is kept the same way,
        # under a frontmatter that exists only while the edits are applied.
        done = apply_edits({SKILL: HEAD + skill}, edits, budget=budget, limits=limits)
        return EditOutcome(
            {SKILL: done.files[SKILL].removeprefix(HEAD)}, done.applied, done.rejected
        )
    return apply_document(skill, edits, budget=budget, limits=limits)


def apply_document(
    skill: str, edits: Sequence[Edit], *, budget: int, limits: GuardLimits
) -> EditOutcome:
    text = skill
    applied: list[Edit] = []
    rejected: list[Edit] = []
    for edit in edits:
        new, reason = _one(text, edit, limits)
        if reason is None and len(applied) >= budget:
            reason = f"over this step's edit budget of {budget}"
        if reason is not None:
            rejected.append(
                edit.model_copy(
                    update={"status": "rejected", "reason": reason, "content": redact(edit.content)}
                )
            )
            continue
        text = new
        applied.append(edit.model_copy(update={"status": "applied", "reason": ""}))
    return EditOutcome({SKILL: text}, applied, rejected)


def _one(text: str, edit: Edit, limits: GuardLimits) -> tuple[str, str | None]:
    """(the new text, None) or (the old text, why the edit is refused)."""
    content = edit.content.strip()
    if edit.op != "remove":
        reason = lint_rule(
            content.lstrip("-* ").strip(),
            known_urls=limits.known_urls,
            max_chars=limits.max_rule_chars,
        )
        if reason:
            return text, reason
        if mentions_rule(text, content):
            return text, "duplicate: the skill already says this"
    head = frontmatter(text) or ""
    lines = text[len(head) :].splitlines()
    old = (edit.old or (content if edit.op == "remove" else "")).strip()
    where = [i for i, ln in enumerate(lines) if old and same_rule(ln, old)]
    if edit.op != "add" or old:
        if not old:
            return text, f"{edit.op} needs the line it changes (old)"
        if len(where) != 1:
            return (
                text,
                f"the line {old!r} is {'not in' if not where else 'more than once in'} the skill",
            )
    line = (
        content
        if content[:1] in ("#", "-", "*") or content[:2].rstrip(".").isdigit()
        else f"- {content}"
    )
    if edit.op == "add":
        at = where[0] + 1 if where else len(lines)
        lines[at:at] = [line]
    elif edit.op == "replace":
        lines[where[0]] = line
    else:
        del lines[where[0]]
    new = head + "\n".join(lines) + ("\n" if lines else "")
    cap = limits.max_bytes.get(SKILL)
    if cap is not None and len(new.encode()) > max(cap, len(text.encode())):
        return text, f"the skill would be {len(new.encode()):,} bytes, over its cap of {cap:,}"
    return new, None
