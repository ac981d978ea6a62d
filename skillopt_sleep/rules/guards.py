"""Guarded edits: what the optimizer proposes is applied only inside these rails.

- at most ``budget`` edits a night (:func:`edit_budget` follows the configured schedule);
- memory edits only inside the managed block, every byte outside it identical;
- learned skill rules only in the "## Learned rules" block of ``SKILL.md``, whose frontmatter
  stays valid and unchanged;
- size caps per file (AGENTS.md is cut at 32 KiB by Codex);
- one instruction per rule: an edit whose rule holds several is refused here, so that no clause
  reaches a file without having earned its place alone; producers split their edits first with
  :func:`atomic_edits` (the optimizer's reply is split in :func:`.reflect.parse_edits`, and a
  slower update or a trained skill calls the same function), and every edit of every producer
  passes through :func:`apply_edits`, the one gate to a staged file;
- a lint for secrets, dangerous instructions, unknown URLs, empty, overlong and multi-line rules;
- no duplicate of a rule the file already states;
- no rule refused before (rejected by the user, or conclusively by the gate), however it is
  worded again (:mod:`.refused`), unless evidence of a new kind of task reopens it;
- a "memory" edit is written once into every memory file the project has, or into the files
  its placement chose (:mod:`.placement`), so each agent in use reads it once.

Every edit comes back either ``applied`` or ``rejected`` with a human reason.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..models import Edit
from ..redact import redact
from ..settings import NightSettings
from .clauses import atomic_edits, clauses
from .fit import contradicted_by, over_rule_budget, repeated_in
from .lint import MAX_RULE_CHARS, lint_rule
from .managed_block import (
    BEGIN,
    END,
    SKILL_HEADING,
    BlockError,
    add_rule,
    block_lines,
    find_block,
    frontmatter,
    mentions_rule,
    new_skill,
    replace_rule,
    same_rule,
)
from .refused import RefusedEdits, refused_before

__all__ = [
    "BEGIN",
    "END",
    "MEMORY_FILES",
    "SKILL_FILE",
    "EditOutcome",
    "GuardLimits",
    "apply_edits",
    "atomic_edits",
    "edit_budget",
    "managed_rules",
]

SKILL_FILE = "SKILL.md"
MEMORY_FILES = ("CLAUDE.md", "AGENTS.md")


@dataclass(frozen=True)
class GuardLimits:
    """Size caps in bytes per file name, the URLs (or hosts) and languages the user used."""

    max_bytes: Mapping[str, int] = field(default_factory=dict)
    known_urls: frozenset[str] = frozenset()
    max_rule_chars: int = MAX_RULE_CHARS
    max_rules: int = 30  # learned rules per file ([files] max_rules)
    languages: frozenset[str] = frozenset({"en"})
    refused: RefusedEdits = field(default_factory=RefusedEdits)
    # the files a memory edit is written into when a placement chose them (None: every memory
    # file the project has); an edit naming another memory file goes there too
    memory: tuple[str, ...] | None = None


@dataclass(frozen=True)
class EditOutcome:
    """The files after the applied edits, and every edit with its status."""

    files: dict[str, str]
    applied: list[Edit]
    rejected: list[Edit]


class _Refused(Exception):
    """One edit is refused; its message is the reason shown to the user."""


def edit_budget(settings: NightSettings, night_index: int) -> int:
    """Edits allowed on a project's night number ``night_index`` (0 for its first night).

    ``constant`` keeps ``edit_budget``; ``linear`` and ``cosine`` decay from ``edit_budget`` to
    ``edit_budget_min`` over ``schedule_horizon`` nights and stay there, like a textual
    learning rate: bold changes while little is known, small ones once the files have settled.
    """
    high = settings.edit_budget
    low = min(settings.edit_budget_min, high)
    if settings.edit_schedule == "constant":
        return high
    t = min(max(night_index, 0), settings.schedule_horizon) / settings.schedule_horizon
    if settings.edit_schedule == "linear":
        value = high - (high - low) * t
    else:
        value = low + (high - low) * (1 + math.cos(math.pi * t)) / 2
    return math.floor(value + 0.5)


def managed_rules(text: str) -> list[str]:
    """The rules currently inside the managed block of a file (memory file or SKILL.md)."""
    return block_lines(text)


def apply_edits(
    files: Mapping[str, str],
    edits: Sequence[Edit],
    *,
    budget: int,
    limits: GuardLimits,
) -> EditOutcome:
    """Apply, in order, every edit that passes the guards; refuse the rest with a reason.

    ``files`` maps "SKILL.md", "CLAUDE.md", "AGENTS.md" to their current text (only the files
    the project has or uses; an empty ``SKILL.md`` gets a minimal valid frontmatter).
    """
    out = dict(files)
    applied: list[Edit] = []
    rejected: list[Edit] = []
    for edit in edits:
        try:
            changed, done = _apply_one(out, edit, limits)
            if len(applied) >= budget:
                raise _Refused(f"over tonight's edit budget of {budget}")
        except _Refused as exc:
            rejected.append(_refused(edit, str(exc)))
            continue
        out.update(changed)
        applied.append(done)
    return EditOutcome(out, applied, rejected)


def _refused(edit: Edit, reason: str) -> Edit:
    """The edit marked rejected; a secret in it is redacted, since it goes to reports and logs."""
    return edit.model_copy(
        update={
            "status": "rejected",
            "reason": reason,
            "content": redact(edit.content),
            "old": None if edit.old is None else redact(edit.old),
            "rationale": redact(edit.rationale),
        }
    )


def _apply_one(
    files: Mapping[str, str], edit: Edit, limits: GuardLimits
) -> tuple[dict[str, str], Edit]:
    """The files this edit changes (new texts) and the edit as applied; :class:`_Refused` if not."""
    rule = _clean(edit.content)
    old = _clean(
        edit.old if edit.old is not None else (edit.content if edit.op == "remove" else "")
    )
    if edit.op != "remove":
        reason = lint_rule(
            rule,
            known_urls=limits.known_urls,
            max_chars=limits.max_rule_chars,
            languages=limits.languages,
        )
        if reason:
            raise _Refused(reason)
        if len(parts := clauses(rule)) > 1:
            raise _Refused(
                f"holds {len(parts)} instructions; each must be proposed and tested on its own"
            )
        before = limits.refused.refusal(edit)
        if before is not None:
            raise _Refused(refused_before(before))
    if edit.op != "add" and not old:
        raise _Refused(f"{edit.op} needs the rule it changes (old)")
    if edit.op == "replace" and same_rule(old, rule):
        raise _Refused("replaces a rule with itself")
    names = _targets(edit, files, limits.memory)
    elsewhere = [n for n in (SKILL_FILE, *MEMORY_FILES) if n in files and n not in names]
    if edit.op != "remove" and (has := [n for n in elsewhere if mentions_rule(files[n], rule)]):
        raise _Refused(f"duplicate: {', '.join(has)} already has this rule")
    changed: dict[str, str] = {}
    for name in names:
        new = _edit_file(name, files[name], edit.op, rule, old)
        if new is not None:
            changed[name] = new
    if not changed:
        where = ", ".join(names)
        if edit.op == "add":
            raise _Refused(f"duplicate: {where} already has this rule")
        raise _Refused(
            f"no learned rule {old!r} to {edit.op} in {where} (hand-written text is never changed)"
        )
    if edit.op != "remove":
        _check_fit(rule, old, names, files, limits)
    for name, new in changed.items():
        _check_size(name, files[name], new, limits)
    done = edit.model_copy(
        update={
            "status": "applied",
            "reason": "",
            "content": "" if edit.op == "remove" else rule,
            "old": old or None,
        }
    )
    return changed, done


def _check_fit(
    rule: str, old: str, names: list[str], files: Mapping[str, str], limits: GuardLimits
) -> None:
    """Refuse a rule that repeats a line already there, contradicts one the user wrote, or
    would push a file past its number of learned rules (see :mod:`.rule_fit`)."""
    found = contradicted_by(rule, files)
    if found is not None:
        raise _Refused(
            f"contradicts your line {found[1]!r} in {found[0]}: not proposed; change that line "
            "yourself if you changed your mind"
        )
    found = repeated_in(rule, files, ignore=old)
    if found is not None:
        raise _Refused(f"duplicate: {found[0]} already says this ({found[1]!r})")
    if not old and (full := over_rule_budget(names, files, limits.max_rules)):
        raise _Refused(
            f"{full} ([files] max_rules = {limits.max_rules}); remove one with "
            "`skillopt-sleep rules remove ID` or raise the limit"
        )


def _clean(rule: str) -> str:
    """The rule as one bullet's text: no surrounding space, no bullet of its own."""
    text = rule.strip()
    if text[:2] in ("- ", "* "):
        text = text[2:].lstrip()
    return text


