"""The morning report of a night: ``report.md`` and a self-contained ``report.html``.

Both show the same things, in the same order: the decision and its reason, the evidence edit by
edit (the tally of accepted, refused and inconclusive edits; where each edit was tested, on how many
fresh rollouts, pass rates, p-values, and why it was refused), the edits, the rejected edits with
their reasons, what was skipped, the calls/tokens/cost per role, and the diff of each file.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping

from ..models import Counts, Edit, EditEvidence, NightSummary
from ..redact import redact

MAX_SHOWN = 240  # characters of a rejected edit shown (it may be long: that can be why it was refused)
_DECISION_TEXT = {
    "accept": "ACCEPT: the candidate is staged for review",
    "reject": "REJECT: nothing staged",
    "no_evidence": "NO EVIDENCE: nothing staged",
    "budget_exhausted": "BUDGET EXHAUSTED: nothing staged",
    "outage": "OUTAGE: the backend answered nothing; nothing staged, no task consumed",
}


def _when(summary: NightSummary) -> str:
    start = f"{summary.started_at:%Y-%m-%d %H:%M} UTC"
    if summary.finished_at is None:
        return f"started {start}"
    return f"{start} to {summary.finished_at:%H:%M} UTC"


def _one_line(text: str) -> str:
    flat = " ".join(redact(text).split())
    return flat if len(flat) <= MAX_SHOWN else flat[: MAX_SHOWN - 1] + "…"


def describe_edit(edit: Edit) -> str:
    """``memory add: Use uv.`` / ``skill replace: old -> new`` / ``CLAUDE.md remove: old``."""
    if edit.op == "replace":
        what = f"{_one_line(edit.old or '')!r} -> {_one_line(edit.content)!r}"
    elif edit.op == "remove":
        what = repr(_one_line(edit.old or edit.content))
    else:
        what = _one_line(edit.content)
    return f"{edit.target} {edit.op}: {what}"


EVIDENCE_HEADER = ("verdict", "edit", "tested on", "rollouts / side", "where it acts", "p", "elsewhere",
                   "p (harm)", "why")


def _rates(c: Counts) -> str:
    if not c.before_n or not c.after_n:
        return "-"
    return f"{c.before_pass}/{c.before_n} -> {c.after_pass}/{c.after_n}"


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"


def evidence_row(ev: EditEvidence) -> tuple[str, ...]:
    """One edit's evidence as table cells, in :data:`EVIDENCE_HEADER` order."""
    where = f"{len(ev.cited)} cited + {len(ev.unseen)} unseen same-kind; {len(ev.harm_tasks)} others"
    per_side = f"{ev.efficacy.after_n} + {ev.harm.after_n}" if ev.harm.after_n else str(ev.efficacy.after_n)
    p_eff = _p(ev.p_efficacy) + (f" (unseen {_p(ev.p_unseen)})" if ev.p_unseen is not None else "")
    return (ev.verdict.replace("_", " "), describe_edit(ev.edit), where, per_side, _rates(ev.efficacy), p_eff,
            _rates(ev.harm), _p(ev.p_harm), _one_line(ev.reason))


def tasks_line(s: NightSummary) -> str:
    line = f"{s.n_holdout} holdout tasks, {s.n_train} train tasks"
    if s.errored_rollouts:
        line += f"; {s.errored_rollouts} rollouts errored (excluded, not scored 0)"
    return line + "."


SPEND_HEADER = ("role", "calls", "tokens (in / out)", "cost")


def spend_rows(s: NightSummary) -> list[tuple[str, str, str, str]]:
    """(role, calls, tokens, cost) rows, then the night's total."""
    rows = [
        (role, str(u.calls), f"{u.tokens:,} ({u.input_tokens:,} / {u.output_tokens:,})", f"${u.cost_usd:.4f}")
        for role, u in sorted(s.usage_by_role.items())
    ]
    rows.append(("total", str(s.calls), f"{s.tokens:,}", f"${s.cost_usd:.4f}"))
    return rows


