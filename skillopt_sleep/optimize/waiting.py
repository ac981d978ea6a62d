"""Unconfirmed edits: accepted on a night too small to check them fully, held back, retested first.

An edit is accepted where it acts; two more checks keep a rule that only memorises its own task, or
that breaks the other tasks, from passing: unseen tasks of its kind must gain too, and the other
tasks must not lose. A night with one task, or no unseen task of the edit's kind, or no other
task, cannot run them, and saying nothing would make "1 cited + 0 unseen; 0 others" look like a
proof. Such an edit is staged *unconfirmed*: never auto-adopted, marked wherever it is shown, and
kept waiting (with the tasks the optimizer had seen when it wrote it) until a night has the
missing evidence. That night tests it first, outside its rounds' families: its efficacy was shown
on its own night, at that night's level, so it spends none of tonight's new edits' level and only
has to show what it lacked (a gain on unseen tasks of its kind, no harm on the other tasks). It
comes out confirmed, refused, or still waiting; a retest that does not confirm it ends its wait.
An edit shown to help and cut by its night's edit budget before its harm check waits the same way
(``budget``: it needs a harm check, and is not staged meanwhile), and so does a retest the budget cut.
An edit left inconclusive whose evidence over nights already reached :data:`CARRY_E` waits too
(``evidence``): the next night with an unseen task of its kind retests it first, out of the family,
and it passes only once its e-value over nights reaches ``1/evidence_alpha`` (a test martingale:
its chance of ever doing so with no effect stays below ``evidence_alpha``, and only fresh rollouts
of each night enter it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import TypeAdapter, ValidationError

from ..evidence.kinds import kin
from ..models import (
    EditEvidence,
    NightSummary,
    TaskRecord,
    Unconfirmed,
    WaitingEdit,
    unconfirmed_words,
)
from ..shorten import at_word
from ..store import Store

if TYPE_CHECKING:  # the gate's types: `status` reads what waits, and never imports the gate
    from ..evidence import Candidate, Trials
    from .seams import Guard

# A wait ends: after MAX_TRIES nights that retested it without confirming it (an inconclusive edit
# whose evidence keeps not growing enough), or MAX_NIGHTS nights in all (a kind the log no longer
# sees). It is dropped, not refused: proposed again, it starts afresh.
MAX_TRIES = 3
MAX_NIGHTS = 7
MIN_UNSEEN = 1  # unseen tasks of its kind the memorisation check needs (it draws its own rollouts)
MIN_OTHERS = 1  # other tasks the harm check needs
CARRY_E = 10.0  # evidence over nights from which an inconclusive edit waits to be retested first


def missing(ev: EditEvidence) -> list[Unconfirmed]:
    """The checks an accepted edit's night could not run: no unseen task, no other task."""
    out: list[Unconfirmed] = []
    if not ev.unseen:
        out.append("unseen")
    if not ev.harm_tasks:
        out.append("harm")
    return out


def kind_words(tasks: Iterable[TaskRecord]) -> str:
    """The kind of ``tasks`` in words: ``about tests`` from their tags, else ``of its kind``."""
    tags = sorted({tag for t in tasks for tag in t.tags})
    return f"about {', '.join(tags)}" if tags else "of its kind"


def needs_words(missing: Sequence[str], kind: str, unseen: int = 0, others: int = 0) -> str:
    """What a waiting edit still needs, given ``unseen`` and ``others`` tasks logged for it:
    ``1 more task about tests``; "" once it has everything."""
    parts = []
    more_unseen = MIN_UNSEEN - unseen if {"unseen", "evidence"} & set(missing) else 0
    more_others = MIN_OTHERS - others if {"harm", "budget"} & set(missing) else 0
    if more_unseen > 0:
        parts.append(f"{more_unseen} more task{'s' if more_unseen > 1 else ''} {kind}")
    if more_others > 0:
        parts.append(f"{more_others} more task{'s' if more_others > 1 else ''} of another kind")
    return " and ".join(parts)


