"""``report.html``: the morning report as one page that reads at desktop and phone widths.

Tonight's evidence reads in plain words with a picture per edit ("18 of 20 attempts right, was 3
of 20", where the edit acts and on the other tasks); the p-values and levels are one click away.
Each edit shows a task it was made for, answered before and after. The rules adopted on earlier
nights follow, each with its corrections per week before and after adoption. One file: no script,
no external resource, every value escaped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

from ..models import EditEvidence, NightSummary
from .charts import RatePair, rate_bars, weekly_corrections
from .report import (
    SPEND_HEADER,
    _flat,
    _one_line,
    _sentence,
    decision_text,
    describe_edit,
    edit_label,
    held_back,
    marked_status,
    next_step,
    saved_line,
    spend_rows,
    tasks_line,
    visible,
)
from .rule_views import RuleView

CSS = """
*{box-sizing:border-box}
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:980px;margin:0 auto;
padding:1em;color:#1f2328;background:#fff;overflow-wrap:break-word}
h1{font-size:1.4em;margin:.3em 0}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #d0d7de}
code{background:#f6f8fa;padding:0 .2em;border-radius:3px;overflow-wrap:anywhere}
.muted{color:#59636e}.badge{display:inline-block;padding:.1em .6em;border-radius:1em;font-weight:600;font-size:.9em}
.accept,.staged,.working,.adopted{background:#dafbe1;color:#116329}
.reject,.budget_exhausted,.refused,.ignored,.contradicted,.rejected{background:#ffebe9;color:#82071e}
.no_evidence,.skipped,.inconclusive,.pending,.outage,.left_out,.rolled_back{background:#fff8c5;color:#7d4e00}
.card{border:1px solid #d0d7de;border-radius:8px;padding:.8em 1em;margin:.8em 0}
.rule{font-weight:600;margin:.4em 0}.warn{color:#82071e;font-weight:600}
details{margin:.4em 0}summary{cursor:pointer;color:#0969da}
.chart{display:block;max-width:100%;height:auto;margin:.4em 0}
.figure{margin:.4em 0}.legend{font-size:13px;color:#59636e;margin:.2em 0}
.key{display:inline-block;white-space:nowrap;margin-right:1em}
.swatch{display:inline-block;width:.8em;height:.8em;margin-right:.3em;border-radius:2px;vertical-align:-.05em}
.scroll{overflow-x:auto}table{border-collapse:collapse}\
td,th{border:1px solid #d0d7de;padding:.25em .6em;text-align:left}
td.n{text-align:right;white-space:nowrap}.nw{white-space:nowrap}.why{min-width:14em}
pre{background:#f6f8fa;padding:.7em;overflow-x:auto;font:13px/1.4 ui-monospace,monospace;white-space:pre}
pre.answer{white-space:pre-wrap;overflow-wrap:anywhere}
.add{color:#116329;background:#dafbe1}.del{color:#82071e;background:#ffebe9}.hunk{color:#0550ae}.head{font-weight:600}
"""

_REFUSED = {"harmful", "worse", "no_effect", "conflict"}
_SKIPPED = {"over_budget", "inconclusive", "no_evidence"}


def _esc(text: str, quote: bool = True) -> str:
    """Escaped HTML in which control and invisible characters show as escapes."""
    return html.escape(visible(text), quote=quote)


def _block(text: str) -> str:
    """Escaped HTML of a multi-line answer for a ``<pre>``: its line breaks and tabs kept as such,
    every other control or invisible character shown as an escape, as on one line."""
    lines = text.replace("\r\n", "\n").split("\n")
    return "\n".join(
        "\t".join(_esc(part, quote=False) for part in line.split("\t")) for line in lines
    )


_HYPHENATED = re.compile(r"(?<![\w.])\d[\d.:]*(?:[eE]?-[\d.:]*\d)+")


def prose(text: str) -> str:
    """Escaped HTML of a sentence whose numbers with a minus or a dash (``7.1e-05``, ``2026-03-01``)
    never break at it: a browser may wrap after any hyphen, which splits a number in two."""
    return _HYPHENATED.sub(r'<span class="nw">\g<0></span>', _esc(text))


def _h(text: str) -> str:
    """Escaped HTML, with `code spans` shown as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _esc(text))


def status_word(ev: EditEvidence, summary: NightSummary, adopted: bool) -> str:
    """What became of an edit, in the words the user acts on: staged until adopted."""
    if ev.verdict == "accepted":
        if summary.dry_run:
            return "would be staged"
        if not summary.proposal_dir:
            return "not staged"
        return "adopted" if adopted else "staged"
    if ev.verdict in _SKIPPED:
        return (
            "skipped: over budget"
            if ev.verdict == "over_budget"
            else f"skipped: {ev.verdict.replace('_', ' ')}"
        )
    return f"refused: {ev.verdict.replace('_', ' ')}"


def _css_class(word: str) -> str:
    return (
        re.split(r"[:(,]", word)[0].strip().replace(" ", "_")
        if not word.startswith("would")
        else "staged"
    )


_STATS = re.compile(r"\s*\((?:p|e|evidence over nights e) = [^)]*\)|\s*\(p = [^;)]*;[^)]*\)")


def plain_reason(reason: str) -> str:
    """The gate's reason without its numbers (they are under "Statistics")."""
    return _STATS.sub("", _one_line(reason)).strip() or _one_line(reason)


def pairs(ev: EditEvidence) -> list[RatePair]:
    """Passes before and after where the edit acts and on the other tasks."""
    e, h = ev.efficacy, ev.harm
    out = [
        RatePair(
            f"where it acts ({len(ev.cited) + len(ev.unseen)})",
            e.before_pass,
            e.before_n,
            e.after_pass,
            e.after_n,
        )
    ]
    if h.after_n:
        out.append(
            RatePair(
                f"elsewhere ({len(ev.harm_tasks)})",
                h.before_pass,
                h.before_n,
                h.after_pass,
                h.after_n,
            )
        )
    return out


def fell_elsewhere(ev: EditEvidence) -> bool:
    """An accepted edit whose passes on the other tasks fell, significant or not."""
    h = ev.harm
    return (
        ev.verdict == "accepted"
        and bool(h.before_n and h.after_n)
        and (h.after_pass * h.before_n < h.before_pass * h.after_n)
    )


def _stats(ev: EditEvidence) -> str:
    def num(v: float | None) -> str:
        return "-" if v is None else f"{v:.3g}"

    rows = [
        ("p-value where it acts (after the looks)", num(ev.p_efficacy)),
        ("its level tonight", num(ev.alpha)),
        ("p-value on unseen tasks of its kind", num(ev.p_unseen)),
        ("p-value of harm elsewhere", num(ev.p_harm)),
        ("e-value tonight / over nights", f"{num(ev.e_value)} / {num(ev.e_total)}"),
        ("looks", str(ev.looks)),
        ("rollouts that errored (left out)", str(ev.errored)),
    ]
    body = "".join(f'<tr><th>{_esc(k)}</th><td class="n">{_esc(v)}</td></tr>' for k, v in rows)
    body += f"<tr><th>the gate's reason</th><td>{prose(_one_line(ev.reason))}</td></tr>"
    return f'<details><summary>Statistics</summary><div class="scroll"><table>{body}</table></div></details>'


def _example(ev: EditEvidence) -> str:
    x = ev.example
    if x is None:
        return ""
    mark = {True: "right", False: "wrong"}
    return (
        f"<details><summary>A task it was made for: {_esc(_one_line(x.request))}</summary>"
        f'<p>Before the edit ({mark[x.before_passed]}):</p><pre class="answer">{_block(x.before)}</pre>'
        f'<p>After the edit ({mark[x.after_passed]}):</p><pre class="answer">{_block(x.after)}</pre>'
        "</details>"
    )


def edit_card(
    ev: EditEvidence, summary: NightSummary, adopted: bool = False, marks: Sequence[str] = ()
) -> str:
    word = status_word(ev, summary, adopted)
    word = marked_status(ev, summary, marks) if word == "staged" else word
    label = f"{edit_label(ev, summary)}, " if edit_label(ev, summary) else ""
    words = " ".join(_sentence(p.words()) for p in pairs(ev))
    warn = ""
    if fell_elsewhere(ev):
        warn = (
            f'<p class="warn">Passes on the other tasks fell ({ev.harm.before_pass} of {ev.harm.before_n} '
            f"to {ev.harm.after_pass} of {ev.harm.after_n}), though not enough to refuse it: look before "
            "you adopt.</p>"
        )
    if ev.unconfirmed:
        warn += f'<p class="warn">{_esc(_sentence(held_back(ev)))}</p>'
    return (
        f'<section class="card"><span class="badge {_css_class(word)}">{_esc(word)}</span> '
        f'<span class="muted">{_esc(label)}{_esc(ev.edit.target)} {_esc(ev.edit.op)}</span>'
        f'<p class="rule">{_h(_one_line(ev.edit.content))}</p><p>{_esc(words)}</p>{warn}'
        f'{rate_bars(pairs(ev))}<p class="muted">Why: {_esc(plain_reason(ev.reason))}</p>'
        f"{_example(ev)}{_stats(ev)}</section>"
    )


def rule_card(view: RuleView) -> str:
    r, o = view.rule, view.outcome
    verdict = o.verdict.replace(" ", "_").replace("-", "_")
    chart = weekly_corrections(
        o.weekly, _monday(r.adopted_at.date().isoformat(), o.weekly), o.sentence()
    )
    standing = (
        ""
        if view.standing == "in place"
        else f' <span class="muted">[{_esc(view.standing)}]</span>'
    )
    return (
        f'<section class="card"><span class="badge {verdict}">{_esc(o.verdict)}</span> '
        f'<span class="muted">rule {_esc(r.id)}, adopted {r.adopted_at:%Y-%m-%d}</span>{standing}'
        f'<p class="rule">{_h(r.text)}</p><p>{_esc(_sentence(o.sentence()))}</p>{chart}</section>'
    )


def _monday(day: str, weeks: Sequence[tuple[str, int, int]]) -> str:
    earlier = [w for w, _, _ in weeks if w <= day]
    return earlier[-1] if earlier else day


def _diff_html(diff: str) -> str:
    lines = []
    for line in diff.replace("\r\n", "\n").rstrip("\n").split("\n"):
        cls = (
            "head"
            if line.startswith(("+++", "---"))
            else "add"
            if line.startswith("+")
            else "del"
            if line.startswith("-")
            else "hunk"
            if line.startswith("@@")
            else ""
        )
        text = _esc(line)
        lines.append(f'<span class="{cls}">{text}</span>' if cls else text)
    return '<pre class="diff">' + "\n".join(lines) + "</pre>"


def _list(items: list[str], empty: str) -> str:
    if not items:
        return f'<p class="muted">{empty}</p>'
    return "<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>"


def page(title: str, body: Sequence[str]) -> str:
    """A whole page around ``body``: viewport set for phones, styles inline."""
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{_esc(title)}</title><style>{CSS}</style></head><body>",
            *body,
            "</body></html>",
            "",
        ]
    )


def _skipped(s: NightSummary) -> list[str]:
    items = [
        f"{_h(describe_edit(ev.edit))} — {_esc(status_word(ev, s, False))}: "
        f"{_esc(_one_line(ev.reason))}"
        for ev in s.evidence
        if ev.verdict in _SKIPPED
    ]
    return items + [_esc(_one_line(n)) for n in s.skipped]


def render_html(
    summary: NightSummary,
    diffs: Mapping[str, str],
    rules: Sequence[RuleView] = (),
    marks: Sequence[str] = (),
    outcome: str = "",
) -> str:
    """``report.html`` of a night (``rules``: the rules adopted on earlier nights, with their
    outcome; ``marks`` and ``outcome``: what the review made of its edits, as in ``report.md``)."""
    s, e = summary, _esc
    title = f"skillopt-sleep {'dry run' if s.dry_run else 'night'} {s.night_id}"
    body = [
        f"<h1>{e(title)}</h1>",
        f'<p>Project <code>{e(s.project)}</code><br><span class="muted">{e(_when(s))}</span></p>',
        f'<h2>Decision</h2><p><span class="badge {e(s.decision)}">{e(decision_text(s, outcome))}</span></p>',
        f"<p>{_h(s.reason or '(no reason given)')}</p>",
        *([f"<p><strong>{_h(outcome)}</strong></p>"] if outcome else []),
        f'<p class="muted">{e(tasks_line(s))}</p>',
    ]
    body += _edit_sections(s, marks)
    body += _rule_section(rules)
    body += _spend_section(s)
    body += _change_section(diffs)
    body.append(f"<p>{_h(outcome or next_step(s))}</p>")
    return page(title, body)


def _when(s: NightSummary) -> str:
    start = f"{s.started_at:%Y-%m-%d %H:%M} UTC"
    return f"started {start}" if s.finished_at is None else f"{start} to {s.finished_at:%H:%M} UTC"


def _edit_sections(s: NightSummary, marks: Sequence[str] = ()) -> list[str]:
    """Tonight's tested edits, those refused before testing, what was skipped, what else ran."""
    e = _esc
    tested = [ev for ev in s.evidence if ev.verdict not in _SKIPPED]
    body = [
        f"<h2>Tonight's edits ({len(tested)} tested)</h2>",
        f"<p>Edits: {e(s.tally.line())}.</p>",
    ]
    body += [edit_card(ev, s, marks=marks) for ev in tested] or [
        '<p class="muted">No edit was tested tonight.</p>'
    ]
    refused = [
        x
        for x in s.rejected_edits
        if x not in s.edits and x.key() not in {ev.edit.key() for ev in s.evidence}
    ]
    if refused:
        body += [
            f"<h2>Refused before testing ({len(refused)})</h2>",
            _list(
                [
                    f"{_h(describe_edit(x))} — <strong>{e(_one_line(x.reason))}</strong>"
                    for x in refused
                ],
                "",
            ),
        ]
    body += ["<h2>Skipped</h2>", _list(_skipped(s), "nothing")]
    if s.notes:
        body += ["<h2>Also tonight</h2>", _list([e(_flat(n)) for n in s.notes], "")]
    return body


def _rule_section(rules: Sequence[RuleView]) -> list[str]:
    if not rules:
        return []
    flagged = sum(v.flagged for v in rules)
    note = f' <span class="badge ignored">{flagged} need attention</span>' if flagged else ""
    return [f"<h2>Rules adopted earlier ({len(rules)}){note}</h2>", *(rule_card(v) for v in rules)]


def _spend_section(s: NightSummary) -> list[str]:
    e = _esc
    body = [
        '<h2>Spend</h2><div class="scroll"><table><tr>'
        + "".join(f"<th>{h}</th>" for h in SPEND_HEADER)
        + "</tr>"
    ]
    for row in spend_rows(s):
        body.append(
            f"<tr><th>{e(row[0])}</th>"
            + "".join(f'<td class="n">{e(v)}</td>' for v in row[1:])
            + "</tr>"
        )
    body.append("</table></div>")
    if s.saving_note():
        body.append(f"<p>{e(_sentence(s.saving_note()))}</p>")
    if s.saved_rollouts:
        body.append(f"<p>{e(saved_line(s))}</p>")
    return body


def _change_section(diffs: Mapping[str, str]) -> list[str]:
    body = ["<h2>Changes</h2>"]
    for name, diff in diffs.items():
        body += [f"<h3>{_esc(name)}</h3>", _diff_html(diff)]
    if not diffs:
        body.append('<p class="muted">No file changes.</p>')
    return body