def saved_line(s: NightSummary) -> str:
    return f"Tests decided at their first look saved {s.saved_rollouts} rollouts."


def next_step(s: NightSummary) -> str:
    if s.proposal_dir and not s.dry_run:
        return ("Nothing live has changed. Adopt with `skillopt-sleep adopt`, discard with "
                "`skillopt-sleep reject`; `skillopt-sleep rollback` undoes an adoption.")
    return "Nothing was staged and nothing live has changed."


# -- Markdown ----------------------------------------------------------------------------------


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def _md(text: str) -> str:
    """Inline Markdown-safe text: an HTML comment or tag in a rule must show, not vanish."""
    return text.replace("<", "&lt;")


def _fence(body: str) -> str:
    """A fence longer than any backtick run inside ``body`` (a diff may hold code fences)."""
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    return "`" * max(3, longest + 1)


def render_markdown(summary: NightSummary, diffs: Mapping[str, str]) -> str:
    """``report.md`` of a night."""
    s = summary
    title = "dry run" if s.dry_run else "night"
    out = [f"# skillopt-sleep {title} {s.night_id}", "", f"Project: `{s.project}`  ", f"{_when(s)}", ""]
    out += [f"## Decision: {_DECISION_TEXT[s.decision]}", "", _md(s.reason or "(no reason given)"), ""]
    out += ["## Evidence, edit by edit", "", f"Edits: {s.tally.line()}.", ""]
    if s.evidence:
        out += ["| " + " | ".join(EVIDENCE_HEADER) + " |", "|" + "---|" * len(EVIDENCE_HEADER)]
        out += ["| " + " | ".join(_md(cell).replace("|", "\\|") for cell in evidence_row(ev)) + " |"
                for ev in s.evidence]
    else:
        out += ["No edit was tested tonight."]
    out += ["", tasks_line(s), ""]
    out += [f"## Edits ({len(s.edits)})", ""]
    out += [f"- [{e.status}] {_md(describe_edit(e))}" + (f" — why: {_md(_one_line(e.rationale))}"
                                                        if e.rationale else "") for e in s.edits]
    out += ["- none"] if not s.edits else []
    rejected = [e for e in s.rejected_edits if e not in s.edits]
    out += ["", f"## Rejected edits ({len(rejected)})", ""]
    out += [f"- {_md(describe_edit(e))} — **{_md(_one_line(e.reason))}**" for e in rejected]
    out += ["- none"] if not rejected else []
    out += ["", "## Skipped", ""]
    out += [f"- {_md(_one_line(note))}" for note in s.skipped] or ["- nothing"]
    out += ["", "## Spend", "", "| " + " | ".join(SPEND_HEADER) + " |", "|---|--:|--:|--:|"]
    out += ["| " + " | ".join(row) + " |" for row in spend_rows(s)]
    out += ["", _md(_sentence(s.saving_note()))] if s.saving_note() else []
    out += ["", saved_line(s)] if s.saved_rollouts else []
    out += ["", "## Changes", ""]
    for name, diff in diffs.items():
        body = diff.replace("\r\n", "\n").rstrip("\n")
        fence = _fence(body)
        out += [f"### {name}", "", f"{fence}diff", body, fence, ""]
    if not diffs:
        out += ["No file changes.", ""]
    out += [next_step(s), ""]
    return "\n".join(out)


# -- HTML --------------------------------------------------------------------------------------

