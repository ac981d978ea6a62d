"""Some of a night's edits, as files: the candidates recomposed from the night's base text.

A night stages one candidate per file holding all its edits. To adopt only some of them, the
candidates are built again from the text the night read (``base/<name>``) with only the chosen
edits, through the same guards a night's edits pass (:func:`~..night.guards.apply_edits`: the
managed block, secrets, harmful text, duplicates, size caps). So the files hold exactly the
chosen edits, and an edit the user reworded is held to every rule a learned edit is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError, ProposalError
from ..models import Edit
from ..redact import redact
from ..rules.guards import SKILL_FILE, GuardLimits, apply_edits
from ..rules.language import users_languages
from ..rules.lint import urls_in
from ..rules.placement import as_proposed
from ..rules.workspace import NEW_SKILL
from ..settings import FilesSettings
from .diff import label, unified_diff
from .proposals import Staged


@dataclass(frozen=True)
class Subset:
    """The edits one adoption takes from a night, and the files they make.

    ``edits`` are as written (a reworded edit in the user's words); ``candidates`` holds only the
    files the chosen edits change; ``reworded`` maps an edit number to the user's wording, and
    ``night_edits`` the key of a reworded edit to the night's own edit it stands for."""

    numbers: list[int]
    edits: list[Edit]
    candidates: dict[str, bytes]
    reworded: dict[int, str] = field(default_factory=dict)
    night_edits: dict[str, Edit] = field(default_factory=dict)


def base_texts(staged: Staged) -> dict[str, str]:
    """Each file of the proposal as the night read it (its seed text when it did not exist)."""
    out = {}
    for f in staged.proposal.files:
        base = staged.base(f.name)
        if base is None and f.base_sha256 is not None:
            raise ProposalError(
                f"night {staged.night_id} was staged without the text its edits were made on, "
                "so it can only be adopted whole",
                hint="run `skillopt-sleep adopt` without edit numbers, or run the night again",
            )
        if base is None:
            out[f.name] = NEW_SKILL if f.name == SKILL_FILE else ""
        else:
            out[f.name] = base.decode("utf-8")
    return out


def placed_texts(staged: Staged) -> dict[str, str]:
    """The files a placement laid out anew (rules moved, an import added), as the night's edits
    were made on them; a file missing from the proposal's directory reads as its base."""
    out = {}
    for f in staged.proposal.files:
        if f.placed is not None:
            try:
                out[f.name] = (staged.directory / f.placed).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
    return out


def reword(edit: Edit, text: str) -> Edit:
    """``edit`` in the user's words."""
    return edit.model_copy(update={"content": text, "status": "proposed", "reason": ""})


def recompose(
    staged: Staged,
    numbers: Sequence[int],
    reworded: Mapping[int, str],
    files: FilesSettings,
) -> Subset:
    """The candidates of ``staged``'s edits ``numbers`` alone (``reworded`` in the user's words).

    :class:`InputError` when the user's wording is refused by the guards, :class:`ProposalError`
    when a night's edit cannot stand without the others."""
    live = base_texts(staged)
    copies = {f.name: f.copy_of for f in staged.proposal.files if f.copy_of is not None}
    texts = {n: t for n, t in dict(live, **placed_texts(staged)).items() if n not in copies}
    night = staged.row.summary.edits
    edits = [reword(night[n - 1], reworded[n]) if n in reworded else night[n - 1] for n in numbers]
    words = [*texts.values(), *(e.content for e in edits)]
    limits = GuardLimits(
        max_bytes=files.max_bytes,
        known_urls=frozenset(urls_in("\n".join(words))),
        max_rules=files.max_rules,
        languages=users_languages(words),
        memory=tuple(staged.proposal.memory) if staged.proposal.memory else None,
    )
    outcome = apply_edits(texts, edits, budget=len(edits), limits=limits)
    if outcome.rejected:
        # the first edit refused: the shortest prefix of the edits with a refusal ends with it
        at = next(
            k
            for k in range(len(edits))
            if apply_edits(texts, edits[: k + 1], budget=k + 1, limits=limits).rejected
        )
        _refuse(staged, numbers[at], outcome.rejected[0], reworded)
    made = dict(outcome.files)  # a copy of the skill holds the skill's text
    if staged.proposal.memory:  # the layout only with a memory edit, no import of a missing file
        project = Path(staged.proposal.project)
        names = [n for n in texts if n != SKILL_FILE]
        made.update(
            as_proposed(
                {n: live[n] for n in names},
                {n: texts[n] for n in names},
                {n: made.get(n, texts[n]) for n in names},
                lambda name: (project / name).exists(),
            )
        )
    made.update({name: made[of] for name, of in copies.items() if of in made})
    candidates = {name: text.encode("utf-8") for name, text in made.items() if text != live[name]}
    done = outcome.applied
    night_edits = {done[i].key(): night[n - 1] for i, n in enumerate(numbers) if n in reworded}
    return Subset(list(numbers), done, candidates, dict(reworded), night_edits)


def _refuse(staged: Staged, n: int, refused: Edit, reworded: Mapping[int, str]) -> None:
    """Name the edit the guards refused and why; nothing is written."""
    if n in reworded:
        raise InputError(
            f"your wording of edit {n} is refused: {refused.reason}; nothing was adopted",
            hint=f"reword it again with `skillopt-sleep adopt --edit {n}`",
        )
    raise ProposalError(
        f"edit {n} of night {staged.night_id} cannot be adopted without the others "
        f"({refused.reason}); nothing was written",
        hint="adopt it with the edits it builds on, or run the night again",
    )


def subset_diffs(
    staged: Staged,
    numbers: Sequence[int],
    files: FilesSettings,
    reworded: Mapping[int, str] | None = None,
) -> dict[str, str]:
    """What ``adopt`` writes of ``staged``'s edits ``numbers`` alone (``reworded`` in the user's
    words), as the night's diffs are: from the text the night read to the recomposed candidate,
    file by file (a file the edits leave as it was has none)."""
    return diffs_of(staged, recompose(staged, numbers, reworded or {}, files))


def diffs_of(staged: Staged, subset: Subset) -> dict[str, str]:
    """The diffs of ``subset``'s candidates (see :func:`subset_diffs`)."""
    base = base_texts(staged)
    project = Path(staged.proposal.project)
    out = {}
    for f in staged.proposal.files:
        new = subset.candidates.get(f.name)
        if new is None:
            continue
        old = base[f.name] if staged.base(f.name) is not None else ""
        where = label(project, Path(f.live_path))
        out[f.name] = redact(unified_diff(old, new.decode("utf-8"), where))
    return out
