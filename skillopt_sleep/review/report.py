"""The morning report of a night: ``report.md`` and a self-contained ``report.html``.

``report.md`` is rendered here, ``report.html`` in :mod:`.report_html`, from the same helpers.
Both show the same things, in the same order: the decision and its reason, the evidence edit by
edit (the tally of accepted, refused and inconclusive edits; where each edit was tested, on how many
fresh rollouts, pass rates, p-values, and why it was refused), the edits, the rejected edits with
their reasons, what was skipped, the calls/tokens/cost per role, and the diff of each file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ..counting import Usage
from ..models import Counts, Edit, EditEvidence, NightSummary, unconfirmed_words
from ..redact import redact
from ..shorten import at_word

MAX_SHOWN = (
    240  # characters of a rejected edit shown (it may be long: that can be why it was refused)
)
_DECISION_TEXT = {
    "accept": "ACCEPT: the candidate is staged for review",
    "reject": "REJECT: nothing staged",
    "no_evidence": "NO EVIDENCE: nothing staged",
    "budget_exhausted": "BUDGET EXHAUSTED: nothing staged",
    "outage": "OUTAGE: the backend answered nothing; nothing staged, no task consumed",
}


def decision_text(s: NightSummary, outcome: str = "") -> str:
    """The decision as a heading; once the review decided (``outcome``), staging is past."""
    text = _DECISION_TEXT[s.decision]
    return text.replace("is staged", "was staged") if outcome else text


def _when(summary: NightSummary) -> str:
    start = f"{summary.started_at:%Y-%m-%d %H:%M} UTC"
    if summary.finished_at is None:
        return f"started {start}"
    return f"{start} to {summary.finished_at:%H:%M} UTC"


def visible(text: str) -> str:
    """``text`` with every control, invisible or direction-changing character written as an escape
    (``\x1b``, ``\u200b``): a refused rule's terminal escape must show, never act on a terminal."""
    return "".join(
        ch if ch.isprintable() or ch == " " else ch.encode("unicode_escape").decode("ascii")
        for ch in text
    )


def _flat(text: str) -> str:
    """``text`` on one line, redacted, every hidden character shown."""
    return visible(" ".join(redact(text).split()))


def _one_line(text: str) -> str:
    """``text`` on one line, cut at a word past :data:`MAX_SHOWN` characters."""
    return at_word(_flat(text), MAX_SHOWN)


def describe_edit(edit: Edit) -> str:
    """``memory add: Use uv.`` / ``skill replace: old -> new`` / ``CLAUDE.md remove: old``."""
    if edit.op == "replace":
        what = f"{_one_line(edit.old or '')!r} -> {_one_line(edit.content)!r}"
    elif edit.op == "remove":
        what = repr(_one_line(edit.old or edit.content))
    else:
        what = _one_line(edit.content)
    return f"{edit.target} {edit.op}: {what}"


EVIDENCE_HEADER = (
    "verdict",
    "edit",
    "tested on",
    "rollouts / side",
    "where it acts",
    "p",
    "elsewhere",
    "p (harm)",
    "why",
)


def _rates(c: Counts) -> str:
    if not c.before_n or not c.after_n:
        return "-"
    return f"{c.before_pass}/{c.before_n} -> {c.after_pass}/{c.after_n}"


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"


def evidence_row(ev: EditEvidence) -> tuple[str, ...]:
    """One edit's evidence as table cells, in :data:`EVIDENCE_HEADER` order."""
    where = (
        f"{len(ev.cited)} cited + {len(ev.unseen)} unseen same-kind; {len(ev.harm_tasks)} others"
    )
    per_side = (
        f"{ev.efficacy.after_n} + {ev.harm.after_n}"
        if ev.harm.after_n
        else str(ev.efficacy.after_n)
    )
    p_eff = _p(ev.p_efficacy) + (f" (unseen {_p(ev.p_unseen)})" if ev.p_unseen is not None else "")
    held = f"; {unconfirmed_words(ev.unconfirmed)}" if ev.unconfirmed else ""
    return (
        ev.verdict.replace("_", " ") + (", unconfirmed" if ev.unconfirmed else ""),
        describe_edit(ev.edit),
        where,
        per_side,
        _rates(ev.efficacy),
        p_eff,
        _rates(ev.harm),
        _p(ev.p_harm),
        _one_line(ev.reason) + held,
    )


_SKIPPED = {"over_budget", "inconclusive", "no_evidence"}


def edit_status(ev: EditEvidence, s: NightSummary) -> str:
    """What became of a tested edit, in the words the user acts on: staged until it is adopted."""
    if ev.verdict == "accepted":
        return "would be staged" if s.dry_run else ("staged" if s.proposal_dir else "not staged")
    if ev.verdict == "over_budget":
        return "skipped: over budget"
    kind = "skipped" if ev.verdict in _SKIPPED else "refused"
    return f"{kind}: {ev.verdict.replace('_', ' ')}"


