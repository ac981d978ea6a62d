"""Small inline SVG pictures for the reports: no script, no font, no network.

Each chart is drawn at the size it is shown (one unit is one CSS pixel), no wider than a phone's
column, so its labels read at the page's small-text size on a desk and on a phone alike, instead
of growing with the page as a stretched ``viewBox`` did. Every label is placed inside the
``viewBox``; the keys to the colours are HTML under the picture, where they wrap like text.
Each ``<svg>`` has a ``<title>`` that says in words what it shows.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

BEFORE, AFTER, BAD, GRID, INK = "#8c959f", "#1a7f37", "#cf222e", "#d0d7de", "#1f2328"
REQUESTS, COST, MUTED = "#d8dee4", "#0969da", "#59636e"
LABEL, TICK = 13, 12  # px: the page's small text (body text is 16 px, captions 13 px)
PHONE = 320  # px: the widest a chart in a card may be and still fit a 390 px phone unscaled


def _t(text: str) -> str:
    return html.escape(text, quote=True)


def _text_width(text: str, size: int) -> float:
    """A generous estimate of ``text``'s width in a sans-serif font: labels are sized by it."""
    return len(text) * size * 0.62


def _fit(text: str, room: float, size: int) -> str:
    """``text`` shortened with an ellipsis until it fits ``room`` px."""
    if _text_width(text, size) <= room:
        return text
    keep = max(int(room / (size * 0.62)) - 1, 1)
    return text[:keep] + "…"


def _label(x: float, y: float, text: str, size: int = TICK, anchor: str = "start") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" fill="{INK}" '
        f'text-anchor="{anchor}">{_t(text)}</text>'
    )


def _svg(width: float, height: float, title: str, body: Sequence[str]) -> str:
    w, h = math.ceil(width), math.ceil(height)
    return (
        f'<svg class="chart" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{_t(title)}</title>{"".join(body)}</svg>'
    )


def _legend(keys: Sequence[tuple[str, str]], note: str = "") -> str:
    """The colours' meanings as HTML: a swatch and words per key, wrapping on a phone."""
    items = "".join(
        f'<span class="key"><span class="swatch" style="background:{colour}"></span>{_t(words)}</span>'
        for colour, words in keys
    )
    extra = f'<span class="key">{_t(note)}</span>' if note else ""
    return f'<p class="legend">{items}{extra}</p>'


def _figure(svg: str, legend: str = "") -> str:
    return f'<div class="figure">{svg}{legend}</div>'


def nice_axis(peak: int) -> tuple[int, int]:
    """The top of a count axis and its step: 1, 2 or 5 times a power of ten, at most 4 steps."""
    peak, scale = max(peak, 1), 1
    while True:
        for step in (scale, 2 * scale, 5 * scale):
            if math.ceil(peak / step) <= 4:
                return math.ceil(peak / step) * step, step
        scale *= 10


def money(value: float | None) -> str:
    """A dollar amount as the history table writes it, shorter when large; ``$?`` unknown."""
    if value is None:
        return "$?"
    if value >= 1000:
        return f"${value:,.0f}"
    return f"${value:.2f}" if value >= 1 else f"${value:.4f}"


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


def _bar(x: float, y: float, width: float, fraction: float, colour: str) -> str:
    return (
        f'<rect x="{x}" y="{y}" width="{width}" height="14" fill="#f6f8fa" stroke="{GRID}"/>'
        f'<rect x="{x}" y="{y}" width="{width * fraction:.1f}" height="14" fill="{colour}"/>'
    )


def rate_bars(pairs: Sequence[RatePair]) -> str:
    """Per set of tasks, its name over two bars (before in grey, after in green, or red when it
    fell), 0 to 100% on an axis under them, each bar's count beside it."""
    row_h, bar_w, width = 58, 200, PHONE
    height = row_h * len(pairs) + 20
    parts = [
        f'<line x1="{bar_w * k / 2}" y1="16" x2="{bar_w * k / 2}" y2="{height - 16}" '
        f'stroke="{GRID}" stroke-dasharray="2 2"/>'
        for k in (1, 2)
    ]
    for i, p in enumerate(pairs):
        y = i * row_h
        fb, fa = _frac(p.before_pass, p.before_n), _frac(p.after_pass, p.after_n)
        colour = BAD if p.after_n and p.before_n and fa < fb else AFTER
        parts.append(_label(0, y + 13, _fit(p.label, width, LABEL), LABEL))
        parts.append(_bar(0.5, y + 19, bar_w, fb, BEFORE))
        parts.append(_bar(0.5, y + 37, bar_w, fa, colour))
        parts.append(_label(bar_w + 8, y + 31, f"before {p.before_pass}/{p.before_n}"))
        parts.append(_label(bar_w + 8, y + 49, f"after {p.after_pass}/{p.after_n}"))
    base = height - 16
    parts.append(f'<line x1="0" y1="{base}" x2="{bar_w}" y2="{base}" stroke="{MUTED}"/>')
    for k, anchor in ((0, "start"), (1, "middle"), (2, "end")):
        parts.append(_label(bar_w * k / 2 + 0.5, height - 3, f"{50 * k}%", TICK, anchor))
    return _svg(width, height, "; ".join(p.words() for p in pairs), parts)


@dataclass(frozen=True)
class _Columns:
    """The layout of a column chart: where each column is and which ones carry a date label."""

    left: float
    col: float
    labelled: list[int]

    def x(self, i: int) -> float:
        return self.left + i * self.col


