"""Guarded edits: what the optimizer proposes is applied only inside these rails.

- memory edits only inside the managed block; every byte outside it stays identical;
- ``SKILL.md`` frontmatter stays valid; size caps per file (AGENTS.md is cut at 32 KiB by Codex);
- no secrets, no dangerous instructions; at most ``budget`` edits a night;
- a "memory" edit is written once into every memory file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..models import Edit
from ..settings import NightSettings

BEGIN = "<!-- skillopt-sleep:begin -->"
END = "<!-- skillopt-sleep:end -->"
MEMORY_FILES = ("CLAUDE.md", "AGENTS.md")


@dataclass(frozen=True)
class GuardLimits:
    max_bytes: Mapping[str, int] = field(default_factory=dict)
    known_urls: frozenset[str] = frozenset()


@dataclass(frozen=True)
class EditOutcome:
    files: dict[str, str]
    applied: list[Edit]
    rejected: list[Edit]


def edit_budget(settings: NightSettings, night_index: int) -> int:
    """Edits allowed on the ``night_index``-th night of a project (placeholder: constant)."""
    return settings.edit_budget


def managed_rules(text: str) -> list[str]:
    """The rules currently inside the managed block of a memory file."""
    if BEGIN not in text or END not in text:
        return []
    inner = text.split(BEGIN, 1)[1].split(END, 1)[0]
    return [ln[2:].strip() for ln in inner.splitlines() if ln.startswith("- ")]


def _with_rule(text: str, rule: str) -> str:
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        inner, tail = rest.split(END, 1)
        return f"{head}{BEGIN}{inner}- {rule}\n{END}{tail}"
    sep = "" if text.endswith("\n") or not text else "\n"
    return f"{text}{sep}\n{BEGIN}\n- {rule}\n{END}\n"


def apply_edits(
    files: Mapping[str, str],
    edits: Sequence[Edit],
    *,
    budget: int,
    limits: GuardLimits,
) -> EditOutcome:
    """Apply what passes the guards (placeholder: add-only, budget only)."""
    out = dict(files)
    applied: list[Edit] = []
    rejected: list[Edit] = []
    for edit in edits:
        if len(applied) >= budget:
            rejected.append(edit.model_copy(update={"status": "rejected", "reason": "over the edit budget"}))
            continue
        names = ["SKILL.md"] if edit.target == "skill" else (
            [n for n in MEMORY_FILES if n in out] if edit.target == "memory" else [edit.target])
        for name in names:
            if name == "SKILL.md":
                out[name] = out.get(name, "").rstrip("\n") + f"\n- {edit.content}\n"
            else:
                out[name] = _with_rule(out.get(name, ""), edit.content)
        applied.append(edit.model_copy(update={"status": "applied"}))
    return EditOutcome(out, applied, rejected)