_CSS = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:980px;margin:2em auto;
padding:0 1em;color:#1f2328;background:#fff}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #d0d7de}
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.25em .7em;text-align:left}
td.n{text-align:right}code{background:#f6f8fa;padding:0 .2em}
.decision{display:inline-block;padding:.2em .7em;border-radius:1em;font-weight:600}
.accept{background:#dafbe1;color:#116329}.reject,.budget_exhausted{background:#ffebe9;color:#82071e}
.no_evidence{background:#fff8c5;color:#7d4e00}.muted{color:#59636e}
pre.diff{background:#f6f8fa;padding:.8em;overflow-x:auto;font:13px/1.4 ui-monospace,monospace}
.add{color:#116329;background:#dafbe1}.del{color:#82071e;background:#ffebe9}.hunk{color:#0550ae}
.head{font-weight:600}
"""


def _diff_html(diff: str) -> str:
    lines = []
    for line in diff.replace("\r\n", "\n").rstrip("\n").split("\n"):
        cls = ("head" if line.startswith(("+++", "---")) else "add" if line.startswith("+")
               else "del" if line.startswith("-") else "hunk" if line.startswith("@@") else "")
        text = html.escape(line)
        lines.append(f'<span class="{cls}">{text}</span>' if cls else text)
    return '<pre class="diff">' + "\n".join(lines) + "</pre>"


def _h(text: str) -> str:
    """Escaped HTML, with `code spans` shown as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def _list(items: list[str], empty: str) -> str:
    if not items:
        return f'<p class="muted">{empty}</p>'
    return "<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>"


def _score_html(s: NightSummary) -> list[str]:
    e = html.escape
    tally = f"<p>Edits: {e(s.tally.line())}.</p>"
    if not s.evidence:
        return ["<h2>Evidence, edit by edit</h2>", tally, '<p class="muted">No edit was tested tonight.</p>']
    head = "<tr>" + "".join(f"<th>{e(h)}</th>" for h in EVIDENCE_HEADER) + "</tr>"
    rows = ["<tr>" + "".join(f"<td>{_h(cell)}</td>" for cell in evidence_row(ev)) + "</tr>" for ev in s.evidence]
    return ["<h2>Evidence, edit by edit</h2>", tally, "<table>", head, *rows, "</table>"]


def render_html(summary: NightSummary, diffs: Mapping[str, str]) -> str:
    """``report.html`` of a night: one file, no external resources, every value escaped."""
    s, e = summary, html.escape
    title = f"skillopt-sleep {'dry run' if s.dry_run else 'night'} {s.night_id}"
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{e(title)}</h1>",
        f'<p>Project: <code>{e(s.project)}</code><br><span class="muted">{e(_when(s))}</span></p>',
        f'<h2>Decision</h2><p><span class="decision {e(s.decision)}">{e(_DECISION_TEXT[s.decision])}</span></p>',
        f"<p>{e(s.reason or '(no reason given)')}</p>",
        *_score_html(s),
        f"<p>{e(tasks_line(s))}</p>",
        f"<h2>Edits ({len(s.edits)})</h2>",
        _list([f"[{e(x.status)}] {_h(describe_edit(x))}"
               + (f' <span class="muted">why: {e(_one_line(x.rationale))}</span>' if x.rationale else "")
               for x in s.edits], "none"),
    ]
    rejected = [x for x in s.rejected_edits if x not in s.edits]
    parts += [f"<h2>Rejected edits ({len(rejected)})</h2>",
              _list([f"{_h(describe_edit(x))} — <strong>{e(_one_line(x.reason))}</strong>" for x in rejected],
                    "none"),
              "<h2>Skipped</h2>", _list([e(_one_line(n)) for n in s.skipped], "nothing"),
              "<h2>Spend</h2><table><tr>" + "".join(f"<th>{h}</th>" for h in SPEND_HEADER) + "</tr>"]
    for row in spend_rows(s):
        parts.append(f"<tr><th>{e(row[0])}</th>" + "".join(f'<td class="n">{e(v)}</td>' for v in row[1:]) + "</tr>")
    saving = f"<p>{e(_sentence(s.saving_note()))}</p>" if s.saving_note() else ""
    saving += f"<p>{e(saved_line(s))}</p>" if s.saved_rollouts else ""
    parts.append(f"</table>{saving}<h2>Changes</h2>")
    for name, diff in diffs.items():
        parts += [f"<h3>{e(name)}</h3>", _diff_html(diff)]
    if not diffs:
        parts.append('<p class="muted">No file changes.</p>')
    parts += [f"<p>{_h(next_step(s))}</p>", "</body></html>", ""]
    return "\n".join(parts)