def _columns(names: Sequence[str], left: float, room: float) -> _Columns:
    """Columns of equal width (at most 40 px) filling ``room``; a date label under a column only
    when it differs from the last one shown and there is room for it."""
    col = min(40.0, room / max(len(names), 1))
    labelled: list[int] = []
    for i, name in enumerate(names):
        if labelled and (
            name == names[labelled[-1]] or (i - labelled[-1]) * col < _text_width(name, TICK) + 6
        ):
            continue
        labelled.append(i)
    return _Columns(left, col, labelled)


def _count_axis(
    x: float, top: float, height: float, peak: int, right: float
) -> tuple[list[str], int]:
    """A count axis on the left: its values and faint grid lines across to ``right``."""
    axis_top, step = nice_axis(peak)
    parts = []
    for v in range(0, axis_top + 1, step):
        y = top + height - height * v / axis_top
        parts.append(f'<line x1="{x}" y1="{y:.1f}" x2="{right:.1f}" y2="{y:.1f}" stroke="{GRID}"/>')
        parts.append(_label(x - 4, y + 4, str(v), TICK, "end"))
    return parts, axis_top


def _date_labels(cols: _Columns, names: Sequence[str], y: float, right: float) -> list[str]:
    out = []
    for i in cols.labelled:
        text = names[i][5:]
        x = max(cols.x(i), cols.left)
        anchor = "end" if x + _text_width(text, TICK) > right else "start"
        out.append(_label(right if anchor == "end" else x, y, text, TICK, anchor))
    return out


def weekly_corrections(weeks: Sequence[tuple[str, int, int]], adopted_week: str, title: str) -> str:
    """Per week: requests of the rule's kind (light) and how many were corrected (red), on a
    count axis, with a dashed line where the rule was adopted."""
    if not weeks:
        return ""
    left, top, height = 30.0, 22.0, 96.0
    names = [w for w, _, _ in weeks]
    cols = _columns(names, left, PHONE - left - 6)
    right = max(cols.x(len(weeks)), left + 120)
    parts, axis_top = _count_axis(left, top, height, max(n for _, n, _ in weeks), right)
    for i, (_, n, corrected) in enumerate(weeks):
        x, w = cols.x(i) + cols.col * 0.15, cols.col * 0.7
        for count, colour in ((n, REQUESTS), (corrected, BAD)):
            h = height * count / axis_top
            parts.append(
                f'<rect x="{x:.1f}" y="{top + height - h:.1f}" width="{w:.1f}" '
                f'height="{h:.1f}" fill="{colour}"/>'
            )
    parts += _date_labels(cols, names, top + height + 16, right)
    marks = [i for i, week in enumerate(names) if week >= adopted_week]
    if marks:
        x = cols.x(marks[0])
        parts.append(
            f'<line x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" y2="{top + height}" '
            f'stroke="{INK}" stroke-dasharray="3 3"/>'
        )
        fits = x + _text_width("adopted", TICK) <= right
        parts.append(
            _label(x + 3 if fits else x - 3, 12, "adopted", TICK, "start" if fits else "end")
        )
    svg = _svg(right + 4, top + height + 22, title, parts)
    keys = [(REQUESTS, "requests of its kind"), (BAD, "corrected")]
    return _figure(svg, _legend(keys, "per week from Monday; dashed: adopted"))


@dataclass(frozen=True)
class NightPoint:
    """One night for the history chart."""

    day: str
    proposed: int
    accepted: int
    cost_usd: float | None  # None: unknown (a model with no price)


def _cost_axis(x: float, top: float, height: float, peak: float) -> list[str]:
    values = [0.0] if peak <= 0 else [0.0, peak / 2, peak]
    return [
        _label(x + 4, top + height - height * v / max(peak, 1e-12) + 4, money(v)) for v in values
    ]


def nights_over_time(points: Sequence[NightPoint]) -> str:
    """Per night: edits proposed (grey) and accepted (green) as columns on a count axis, cost as
    a blue line on a dollar axis at the right."""
    if not points:
        return ""
    left, top, height = 30.0, 12.0, 110.0
    peak_cost = max(p.cost_usd or 0.0 for p in points)
    right_room = 8 + max(_text_width(money(peak_cost), TICK), _text_width("$0", TICK))
    names = [p.day for p in points]
    cols = _columns(names, left, 360 - left - right_room)
    right = max(cols.x(len(points)), left + 120)
    parts, axis_top = _count_axis(left, top, height, max(p.proposed for p in points), right)
    line = []
    for i, p in enumerate(points):
        x, w = cols.x(i) + cols.col * 0.15, cols.col * 0.7
        for count, colour in ((p.proposed, REQUESTS), (p.accepted, AFTER)):
            h = height * count / axis_top
            parts.append(
                f'<rect x="{x:.1f}" y="{top + height - h:.1f}" width="{w:.1f}" '
                f'height="{h:.1f}" fill="{colour}"/>'
            )
        cy = top + height - (height * (p.cost_usd or 0.0) / peak_cost if peak_cost > 0 else 0)
        line.append(f"{x + w / 2:.1f},{cy:.1f}")
    parts.append(
        f'<polyline points="{" ".join(line)}" fill="none" stroke="{COST}" stroke-width="2"/>'
    )
    parts += [
        f'<circle cx="{xy.split(",")[0]}" cy="{xy.split(",")[1]}" r="3" fill="{COST}"/>'
        for xy in line
    ]
    parts += _cost_axis(right, top, height, peak_cost)
    parts += _date_labels(cols, names, top + height + 16, right)
    title = "; ".join(
        f"{p.day}: {p.proposed} proposed, {p.accepted} accepted, {money(p.cost_usd)}"
        for p in points
    )
    svg = _svg(right + right_room, top + height + 22, title, parts)
    keys = [(REQUESTS, "edits proposed"), (AFTER, "accepted"), (COST, "cost (right axis)")]
    return _figure(svg, _legend(keys, "one column per night"))
