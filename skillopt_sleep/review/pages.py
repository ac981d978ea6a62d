"""The pages written from the store after a night: the night's own page once it is reviewed, and a
project's whole history on one page.

A night writes its page when it stages, and then it says "staged". Once the user adopts,
rejects or rolls back the night (or some of its edits), the page is written again from the store,
so it says adopted, rejected, partly adopted (which edits) or rolled back, edit by edit.

The history (:func:`render_history`): nights over time, adopted rules and their outcome.
``skillopt-sleep report`` writes it (``history.html``); like ``report.html`` it is one file with no
script and no external resource, and reads at desktop and phone widths.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from ..errors import InputError, ProposalError, StoreError
from ..settings import FilesSettings
from ..store import NightRow, Store, atomic_write_text
from .charts import NightPoint, money, nights_over_time
from .edit_choice import EditDecisions, edit_words, edits_phrase, load_decisions, pending
from .proposals import Staged, load_staged
from .recompose import Subset, diffs_of, subset_diffs
from .report import _one_line, render_markdown
from .report_html import page, prose, render_html, rule_card
from .rule_views import RuleView, project_views


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


def shown_edits(row: NightRow, decisions: EditDecisions) -> list[int] | None:
    """The edits the page's changes are of when they are not the night's all: those live after
    a partial (or reworded) adoption, or those still staged once some were rejected; None for
    the night's own diffs."""
    count = len(row.summary.edits)
    if row.state in ("adopted", "rolled_back") and decisions.adopted:
        whole = len(decisions.adopted) == count and not decisions.reworded
        return None if whole else decisions.adopted
    kept = pending(row, decisions)
    return kept if decisions.rejected and kept else None


def page_diffs(
    staged: Staged,
    decisions: EditDecisions,
    numbers: list[int] | None,
    files: FilesSettings,
    subset: Subset | None = None,
) -> dict[str, str]:
    """The diffs the page shows: of ``numbers`` alone (:func:`~.recompose.subset_diffs`, or
    ``subset`` as adopt just wrote it), else the night's; the night's too when the edits cannot
    be recomposed (a night staged without its base text)."""
    if numbers is None:
        return staged.diffs()
    if subset is not None and subset.numbers == numbers:
        return diffs_of(staged, subset)
    reworded = {n: t for n, t in decisions.reworded.items() if n in numbers}
    try:
        return subset_diffs(staged, numbers, files, reworded)
    except (InputError, ProposalError):
        return staged.diffs()


def refresh_page(
    store: Store,
    night_id: str,
    files: FilesSettings | None = None,
    subset: Subset | None = None,
) -> str | None:
    """Write the night's page again as the store now has it; a note when that failed (the
    review itself is done and stays done), else None.

    Its changes are what is live after a partial adoption (``subset``: the edits adopt just
    wrote), or what adopt would write now once edits were rejected, recomposed under ``files``
    (the project's settings; the defaults when not given)."""
    row = store.night(night_id)
    if row is None or row.proposal_dir is None:
        return None
    decisions = load_decisions(store, row.id)
    marks = edit_words(row, decisions)
    outcome = outcome_sentence(row, decisions)
    try:
        staged = load_staged(row)
        numbers = shown_edits(row, decisions)
        diffs = page_diffs(staged, decisions, numbers, files or FilesSettings(), subset)
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


def night_points(nights: Sequence[NightRow]) -> list[NightPoint]:
    """Oldest first: each night's edits proposed (tested or refused) and accepted, and its cost."""
    out = []
    for n in sorted(nights, key=lambda r: (r.started_at, r.id)):
        s = n.summary
        proposed = len(
            {e.edit.key() for e in s.evidence}
            | {e.key() for e in s.rejected_edits}
            | {e.key() for e in s.edits}
        )
        accepted = sum(ev.verdict == "accepted" for ev in s.evidence) or len(s.edits)
        out.append(NightPoint(n.started_at[:10], proposed, accepted, s.cost_usd))
    return out


def _night_row(n: NightRow) -> str:
    s = n.summary
    link = ""
    if n.proposal_dir and (Path(n.proposal_dir) / "report.html").exists():
        link = (
            f' <a href="{html.escape((Path(n.proposal_dir) / "report.html").as_uri())}">report</a>'
        )
    accepted = sum(ev.verdict == "accepted" for ev in s.evidence)
    return (
        f'<tr><td class="nw">{html.escape(n.started_at[:16].replace("T", " "))}</td>'
        f'<td class="nw">{html.escape(n.state)}</td><td class="nw">{html.escape(s.decision)}</td>'
        f'<td class="n">{accepted} of {len(s.evidence)}</td>'
        f'<td class="n">{s.calls}</td><td class="n">{money(s.cost_usd)}</td>'
        f'<td class="why">{prose(_one_line(s.reason))}{link}</td></tr>'
    )


def render_history(project: str, nights: Sequence[NightRow], rules: Sequence[RuleView]) -> str:
    """``history.html`` of ``project``: nights newest first, rules oldest adoption first."""
    e = html.escape
    flagged = sum(v.flagged for v in rules)
    body = [
        f"<h1>skillopt-sleep: {e(Path(project).name or project)}</h1>",
        (
            f'<p>Project <code>{e(project)}</code><br><span class="muted">{len(nights)} night(s), '
            f"{len(rules)} adopted rule(s){f', {flagged} need attention' if flagged else ''}</span></p>"
        ),
        "<h2>Nights over time</h2>",
    ]
    chart = nights_over_time(night_points(nights))
    body.append(chart or '<p class="muted">No nights yet: `skillopt-sleep run`.</p>')
    if nights:
        body.append(
            '<div class="scroll"><table><tr><th>started</th><th>state</th><th>decision</th>'
            "<th>accepted</th><th>calls</th><th>cost</th><th>why</th></tr>"
        )
        body += [_night_row(n) for n in nights]
        body.append("</table></div>")
    body.append(f"<h2>Adopted rules ({len(rules)})</h2>")
    body += [rule_card(v) for v in rules] or ['<p class="muted">No rule adopted yet.</p>']
    return page(f"skillopt-sleep history: {project}", body)
