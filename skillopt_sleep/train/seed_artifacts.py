"""A step's records in the seeds' shapes, beside ours: ``candidate_skill.md`` and
``edit_apply_report.json``, so a skillrl or SkillOpt user's tools read a unit's directory as they
read a seed's step directory.

``candidate_skill.md`` is the skill with every edit the step put before the gate applied (the
seeds' candidate: the ranked patch, applied before the validation gate). The gate then keeps only
the edits it proves, so the skill after the step (``skill.md``) may hold fewer. The report has one
entry per ranked edit, in the seeds' keys (``index``, ``op``, ``target``, ``content_preview``,
``status``, ``error``): ``applied``, ``skipped_refused`` (the guard refused it alone: a secret, a
harmful or overlong rule), ``skipped_gate`` (tested and not proven) or ``skipped_untested`` (over
the step's edit budget). ``selection_eval/`` holds the validation rollouts of the best-skill choice;
the run's ``baseline_selection_eval/`` the initial skill's, and ``final_selection_eval/`` those of
the skill the run ended with, when it is not the best.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from ..models import Edit
from ..optimize.proposer import redacted
from ..rollouts.replay import Rollout
from . import report
from .gate import GateOutcome
from .step import AnalystProposer, SkillGuard
from .update import SKILL

PREVIEW = 200  # the seeds cut a target and a content preview at 200 characters


def seed_artifacts(
    proposer: AnalystProposer,
    guard: SkillGuard,
    refused: Sequence[Edit],
    outcome: GateOutcome,
    budget: int,
) -> dict[str, object]:
    """The step's candidate skill and the seeds' per-edit apply report (texts redacted)."""
    ranked = [p.edit for p in proposer.ranked]
    candidate = guard.combine(ranked[:budget], budget=budget).files.get(SKILL, guard.skill)
    return {
        "candidate_skill.md": candidate,
        "edit_apply_report.json": [
            _entry(i, edit, refused, outcome) for i, edit in enumerate(ranked, 1)
        ],
    }


def selection_eval(
    drawn: dict[str, list[Rollout]], folder: str = "selection_eval"
) -> dict[str, object]:
    """The seeds' ``selection_eval/``: the validation rollouts that scored the skill after the
    step for the best-skill choice (``results.json``) and their means (``summary.json``). None
    when the skill was scored before (the seeds' cache hit: the same skill is not replayed).
    ``folder`` names the run's ``baseline_selection_eval/`` (the initial skill's) alike."""
    if not drawn:
        return {}
    mean = report.mean_score(report.per_item(drawn))
    results = [r.as_json(conversation=True) for rs in drawn.values() for r in rs]
    summary = {"hard": mean.test_hard, "soft": mean.test_soft, "n": len(results)}
    return {f"{folder}/results.json": results, f"{folder}/summary.json": summary}


def final_selection_eval(run: Path, current: str, best: str) -> dict[str, object]:
    """SkillOpt's ``final_selection_eval/``: the validation rollouts of the skill the run ended
    with, when it is not the best one (the best's are its step's). They are the rollouts that
    scored it when it was first made (its unit's ``selection_eval/``, or the initial skill's
    ``baseline_selection_eval/``): read again, not drawn again, so they cost nothing."""
    if current == best:
        return {}
    found = run / "baseline_selection_eval"
    for unit in sorted((run / "units").glob("*-e*"), reverse=True):
        if (unit / "selection_eval").is_dir() and _text(unit / "skill.md") == current:
            found = unit / "selection_eval"
            break
    else:
        if _text(run / "initial.md") != current:
            return {}
    return {
        f"final_selection_eval/{name}": json.loads(_text(found / name) or "null")
        for name in ("results.json", "summary.json")
        if (found / name).is_file()
    }


def _text(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None


def _entry(
    index: int, edit: Edit, refused: Sequence[Edit], outcome: GateOutcome
) -> dict[str, object]:
    key = edit.key()
    shown = redacted(edit)
    entry: dict[str, object] = {
        "index": index,
        "op": shown.op,
        "target": (shown.old or "")[:PREVIEW],
        "content_preview": shown.content[:PREVIEW],
    }
    refusal = next((e for e in refused if e.key() == key), None)
    judged = next((e for e in outcome.evidence if e.edit.key() == key), None)
    if any(e.key() == key for e in outcome.applied):
        return {**entry, "status": "applied"}
    if refusal is not None:
        return {**entry, "status": "skipped_refused", "error": refusal.reason}
    if judged is not None:
        return {**entry, "status": "skipped_gate", "error": f"{judged.verdict}: {judged.reason}"}
    return {**entry, "status": "skipped_untested", "error": "over the step's edit budget"}
