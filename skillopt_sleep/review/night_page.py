"""The night's page after the review: ``report.md`` and ``report.html`` say what became of it.

A night writes its page when it stages, and then it says "staged". Once the user adopts,
rejects or rolls back the night (or some of its edits), the page is written again from the store,
so it says adopted, rejected, partly adopted (which edits) or rolled back, edit by edit.
"""

from __future__ import annotations

from ..errors import ProposalError, StoreError
from ..store import NightRow, Store, atomic_write_text
from .edit_choice import EditDecisions, edit_words, edits_phrase, load_decisions, pending
from .proposals import load_staged
from .report import render_markdown
from .report_html import render_html
from .rule_views import project_views


def outcome_sentence(row: NightRow, decisions: EditDecisions) -> str:
    """What became of the night, in one sentence that names the command undoing it."""
    count = len(row.summary.edits)
    adopted = decisions.adopted or list(range(1, count + 1))
    left = [n for n in range(1, count + 1) if n not in adopted and n not in decisions.rejected]
    rest = "".join(
        f"; {edits_phrase(ns)} {why}"
        for ns, why in ((decisions.rejected, "rejected"), (left, "left out"))
        if ns
    )
    if row.state == "adopted":
        head = "Adopted" if len(adopted) == count else "Partly adopted"
        return (
            f"{head} at review: {edits_phrase(adopted)} of {count} live{rest}. "
            f"`skillopt-sleep rollback {row.id}` undoes it."
        )
    if row.state == "rolled_back":
        return f"Adopted ({edits_phrase(adopted)}), then rolled back: the files are as before it."
    if row.state == "rejected":
        return "Rejected at review: nothing live changed; later nights will not propose its edits again."
    if row.state == "staged" and decisions.rejected:
        return (
            f"{edits_phrase(decisions.rejected).capitalize()} rejected at review; "
            f"{edits_phrase(pending(row, decisions))} still staged: adopt with "
            "`skillopt-sleep adopt`, discard with `skillopt-sleep reject`."
        )
    return ""


def refresh_page(store: Store, night_id: str) -> str | None:
    """Write the night's page again as the store now has it; a note when that failed (the
    review itself is done and stays done), else None."""
    row = store.night(night_id)
    if row is None or row.proposal_dir is None:
        return None
    decisions = load_decisions(store, row.id)
    marks = edit_words(row, decisions)
    outcome = outcome_sentence(row, decisions)
    try:
        staged = load_staged(row)
        diffs = staged.diffs()
        earlier = [v for v in project_views(store, row.project) if v.rule.night_id != row.id]
        summary = row.summary
        atomic_write_text(
            staged.directory / "report.md", render_markdown(summary, diffs, marks, outcome)
        )
        atomic_write_text(
            staged.directory / "report.html",
            render_html(summary, diffs, earlier, marks, outcome),
        )
    except (ProposalError, StoreError) as exc:
        return f"the night's page was not updated: {exc.one_line()}"
    return None