def _edit_word(e: Edit, s: NightSummary) -> str:
    if e.status != "applied":
        return e.status
    return "would be staged" if s.dry_run else "staged"


def edit_number(s: NightSummary, edit: Edit) -> int | None:
    """The number ``review``, ``adopt N`` and ``reject N`` know an edit of the night by."""
    key = edit.key()
    return next((n for n, e in enumerate(s.edits, start=1) if e.key() == key), None)


def marked_status(ev: EditEvidence, s: NightSummary, marks: Sequence[str]) -> str:
    """:func:`edit_status`, or what the user decided for the edit (``marks``: one word per edit
    of the night, once the review decided any)."""
    n = edit_number(s, ev.edit) if ev.verdict == "accepted" else None
    return marks[n - 1] if n is not None and len(marks) >= n else edit_status(ev, s)


def edit_label(ev: EditEvidence, s: NightSummary) -> str:
    """``edit 2`` for a tested edit the night staged, else ""."""
    n = edit_number(s, ev.edit) if ev.verdict == "accepted" else None
    return f"edit {n}" if n is not None else ""


def rejected_shown(s: NightSummary) -> list[Edit]:
    """The night's rejected edits, each once, none of them among its edits (a night stored
    before they were recorded once may list one twice)."""
    seen: set[str] = set()
    out = []
    for e in s.rejected_edits:
        if e not in s.edits and e.key() not in seen:
            seen.add(e.key())
            out.append(e)
    return out


def _counts_words(label: str, c: Counts) -> str:
    if not c.after_n:
        return f"{label}: not tested."
    return f"{label}: {c.after_pass} of {c.after_n} attempts right, was {c.before_pass} of {c.before_n}."


def evidence_words(ev: EditEvidence) -> str:
    """An edit's evidence in plain words: passes where it acts and on the other tasks."""
    words = _counts_words(f"Where it acts ({len(ev.cited) + len(ev.unseen)} tasks)", ev.efficacy)
    if ev.harm.after_n:
        words += " " + _counts_words(f"On the {len(ev.harm_tasks)} other tasks", ev.harm)
    return words + (f" {_sentence(held_back(ev))}" if ev.unconfirmed else "")


def held_back(ev: EditEvidence) -> str:
    """What an unconfirmed edit was not checked on, and what follows from it."""
    return (
        f"{unconfirmed_words(ev.unconfirmed)}: never auto-adopted; the next night that has the "
        "missing evidence retests it first"
    )


def evidence_stats(ev: EditEvidence) -> str:
    """The numbers behind the words, for whoever wants them."""
    parts = [f"p = {_p(ev.p_efficacy)} (level {_p(ev.alpha)})"]
    if ev.p_unseen is not None:
        parts.append(f"unseen p = {_p(ev.p_unseen)}")
    if ev.p_harm is not None:
        parts.append(f"harm p = {_p(ev.p_harm)}")
    return "; ".join([*parts, f"{ev.looks} look(s), {ev.errored} errored"])


def tasks_line(s: NightSummary) -> str:
    line = f"{s.n_holdout} holdout tasks, {s.n_train} train tasks"
    if s.errored_rollouts:
        line += f"; {s.errored_rollouts} rollouts errored (excluded, not scored 0)"
    return line + "."


SPEND_HEADER = ("role", "calls", "tokens (in / out)", "cost")


def _role_usd(u: Usage) -> str:
    """A role's spend: ``$0.0123``; with calls of no price, ``at least $0.0123`` or ``$?``."""
    if not u.unpriced_calls:
        return f"${u.cost_usd:.4f}"
    return f"at least ${u.cost_usd:.4f}" if u.cost_usd > 0 else "$?"


def spend_rows(s: NightSummary) -> list[tuple[str, str, str, str]]:
    """(role, calls, tokens, cost) rows, then the night's total."""
    rows = [
        (
            role,
            str(u.calls),
            f"{u.tokens:,} ({u.input_tokens:,} / {u.output_tokens:,})",
            _role_usd(u),
        )
        for role, u in sorted(s.usage_by_role.items())
    ]
    rows.append(("total", str(s.calls), f"{s.tokens:,}", s.spent_usd()))
    return rows


def saved_line(s: NightSummary) -> str:
    parts = ", ".join(f"{part} {n}" for part, n in s.gate_rollouts.items() if n)
    saved = f"tests decided early saved {s.saved_rollouts} rollouts."
    if not parts:
        return saved[0].upper() + saved[1:]
    return f"The gate drew {sum(s.gate_rollouts.values())} fresh rollouts ({parts}); {saved}"