def waiting_of(ev: EditEvidence, trials: Trials) -> WaitingEdit:
    """The record an unconfirmed edit of tonight's waits with: what it lacked, its tasks, what
    it needs (counted on the log's tasks tonight knows, as ``status`` counts it)."""
    by_id = {t.id: t for t in trials.tasks}
    cited = [by_id[i] for i in ev.cited if i in by_id]
    w = WaitingEdit(
        edit=ev.edit.model_copy(update={"status": "proposed", "reason": ""}),
        missing=list(ev.unconfirmed),
        cited=list(ev.cited),
        seen=sorted(trials.shown | set(ev.cited)),
        kind=kind_words(cited),
    )
    return recounted(w, trials)


def recounted(w: WaitingEdit, trials: Trials) -> WaitingEdit:
    """``w`` with what it still needs counted on tonight's tasks and the log's older ones, so a
    need a later night met is not repeated."""
    logged = {t.id: t for t in [*trials.older, *trials.tasks]}
    return w.model_copy(update={"needs": still_needs(w, list(logged.values()))})


def still_missing(w: WaitingEdit, gaps: Sequence[Unconfirmed]) -> list[Unconfirmed]:
    """What a retested edit still lacks: a check it passed on an earlier night stays passed (each
    on fresh rollouts, the edit unchanged), so only what it lacked then and tonight too (one the
    budget cut lacked its harm check)."""
    return [g for g in gaps if g in _needs(w)]


def _needs(w: WaitingEdit) -> set[str]:
    """The checks a retest of ``w`` must run: what it lacked; a harm check for one the budget cut
    or left inconclusive, and an unseen task for one left inconclusive."""
    needs: set[str] = set(w.missing)
    if {"budget", "evidence"} & needs:
        needs.add("harm")
    if "evidence" in needs:
        needs.add("unseen")
    return needs


def carries(ev: EditEvidence, w: WaitingEdit | None) -> bool:
    """Whether inconclusive ``ev`` waits for a retest: short of evidence, not of a gain on unseen
    tasks, with its evidence over nights at :data:`CARRY_E` or more."""
    return (
        (w is None or "evidence" in w.missing)
        and ev.reason.startswith("not enough evidence")
        and (ev.e_total or 0.0) >= CARRY_E
    )


def held_back(ev: EditEvidence, trials: Trials, gaps: list[Unconfirmed]) -> WaitingEdit:
    """The record an edit tonight did not stage waits with (``gaps``: why), counted on tonight's tasks."""
    return waiting_of(ev.model_copy(update={"unconfirmed": gaps}), trials)


def over_budget(ev: EditEvidence, trials: Trials) -> WaitingEdit:
    """The record an edit tonight's budget cut waits with: it helps where it acts, at tonight's
    level, and lacks its harm check (and the unseen check when tonight had no unseen task)."""
    gaps: list[Unconfirmed] = ["budget"] if ev.unseen else ["budget", "unseen"]
    return held_back(ev, trials, gaps)


@dataclass(frozen=True)
class NotTonight:
    """Why a waiting edit is not retested tonight, and whether it keeps waiting."""

    why: str
    keeps_waiting: bool = True


def retest_candidate(
    w: WaitingEdit, trials: Trials, guard: Guard, known: Mapping[str, TaskRecord] | None = None
) -> Candidate | NotTonight:
    """``w`` placed for tonight's tests, or why it is not retested tonight: its tasks are no
    longer logged, tonight lacks what it is missing (it keeps waiting), or it no longer applies to
    the files (adopted by hand, or refused by the guards since). The tasks it came from are
    replayed whether tonight selected them or not (``known``: the log's, by id)."""
    from ..evidence import Candidate

    by_id = {**(known or {}), **{t.id: t for t in trials.tasks}}
    addressed = [by_id[i] for i in w.cited if i in by_id]
    if not addressed:
        return NotTonight("the tasks it came from are no longer in the log")
    seen = set(w.seen)
    unseen = kin(addressed, [t for t in trials.tasks if t.id not in seen])
    room = max(0, trials.policy.max_efficacy_tasks - len(addressed))
    unseen = sorted(unseen, key=lambda t: t.id)[:room]
    acting = {t.id for t in [*addressed, *unseen]}
    lacks = [
        m
        for m, ok in (
            ("unseen", bool(unseen)),
            ("harm", any(t.id not in acting for t in trials.tasks)),
        )
        if m in _needs(w) and not ok
    ]
    if lacks:
        words = {"unseen": f"unseen task {w.kind}", "harm": "task of another kind"}
        return NotTonight("tonight has no " + " and no ".join(words[m] for m in lacks))
    outcome = guard.combine([w.edit], budget=1)
    if not outcome.applied:
        why = outcome.rejected[0].reason if outcome.rejected else "it is in the files already"
        return NotTonight(f"it no longer applies: {why}", keeps_waiting=False)
    cand = Candidate(outcome.applied[0], outcome.files, 1, addressed, unseen)
    cand.by_evidence = "evidence" in w.missing
    cand.carried = "" if cand.by_evidence else f"shown on night {w.since or '-'}"
    cand.schedule = trials.allocation.efficacy_schedule(
        trials.policy, [t.id for t in addressed], [t.id for t in unseen]
    )
    return cand


