"""Small inline SVG pictures for the reports: no script, no font, no network.

Each function returns one ``<svg>`` element that scales to its container's width (a ``viewBox``
and ``width="100%"``), with a ``<title>`` that says in words what it shows.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

BEFORE, AFTER, BAD, GRID, INK = "#8c959f", "#1a7f37", "#cf222e", "#d0d7de", "#1f2328"


def _t(text: str) -> str:
    return html.escape(text, quote=True)


@dataclass(frozen=True)
class RatePair:
    """Passes before and after an edit on one set of tasks."""

    label: str
    before_pass: int
    before_n: int
    after_pass: int
    after_n: int

    def words(self) -> str:
        if not self.after_n:
            return f"{self.label}: not tested"
        return (
            f"{self.label}: {self.after_pass} of {self.after_n} attempts right, "
            f"was {self.before_pass} of {self.before_n}"
        )


def _frac(k: int, n: int) -> float:
    return k / n if n else 0.0


def rate_bars(pairs: Sequence[RatePair]) -> str:
    """Two bars per row (before in grey, after in green, or red when it fell), 0 to 100%."""
    row_h, label_w, bar_w = 46, 120, 260
    height = row_h * len(pairs) + 8
    parts = [
        (
            f'<svg class="chart" viewBox="0 0 {label_w + bar_w + 100} {height}" width="100%" '
            f'role="img" xmlns="http://www.w3.org/2000/svg"><title>{_t("; ".join(p.words() for p in pairs))}</title>'
        )
    ]
    for i, p in enumerate(pairs):
        y = 4 + i * row_h
        fb, fa = _frac(p.before_pass, p.before_n), _frac(p.after_pass, p.after_n)
        colour = BAD if p.after_n and p.before_n and fa < fb else AFTER
        parts.append(f'<text x="0" y="{y + 24}" font-size="13" fill="{INK}">{_t(p.label)}</text>')
        parts.append(
            f'<rect x="{label_w}" y="{y + 2}" width="{bar_w}" height="16" fill="#f6f8fa" stroke="{GRID}"/>'
        )
        parts.append(
            f'<rect x="{label_w}" y="{y + 2}" width="{bar_w * fb:.1f}" height="16" fill="{BEFORE}"/>'
        )
        parts.append(
            f'<rect x="{label_w}" y="{y + 22}" width="{bar_w}" height="16" fill="#f6f8fa" stroke="{GRID}"/>'
        )
        parts.append(
            f'<rect x="{label_w}" y="{y + 22}" width="{bar_w * fa:.1f}" height="16" fill="{colour}"/>'
        )
        parts.append(
            f'<text x="{label_w + bar_w + 6}" y="{y + 15}" font-size="12" fill="{INK}">'
            f"before {p.before_pass}/{p.before_n}</text>"
        )
        parts.append(
            f'<text x="{label_w + bar_w + 6}" y="{y + 35}" font-size="12" fill="{INK}">'
            f"after {p.after_pass}/{p.after_n}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def weekly_corrections(weeks: Sequence[tuple[str, int, int]], adopted_week: str, title: str) -> str:
    """Per week: requests of the rule's kind (light) and how many were corrected (dark), with a
    line where the rule was adopted."""
    if not weeks:
        return ""
    col, height, top = 34, 120, 28
    width = max(col * len(weeks) + 20, 160)
    peak = max(n for _, n, _ in weeks) or 1
    parts = [
        (
            f'<svg class="chart" viewBox="0 0 {width} {top + height + 36}" width="100%" role="img" '
            f'xmlns="http://www.w3.org/2000/svg"><title>{_t(title)}</title>'
        )
    ]
    for i, (week, n, corrected) in enumerate(weeks):
        x = 10 + i * col
        hn, hc = height * n / peak, height * corrected / peak
        parts.append(
            f'<rect x="{x}" y="{top + height - hn:.1f}" width="{col - 8}" height="{hn:.1f}" fill="#d8dee4"/>'
        )
        parts.append(
            f'<rect x="{x}" y="{top + height - hc:.1f}" width="{col - 8}" height="{hc:.1f}" fill="{BAD}"/>'
        )
        parts.append(
            f'<text x="{x}" y="{top + height + 14}" font-size="10" fill="{INK}">{_t(week[5:])}</text>'
        )
        if corrected:
            parts.append(
                f'<text x="{x + 2}" y="{top + height - hc - 3:.1f}" font-size="10" fill="{INK}">{corrected}</text>'
            )
    marks = [i for i, (week, _, _) in enumerate(weeks) if week >= adopted_week]
    if marks:
        x = 10 + marks[0] * col - 4
        parts.append(
            f'<line x1="{x}" y1="2" x2="{x}" y2="{top + height}" stroke="{INK}" stroke-dasharray="3 3"/>'
        )
        parts.append(f'<text x="{x + 3}" y="10" font-size="10" fill="{INK}">adopted</text>')
    parts.append(
        f'<text x="10" y="{top + height + 30}" font-size="10" fill="{INK}">weeks (Monday); '
        "grey: requests of its kind, red: corrected</text>"
    )
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class NightPoint:
    """One night for the history chart."""

    day: str
    proposed: int
    accepted: int
    cost_usd: float


def nights_over_time(points: Sequence[NightPoint]) -> str:
    """Per night: edits proposed (grey) and accepted (green) as columns, cost as a line."""
    if not points:
        return ""
    col, height, top = 30, 110, 14
    width = max(col * len(points) + 40, 180)
    peak = max(max(p.proposed for p in points), 1)
    peak_cost = max(max(p.cost_usd for p in points), 1e-9)
    title = "; ".join(
        f"{p.day}: {p.proposed} proposed, {p.accepted} accepted, ${p.cost_usd:.4f}" for p in points
    )
    parts = [
        (
            f'<svg class="chart" viewBox="0 0 {width} {height + 40}" width="100%" role="img" '
            f'xmlns="http://www.w3.org/2000/svg"><title>{_t(title)}</title>'
        )
    ]
    line = []
    for i, p in enumerate(points):
        x = 10 + i * col
        hp, ha = height * p.proposed / peak, height * p.accepted / peak
        parts.append(
            f'<rect x="{x}" y="{top + height - hp:.1f}" width="{col - 10}" height="{hp:.1f}" fill="#d8dee4"/>'
        )
        parts.append(
            f'<rect x="{x}" y="{top + height - ha:.1f}" width="{col - 10}" height="{ha:.1f}" fill="{AFTER}"/>'
        )
        parts.append(
            f'<text x="{x}" y="{top + height + 14}" font-size="9" fill="{INK}">{_t(p.day[5:])}</text>'
        )
        line.append(
            f"{x + (col - 10) / 2:.1f},{top + height - height * p.cost_usd / peak_cost:.1f}"
        )
    parts.append(
        f'<polyline points="{" ".join(line)}" fill="none" stroke="#0969da" stroke-width="2"/>'
    )
    parts.append(
        f'<text x="10" y="{height + 44}" font-size="10" fill="{INK}">grey: edits proposed, green: '
        f"accepted, blue line: cost (max ${peak_cost:.4f})</text>"
    )
    parts.append("</svg>")
    return "".join(parts)