def next_step(s: NightSummary) -> str:
    if s.proposal_dir and not s.dry_run:
        return (
            "Nothing live has changed. Adopt with `skillopt-sleep adopt`, discard with "
            "`skillopt-sleep reject`; `skillopt-sleep rollback` undoes an adoption."
        )
    return "Nothing was staged and nothing live has changed."


# -- Markdown ----------------------------------------------------------------------------------


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def _md(text: str) -> str:
    """Inline Markdown-safe text: an HTML comment or tag in a rule must show, not vanish. Only a
    ``<`` that could open one is escaped, with a backslash: the raw file holds no entity
    (``p <= 0.004`` reads as it is)."""
    return re.sub(r"<(?=[A-Za-z/!?])", r"\\<", visible(text))


def _fence(body: str) -> str:
    """A fence longer than any backtick run inside ``body`` (a diff may hold code fences)."""
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    return "`" * max(3, longest + 1)


def _md_edits(s: NightSummary, marks: Sequence[str]) -> list[str]:
    """The evidence edit by edit, then the staged edits by number, with what became of each."""
    out = ["## Evidence, edit by edit", "", f"Edits: {s.tally.line()}.", ""]
    for ev in s.evidence:
        out += [
            f"- **{marked_status(ev, s, marks)}**"
            + (f" ({edit_label(ev, s)})" if edit_label(ev, s) else "")
            + f": {_md(describe_edit(ev.edit))}",
            f"  {_md(evidence_words(ev))} Why: {_md(_one_line(ev.reason))}",
            f"  <sub>{_md(evidence_stats(ev))}</sub>",
        ]
    out += [] if s.evidence else ["No edit was tested tonight."]
    out += ["", tasks_line(s), ""]
    out += [f"## Edits ({len(s.edits)})", ""]
    out += [
        f"- {n}. [{marks[n - 1] if len(marks) >= n else _edit_word(e, s)}] "
        f"{_md(describe_edit(e))}"
        + (f" ({unconfirmed_words(s.unconfirmed(e))})" if s.unconfirmed(e) else "")
        + (f" — why: {_md(_one_line(e.rationale))}" if e.rationale else "")
        for n, e in enumerate(s.edits, start=1)
    ]
    return out + (["- none"] if not s.edits else [])


def render_markdown(
    summary: NightSummary,
    diffs: Mapping[str, str],
    marks: Sequence[str] = (),
    outcome: str = "",
) -> str:
    """``report.md`` of a night; ``marks`` (one per edit) and ``outcome`` (a sentence) say what
    the review made of it once the user adopted or rejected any of it."""
    s = summary
    title = "dry run" if s.dry_run else "night"
    out = [
        f"# skillopt-sleep {title} {s.night_id}",
        "",
        f"Project: `{s.project}`  ",
        f"{_when(s)}",
        "",
    ]
    out += [
        f"## Decision: {decision_text(s, outcome)}",
        "",
        _md(s.reason or "(no reason given)"),
        "",
        *([f"**{_md(outcome)}**", ""] if outcome else []),
    ]
    out += _md_edits(s, marks)
    rejected = rejected_shown(s)
    by_you = [(n, e) for n, e in enumerate(s.edits, start=1) if marks[n - 1 : n] == ["rejected"]]
    out += ["", f"## Rejected edits ({len(rejected) + len(by_you)})", ""]
    out += [f"- {n}. {_md(describe_edit(e))} — **rejected at review**" for n, e in by_you]
    out += [f"- {_md(describe_edit(e))} — **{_md(_one_line(e.reason))}**" for e in rejected]
    out += ["- none"] if not (rejected or by_you) else []
    out += ["", "## Skipped", ""]
    skipped = [
        f"- {_md(describe_edit(ev.edit))} — {edit_status(ev, s)}: {_md(_one_line(ev.reason))}"
        for ev in s.evidence
        if ev.verdict in _SKIPPED
    ]
    skipped += [f"- {_md(_one_line(note))}" for note in s.skipped]
    out += skipped or ["- nothing"]
    if s.notes:
        # whole: a note says what evidence a rule waits for, and which rule
        out += ["", "## Also tonight", "", *(f"- {_md(_flat(note))}" for note in s.notes)]
    out += ["", "## Spend", "", "| " + " | ".join(SPEND_HEADER) + " |", "|---|--:|--:|--:|"]
    out += ["| " + " | ".join(row) + " |" for row in spend_rows(s)]
    out += ["", _md(_sentence(s.saving_note()))] if s.saving_note() else []
    out += ["", saved_line(s)] if s.saved_rollouts or s.gate_rollouts else []
    out += ["", "## Changes", ""]
    for name, diff in diffs.items():
        body = diff.replace("\r\n", "\n").rstrip("\n")
        fence = _fence(body)
        out += [f"### {name}", "", f"{fence}diff", body, fence, ""]
    if not diffs:
        out += ["No file changes.", ""]
    out += [_md(outcome) if outcome else next_step(s), ""]
    return "\n".join(out)
