"""The morning report: ``report.md`` and ``report.html`` of a night (placeholder rendering)."""

from __future__ import annotations

import html
from collections.abc import Mapping

from ..models import NightSummary


def render_markdown(summary: NightSummary, diffs: Mapping[str, str]) -> str:
    lines = [f"# skillopt-sleep night {summary.night_id}", "", f"Decision: **{summary.decision}**", ""]
    for name, diff in diffs.items():
        lines += [f"## {name}", "", "```diff", diff.rstrip("\n"), "```", ""]
    return "\n".join(lines)


def render_html(summary: NightSummary, diffs: Mapping[str, str]) -> str:
    return f"<html><body><pre>{html.escape(render_markdown(summary, diffs))}</pre></body></html>\n"
