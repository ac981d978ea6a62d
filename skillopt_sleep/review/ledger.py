"""The ledger of adopted rules: what each rule is, where it was written, and what it was adopted for.

A night's accepted edit becomes a rule of the ledger when the night is adopted. The entry keeps
the rule's text, the live files it was written into, the night, the evidence it was adopted on,
the tasks it was made for (the cases it cites and the unseen tasks of their kind the gate tested
it on), the preferences those tasks' corrections stated, and the backend and model it was
validated on. Entries live in the store's meta table (``rule:<project>:<id>``), one JSON
document each, so reading the ledger needs no new table and an older store simply has none.

The ledger follows the files as they are: :func:`presence` tells whether the rule still stands
in each file's managed block, was reworded there by hand, or was removed by hand.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ProposalError
from ..evidence.kinds import request_words
from ..harvest.preferences import corrections
from ..models import Edit, EditEvidence, NightSummary, TaskRecord
from ..rules.managed_block import block_lines, same_rule
from ..store import NightRow, Store
from .proposals import load_staged

if TYPE_CHECKING:  # a type only: recomposing brings the guards and the rule text checks with it
    from .recompose import Subset

RuleState = Literal["adopted", "removed", "rolled_back"]
Presence = Literal["in place", "reworded", "removed by hand", "missing file"]
PREFIX = "rule:"
REWORDED = (
    0.5  # share of words a hand-edited line keeps with the rule to count as the rule reworded
)


class AdoptedRule(BaseModel):
    """One adopted rule, as kept in the store."""

    model_config = ConfigDict(extra="forbid")

    id: str
    project: str
    text: str
    target: str
    files: list[str]
    night_id: str
    adopted_at: datetime
    edit: Edit
    evidence: EditEvidence | None = None
    task_ids: list[str] = Field(
        default_factory=list
    )  # the tasks it acts on that the gate tested it on
    cited: list[str] = Field(default_factory=list)  # of those, the cases it was made from
    exemplars: list[str] = Field(
        default_factory=list
    )  # the requests of those tasks, for kind tests
    tags: list[str] = Field(default_factory=list)
    preference_keys: list[str] = Field(default_factory=list)
    checks: list[str] = Field(default_factory=list)  # what the user's corrections asked, described
    validated_on: str = ""  # "backend:model" of the replays that proved it
    state: RuleState = "adopted"
    state_at: datetime | None = None
    retest_model: str = (
        ""  # a model the user moved to; the rule is re-tested under it before it counts
    )
    session_model: str = ""  # the model the user's sessions used when it was adopted
    confirmed_models: list[str] = Field(default_factory=list)  # models a re-test confirmed it under
    retest_note: str = ""  # what the last re-test found
    night_text: str = ""  # the night's wording, when the user reworded the rule before adopting it

    @property
    def key(self) -> str:
        return f"{PREFIX}{self.project}:{self.id}"


def rule_id(edit: Edit) -> str:
    """A short stable id: the same rule adopted again keeps its id."""
    return "r" + edit.key()[:8]


def _candidates(row: NightRow, subset: Subset | None) -> dict[str, str]:
    """Live path -> the text adoption writes there (the staged candidates, or ``subset``'s)."""
    staged = load_staged(row)
    out = {}
    for f in staged.proposal.files:
        if subset is None:
            data = staged.read(f.candidate)
        elif f.name in subset.candidates:
            data = subset.candidates[f.name]
        else:
            continue
        out[f.live_path] = data.decode("utf-8", errors="replace")
    return out


def _rule_files(candidates: Mapping[str, str], text: str) -> list[str]:
    """The live files whose candidate holds ``text`` in its managed block."""
    return [
        path
        for path, candidate in candidates.items()
        if any(same_rule(line, text) for line in block_lines(candidate))
    ]


def entries_for_night(
    row: NightRow, tasks: Sequence[TaskRecord], now: datetime, subset: Subset | None = None
) -> list[AdoptedRule]:
    """The rules a staged night adds, as ledger entries (its applied add/replace edits; with
    ``subset``, those of the edits adopted, a reworded one in the user's words)."""
    evidence = {ev.edit.key(): ev for ev in row.summary.evidence if ev.verdict == "accepted"}
    by_id = {t.id: t for t in tasks}
    candidates = _candidates(row, subset)
    night_edits = subset.night_edits if subset else {}
    out = []
    for edit in subset.edits if subset else row.summary.edits:
        if edit.status != "applied" or edit.op == "remove" or not edit.content.strip():
            continue
        night_edit = night_edits.get(edit.key())
        ev = evidence.get((night_edit or edit).key())
        ids = list(
            dict.fromkeys([*edit.cites, *(ev.cited if ev else []), *(ev.unseen if ev else [])])
        )
        made_for = [by_id[i] for i in ids if i in by_id]
        sightings = [s for t in made_for for s in corrections(t)]
        out.append(
            AdoptedRule(
                id=rule_id(edit),
                project=row.project,
                text=edit.content.strip(),
                target=edit.target,
                files=_rule_files(candidates, edit.content),
                night_id=row.id,
                adopted_at=now,
                edit=edit,
                evidence=ev,
                task_ids=ids,
                cited=list(dict.fromkeys([*edit.cites, *(ev.cited if ev else [])])),
                exemplars=[t.intent for t in made_for],
                tags=sorted({tag for t in made_for for tag in t.tags}),
                preference_keys=sorted({s.key for s in sightings}),
                checks=sorted({c for s in sightings for c in s.checks}),
                validated_on=validated_on(row.summary),
                state_at=now,
                session_model=usual_model(made_for),
                night_text=night_edit.content if night_edit else "",
            )
        )
    return out


def validated_on(summary: NightSummary) -> str:
    """What a night's replays ran on: its target, and each agent's model where the real agent
    replayed tasks (``anthropic:m; agents: codex:gpt-5.5``)."""
    agents = ", ".join(f"{a}:{m}" for a, m in summary.agent_models.items())
    return f"{summary.target}; agents: {agents}" if agents else summary.target


def usual_model(tasks: Sequence[TaskRecord]) -> str:
    """The model most of ``tasks`` were answered by ("" when none says)."""
    named = Counter(t.model for t in tasks if t.model)
    return named.most_common(1)[0][0] if named else ""


def pending_retest(rule: AdoptedRule, current: str) -> AdoptedRule:
    """``rule``, marked for a re-test when the user's sessions moved to another model since."""
    if (
        not current
        or not rule.session_model
        or current == rule.session_model
        or current in rule.confirmed_models
    ):
        return rule
    return rule.model_copy(update={"retest_model": current})


def save(store: Store, rule: AdoptedRule) -> None:
    store.set_meta(rule.key, rule.model_dump_json())


def record_adoption(
    store: Store, row: NightRow, now: datetime, subset: Subset | None = None
) -> list[AdoptedRule]:
    """Add the rules of an adopted night (or of the ``subset`` of its edits adopted) to the ledger
    (a rule adopted again is renewed)."""
    edits = subset.edits if subset else row.summary.edits
    dropped = [e.content for e in edits if e.op == "remove" and e.status == "applied"]
    for old in rules(store, row.project):
        if any(same_rule(old.text, text) for text in dropped):
            save(store, old.model_copy(update={"state": "removed", "state_at": now}))
    if load_staged(row).proposal.memory is not None:
        _follow_moves(store, row.project, _candidates(row, subset))
    added = entries_for_night(row, store.list_tasks(project=row.project), now, subset)
    for rule in added:
        save(store, rule)
    return added


def _follow_moves(store: Store, project: str, written: Mapping[str, str]) -> None:
    """Earlier rules that a placement moved (from ``CLAUDE.md`` into ``AGENTS.md``, see
    :mod:`..rules.placement`) are kept under the files that now hold them, so a move never reads
    as a removal by hand. ``written`` maps each live path written to its new text."""
    for rule in rules(store, project):
        holds = {
            p: any(same_rule(line, rule.text) for line in block_lines(t))
            for p, t in written.items()
        }
        kept = [p for p in rule.files if holds.get(p, True)]
        files = kept + [p for p, held in holds.items() if held and p not in kept]
        if files and files != rule.files:
            save(store, rule.model_copy(update={"files": files}))


def record_rollback(store: Store, row: NightRow, now: datetime) -> None:
    """The rules a rolled-back night added are no longer adopted; the earlier rules it moved
    are followed back to the files that hold them again."""
    for rule in rules(store, row.project):
        if rule.night_id == row.id and rule.state == "adopted":
            save(store, rule.model_copy(update={"state": "rolled_back", "state_at": now}))
    if load_staged(row).proposal.memory is not None:
        back = {}
        for f in load_staged(row).proposal.files:
            try:
                back[f.live_path] = Path(f.live_path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                back[f.live_path] = ""
        _follow_moves(store, row.project, back)


def rules(
    store: Store, project: str | None, states: Iterable[RuleState] = ("adopted",)
) -> list[AdoptedRule]:
    """The ledger's rules of ``project`` (every project when None), oldest adoption first."""
    wanted = set(states)
    prefix = PREFIX if project is None else f"{PREFIX}{project}:"
    out = []
    for raw in store.meta_items(prefix).values():
        try:
            rule = AdoptedRule.model_validate_json(raw)
        except ValidationError:
            continue  # written by another version: not ours to judge
        if rule.state in wanted:
            out.append(rule)
    return sorted(out, key=lambda r: (r.adopted_at, r.id))


def find_rule(store: Store, project: str, wanted: str) -> AdoptedRule:
    """The adopted rule ``wanted`` (an id or a unique prefix of one) of ``project``."""
    every = rules(store, project)
    matches = [r for r in every if r.id == wanted] or [r for r in every if r.id.startswith(wanted)]
    if not matches:
        raise ProposalError(
            f"no adopted rule {wanted!r} in {project}",
            hint="see `skillopt-sleep rules` for the rules and their ids",
        )
    if len(matches) > 1:
        raise ProposalError(
            f"{wanted!r} matches {len(matches)} rules", hint="give more of the rule id"
        )
    return matches[0]


def _tokens(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _similar(rule: str, line: str) -> bool:
    """Whether ``line`` reads as ``rule`` reworded: it keeps all of the rule's words, or most of them."""
    wr, wl = _tokens(rule), _tokens(line)
    if not wr or not wl:
        return False
    return (
        wr <= wl
        or len(wr & wl) / len(wr | wl) >= REWORDED
        or bool(request_words(rule) and request_words(rule) == request_words(line))
    )


def presence(rule: AdoptedRule, texts: dict[str, str | None]) -> dict[str, tuple[Presence, str]]:
    """Per file of the rule: whether it stands as adopted, was reworded (the line now there), or
    was removed by hand. ``texts`` maps each file to its current text (None when it is gone)."""
    out: dict[str, tuple[Presence, str]] = {}
    for path in rule.files:
        text = texts.get(path)
        if text is None:
            out[path] = ("missing file", "")
            continue
        lines = block_lines(text)
        if any(same_rule(line, rule.text) for line in lines):
            out[path] = ("in place", rule.text)
            continue
        close = next((line for line in lines if _similar(rule.text, line)), None)
        out[path] = ("reworded", close) if close is not None else ("removed by hand", "")
    return out


def read_texts(rule: AdoptedRule) -> dict[str, str | None]:
    """The current text of each file of ``rule`` (IO at the edge of :func:`presence`)."""
    out: dict[str, str | None] = {}
    for path in rule.files:
        try:
            out[path] = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            out[path] = None
    return out
