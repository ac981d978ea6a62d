"""Plain-text rendering of a night for the terminal."""

from __future__ import annotations

from ..models import NightSummary
from ..review.report import evidence_row, rejected_shown

# Below this many tasks a night rarely finds an edit's evidence: a rule must show a gain on the
# tasks of its kind, cited and unseen, and do no harm on the others.
FEW_TASKS = 6


def evidence_lines(s: NightSummary) -> list[str]:
    """Each edit's verdict and the evidence behind it, two lines an edit."""
    lines = [f"edits: {s.tally.line()}"]
    if s.evidence:
        lines.append("evidence, edit by edit (fresh rollouts; before -> after passes):")
    for ev in s.evidence:
        verdict, edit, where, _, acts, p, elsewhere, p_harm, why = evidence_row(ev)
        lines.append(f"  [{verdict}] {edit}")
        lines.append(
            f"      where it acts {acts} (p={p}); elsewhere {elsewhere} (p={p_harm}); "
            f"tested on {where}; {why}"
        )
    return lines


def _staging(s: NightSummary, adopted: bool) -> str:
    """What became of an accepted night's edits: staged for review until adopted."""
    if s.decision != "accept":
        return ""
    if adopted:
        return " (adopted)"
    return " (dry run: nothing staged)" if s.dry_run else " (staged for review)"


def _edit_word(s: NightSummary, adopted: bool) -> str:
    if adopted:
        return "adopted"
    return "would be staged" if s.dry_run else "staged"


def night_text(
    s: NightSummary, *, adopted: bool = False, review: str = "`skillopt-sleep review`"
) -> str:
    """The night for the terminal; ``adopted`` once its proposal was adopted (``auto_adopt``);
    ``review`` says how to review it (the demo's commands carry the demo's own home)."""
    lines = [
        f"night {s.night_id}  project {s.project}",
        f"tasks: {s.n_train} train, {s.n_holdout} holdout",
        *evidence_lines(s),
        f"decision: {s.decision.upper()}{_staging(s, adopted)} — {s.reason}",
    ]
    if s.edits:
        lines.append("edits:")
        lines += [
            f"  [{_edit_word(s, adopted) if e.status == 'applied' else e.status}] "
            f"{e.target}: {e.content}"
            for e in s.edits
        ]
    rejected = rejected_shown(s)
    if rejected:
        lines.append("rejected edits:")
        lines += [f"  {e.target}: {e.content}  ({e.reason})" for e in rejected]
    for note in s.skipped:
        lines.append(f"skipped: {note}")
    lines += [f"note: {note}" for note in s.notes]
    if s.errored_rollouts:
        lines.append(f"errored rollouts (excluded, not scored 0): {s.errored_rollouts}")
    lines.append(f"spent: {s.calls} calls, {s.tokens} tokens, {s.spent_usd()}")
    if s.saving_note():
        lines.append(s.saving_note())
    if s.gate_rollouts:
        parts = ", ".join(f"{part} {n}" for part, n in s.gate_rollouts.items())
        lines.append(f"gate rollouts: {sum(s.gate_rollouts.values())} ({parts})")
    if s.saved_rollouts:
        by_part = ", ".join(f"{part} {n}" for part, n in s.gate_saved.items() if n)
        lines.append(
            f"saved: {s.saved_rollouts} rollouts that tests decided early did not need"
            + (f" ({by_part})" if by_part else "")
        )
    if s.proposal_dir:
        lines.append(f"report: {s.proposal_dir}/report.html  (review with {review})")
    n = s.n_train + s.n_holdout
    if n < FEW_TASKS and s.decision in ("no_evidence", "reject"):
        lines.append(
            f"hint: only {n} task{'' if n == 1 else 's'} logged for this project; a night finds "
            "evidence among several tasks of a kind: log more (`skillopt-sleep harvest`, "
            "`skillopt-sleep tasks add`) and run again"
        )
    return "\n".join(lines)