def retest_note(w: WaitingEdit, ev: EditEvidence) -> str:
    """One line: what the retest of a waiting edit decided."""
    held = {"budget": "over the edit budget", "evidence": "inconclusive"}.get(
        w.missing[0] if w.missing else "", "unconfirmed"
    )
    head = f"retested first, {held} since night {w.since or '-'}: {at_word(w.edit.content, 80)!r}"
    if ev.verdict == "accepted" and not ev.unconfirmed:
        return f"{head}: confirmed ({ev.reason})"
    if ev.verdict == "accepted":
        return f"{head}: helps, still {unconfirmed_words(ev.unconfirmed)}"
    return f"{head}: {ev.verdict.replace('_', ' ')} ({ev.reason})"


def rephrasing_tested(cand: Candidate, rewords: Sequence[WaitingEdit], trials: Trials) -> bool:
    """Whether tonight tests ``cand``, a new phrasing of waiting edits (``rewords``) tonight cannot
    retest: only where it would show what they lack (a gain on unseen tasks of its kind, no harm on
    the other tasks); else it is merged into them, and their wait goes on. Its unseen tasks leave
    out those they were written from: the optimizer was shown their text, and a rule drawn from a
    task is no proof that it is more than a memory of it."""
    seen = {i for w in rewords for i in w.seen}
    if any(t.id in seen for t in cand.unseen):
        cand.unseen = [t for t in cand.unseen if t.id not in seen]
        cand.schedule = trials.allocation.efficacy_schedule(
            trials.policy, [t.id for t in cand.addressed], [t.id for t in cand.unseen]
        )
    acting = {t.id for t in [*cand.addressed, *cand.unseen]}
    has = {"unseen": bool(cand.unseen), "harm": any(t.id not in acting for t in trials.tasks)}
    return all(has.get(m, True) for w in rewords for m in _needs(w))


def superseded_line(w: WaitingEdit, ev: EditEvidence) -> str:
    """One line: ``w`` stops waiting, as tonight's new phrasing of it (``ev``) takes its place."""
    new = ev.edit.content
    how = (
        "proposed again"
        if ev.edit.key() == w.edit.key()
        else f"proposed again as {at_word(new, 80)!r}"
    )
    fate = (
        "accepted in its place"
        if ev.verdict == "accepted"
        else "shown to help; it waits in its place"
    )
    return (
        f"no longer waits, since night {w.since}: {at_word(w.edit.content, 80)!r}: {how}, tested on "
        f"tonight's tasks and {fate}"
    )


def aged(
    waiting: Sequence[WaitingEdit], tested: Iterable[str]
) -> tuple[list[WaitingEdit], list[str]]:
    """``waiting`` one night older (``tested``: the keys of the edits tonight retested), and one
    line for each that stops waiting tonight: past :data:`MAX_TRIES` or :data:`MAX_NIGHTS`.
    Only edits of earlier nights age (tonight's have no ``since`` yet)."""
    tried, kept, lines = set(tested), [], []
    for w in waiting:
        if w.since:
            w = w.model_copy(
                update={"nights": w.nights + 1, "tries": w.tries + (w.edit.key() in tried)}
            )
        if w.tries >= MAX_TRIES or w.nights >= MAX_NIGHTS:
            lines.append(stops_line(w))
        else:
            kept.append(w)
    return kept, lines


