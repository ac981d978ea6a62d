"""The whole history of a project on one page: nights over time, adopted rules and their outcome.

``skillopt-sleep report`` writes it (``history.html``); like ``report.html`` it is one file with
no script and no external resource, and reads at desktop and phone widths.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from ..store import NightRow
from .charts import NightPoint, money, nights_over_time
from .report import _one_line
from .report_html import page, prose, rule_card
from .rule_views import RuleView


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