def _targets(
    edit: Edit, files: Mapping[str, str], placed: tuple[str, ...] | None = None
) -> list[str]:
    if edit.target == "skill":
        if SKILL_FILE not in files:
            raise _Refused("this project has no SKILL.md to edit")
        return [SKILL_FILE]
    if placed is not None and (edit.target == "memory" or edit.target in MEMORY_FILES):
        if not (names := [n for n in placed if n in files]):
            raise _Refused(f"{', '.join(placed)} was left out tonight; rules go there")
        return names
    if edit.target == "memory":
        names = [n for n in MEMORY_FILES if n in files]
        if not names:
            raise _Refused("this project has no memory file (CLAUDE.md or AGENTS.md)")
        return names
    if edit.target not in files:
        raise _Refused(f"{edit.target} is not one of this project's files")
    return [edit.target]


def _edit_file(name: str, text: str, op: str, rule: str, old: str) -> str | None:
    """The file's new text, or None when this edit has nothing to do in it."""
    is_skill = name == SKILL_FILE
    if is_skill:
        text = text or new_skill()
        if frontmatter(text) is None:
            raise _Refused(
                "SKILL.md has no valid frontmatter (a --- block with name: and description:); "
                "fix it by hand"
            )
    try:
        find_block(text)
    except BlockError as exc:
        raise _Refused(f"{name}: {exc}; fix it by hand") from exc
    if op == "add":
        if mentions_rule(text, rule):
            return None
        new = add_rule(text, rule, heading=SKILL_HEADING if is_skill else None)
    else:
        if op == "replace" and mentions_rule(text, rule):
            raise _Refused(f"duplicate: {name} already has this rule")
        replaced = replace_rule(text, old, None if op == "remove" else rule)
        if replaced is None:
            return None
        new = replaced
    if is_skill and frontmatter(new) != frontmatter(text):
        raise _Refused("would change the SKILL.md frontmatter")
    return new


def _check_size(name: str, before: str, after: str, limits: GuardLimits) -> None:
    cap = limits.max_bytes.get(name)
    size = len(after.encode("utf-8"))
    if cap is not None and size > cap and size > len(before.encode("utf-8")):
        raise _Refused(f"{name} would be {size:,} bytes, over its cap of {cap:,} bytes")