def stops_line(w: WaitingEdit) -> str:
    """One line: why ``w`` no longer waits."""
    why = (
        f"retested on {w.tries} nights without confirming it"
        if w.tries >= MAX_TRIES
        else f"waited {w.nights} nights without the evidence to confirm it"
    )
    return (
        f"no longer waits, since night {w.since}: {at_word(w.edit.content, 80)!r}: {why}; "
        "proposed again, it starts afresh"
    )


# -- kept between nights, in the store's meta table (one JSON list a project) ----------------------

PREFIX = "waiting:"
_LIST = TypeAdapter(list[WaitingEdit])


def load_waiting(store: Store, project: str) -> list[WaitingEdit]:
    """The project's unconfirmed edits waiting for evidence (none: an empty list)."""
    raw = store.get_meta(PREFIX + project)
    if raw is None:
        return []
    try:
        return _LIST.validate_json(raw)
    except ValidationError:
        return []  # written by another version: nothing waits, rather than a wrong edit


def save_waiting(store: Store, project: str, waiting: Sequence[WaitingEdit]) -> None:
    store.set_meta(PREFIX + project, _LIST.dump_json(list(waiting)).decode())


def still_needs(w: WaitingEdit, tasks: Sequence[TaskRecord]) -> str:
    """What ``w`` needs, counted on the project's log ``tasks`` now ("" once it has it all)."""
    by_id = {t.id: t for t in tasks}
    cited = [by_id[i] for i in w.cited if i in by_id]
    acting = {t.id for t in [*cited, *kin(cited, tasks)]}
    unseen = len([t for t in kin(cited, tasks) if t.id not in set(w.seen)])
    others = len([t for t in tasks if t.id not in acting])
    return needs_words(w.missing, w.kind, unseen, others)


def waiting_line(w: WaitingEdit) -> str:
    """One line for the night's notes: an edit that waits, why, and what it needs."""
    needs = f"; it needs {w.needs}" if w.needs else ""
    return (
        f"waits for evidence since night {w.since}: {at_word(w.edit.content, 80)!r} "
        f"({unconfirmed_words(w.missing)}){needs}; the next night that has it retests it first"
    )


def proposed_again_line(again: Sequence[WaitingEdit]) -> str:
    """One line: tonight's optimizer proposed ``again`` once more, edits already waiting for
    evidence tonight could not give them; merged into their wait, they were not tested again."""
    n = len(again)
    what = f"the {n} edits" if n > 1 else "the edit"
    they, wait = ("they", "wait") if n > 1 else ("it", "waits")
    needs = sorted({w.needs for w in again})
    if needs == [""]:
        until = f"{they} {wait} for a night that can retest {'them' if n > 1 else 'it'}"
    elif len(needs) == 1:
        until = (
            f"{they} {wait} for {needs[0]}; the next night that has it retests "
            f"{'them' if n > 1 else 'it'} first"
        )
    else:
        until = f"{they} {wait} for the evidence each lacks (`skillopt-sleep status` lists it)"
    return f"the optimizer proposed again {what} already waiting for evidence; {until}"


def still_staged_notes(
    store: Store, before: Sequence[WaitingEdit], summary: NightSummary
) -> list[str]:
    """For each waiting edit tonight retested and did not confirm, whose night still stages it:
    how to drop it there (the night stays staged until the user decides)."""
    verdicts = {e.edit.key(): e for e in summary.evidence}
    notes = []
    for w in before:
        ev = verdicts.get(w.edit.key())
        if ev is None or ev.verdict == "accepted":
            continue
        row = store.night(w.since)
        if row is None or row.state != "staged":
            continue
        keys = [e.key() for e in row.summary.edits]
        if w.edit.key() in keys:
            n = keys.index(w.edit.key()) + 1
            notes.append(
                f"night {w.since} still stages it as edit {n}, not confirmed tonight "
                f"({ev.verdict.replace('_', ' ')}): `skillopt-sleep reject {w.since} {n}` drops it"
            )
    return notes
