"""Turns of a session become TaskRecords: the request, what the agent did, what the user said.

A task is a turn whose prompt is a request. Every later user turn of the session is classified
(:mod:`.turns`): a correction or praise lands on the most recent request of the session (its
outcome, its feedback, its checks); a follow-up extends it; a new request starts the next task.
Every turn attached to a task is kept on it (``TaskRecord.turns``, kind and redacted text); an
unsure turn is kept and marked, but neither sets the outcome nor yields checks. Every text field
is redacted here, before anything leaves this module. Pure: no IO, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ..action_models import CHANGE_KINDS, is_change
from ..models import Action, Check, TaskRecord, TurnNote
from ..redact import redact
from .action_checks import mined_action_checks, validated_actions
from .action_refs import refine
from .actions import to_models
from .answer_refs import refine_by_answer
from .check_miner import candidate_checks
from .examples import UserExample, consistent, hold, user_example
from .feedback import FeedbackKind, outcome_of, validated
from .flag_runs import flag_runs
from .held_text import held_text_checks
from .named_files import named_file_checks
from .named_runs import named_run
from .polarity import polar
from .quoted import phrase
from .refused_words import refused_in_files
from .scope_turns import refine_by_scope
from .session import PROMPT_CHARS, SessionChunk, Turn, cut
from .shell_effects import _words
from .split_turns import CONTINUES, continued
from .text_checks import file_checks, scope_text_checks
from .turns import RuleClassifier, TurnClassifier, TurnVerdict

ATTEMPT_CHARS = 4000
CONTEXT_CHARS = 2000
FEEDBACK_CHARS = 2000
_REDACT_SLACK = 512  # redact a little more than is kept, so no secret is cut in half first
_RULES = RuleClassifier()
_ASK_CHARS = 160  # a question back, not an answer that ends with one
UNATTRIBUTED = "unattributed"  # turns after a damaged record that answer a request it may hold


@dataclass
class Attached:
    """A later turn of the session and what it is."""

    turn: Turn
    verdict: TurnVerdict


@dataclass
class TaskGroup:
    """A request turn and the turns that answer or extend it."""

    task: Turn
    attached: list[Attached] = field(default_factory=list)
    unsure: bool = False  # the request itself was read as one without a clear cue

    @property
    def kinds(self) -> list[FeedbackKind]:
        """The sure corrections and praise, in order (what sets the outcome)."""
        out: list[FeedbackKind] = []
        for a in self.attached:
            if a.verdict.sure and a.verdict.kind == "correction":
                out.append("correction")
            elif a.verdict.sure and a.verdict.kind == "praise":
                out.append("praise")
        return out


def group_turns(turns: Sequence[Turn], classifier: TurnClassifier | None = None) -> list[TaskGroup]:
    """Split the turns of a session (or of a read that starts at a request) into tasks.

    A request without any agent work (``/clear``, an interrupted prompt) is dropped: there is
    nothing to learn from it; the turns after it attach to the task before it. The turns that
    cannot be attributed (:func:`unattributed`) are in no task.
    """
    if not turns:
        return []
    classifier = classifier or _RULES
    verdicts = classifier.classify([t.prompt for t in turns[1:]], turns[0].prompt)
    verdicts = _with_action_refs(turns, verdicts)
    lost = _unattributed(turns, verdicts, classifier)
    groups: list[TaskGroup] = []
    for i, (turn, verdict) in enumerate(zip(turns, [None, *verdicts], strict=True)):
        if i in lost:
            continue
        if verdict is None or verdict.kind == "new_request" or not groups:
            if turn.has_work:
                groups.append(TaskGroup(turn, unsure=verdict is not None and not verdict.sure))
            continue
        groups[-1].attached.append(Attached(turn, verdict))
    return groups


def unattributed(turns: Sequence[Turn], classifier: TurnClassifier | None = None) -> int:
    """How many of ``turns`` :func:`group_turns` leaves out of every task because a damaged
    record came before them: the turn after one that reads as a correction, praise or a
    follow-up, and those after it until the next new request. The damaged record may have held
    the request it answers, so it lands on none (never on the task before the damage, never as
    a task of its own); a later new request of the session is a task as usual."""
    if not any(t.after_gap for t in turns):
        return 0
    classifier = classifier or _RULES
    verdicts = classifier.classify([t.prompt for t in turns[1:]], turns[0].prompt)
    return len(_unattributed(turns, _with_action_refs(turns, verdicts), classifier))


def _unattributed(
    turns: Sequence[Turn], verdicts: list[TurnVerdict], classifier: TurnClassifier
) -> set[int]:
    """The positions of the turns that cannot be attributed (see :func:`unattributed`). The
    first turn of a read is read as a request unless a damaged record came before it: then it
    is classified alone, as a later turn is."""
    if not any(t.after_gap for t in turns):
        return set()
    first = classifier.classify([turns[0].prompt])[0] if turns[0].after_gap else None
    out: set[int] = set()
    lost = False
    for i, (turn, verdict) in enumerate(zip(turns, [first, *verdicts], strict=True)):
        if verdict is None or verdict.kind == "new_request":
            lost = False
        elif turn.after_gap or lost:
            lost = True
            out.add(i)
    return out


def _with_action_refs(turns: Sequence[Turn], verdicts: list[TurnVerdict]) -> list[TurnVerdict]:
    """Each verdict refined by what its turn names of the previous attempt's actions, or quotes
    of its answer."""
    out: list[TurnVerdict] = []
    previous, said, earlier = turns[0].actions, _said(turns[0]), ""
    for turn, verdict in zip(turns[1:], verdicts, strict=True):
        verdict = refine(verdict, turn.prompt, previous) if previous else verdict
        verdict = refine_by_answer(verdict, turn.prompt, said, previous)
        verdict = refine_by_scope(verdict, turn.prompt, previous)
        out.append(continued(out[-1] if out else None, verdict, turn.prompt, previous, earlier))
        previous = turn.actions or previous
        said, earlier = _said(turn) or said, said
    return out


def _confined_runs(example: UserExample) -> list[Check]:
    """A scope said with "only" and nothing else checkable: the corrected command kept to it is
    what the user wanted run ("Lint `app/` only" after ``ruff check .``: runs ruff check app)."""
    return [
        Check(kind="ran", value=phrase(_words(c.split("|")[0])), case_sensitive=False)
        for c in example.commands[:1]
    ]


def _merged(checks: list[Check], texts: list[Check]) -> list[Check]:
    """The checks of both routes, each once, the text checks held against the user's example
    answer after the others."""
    seen = {_key_of(c) for c in checks}
    return [*checks, *(c for c in texts if _key_of(c) not in seen)]


def _key_of(check: Check) -> tuple[str, str]:
    """A check's kind and value, the value in one case where its case does not count."""
    value = str(check.value)
    return check.kind, value if check.case_sensitive else value.casefold()


def _asks_back(turn: Turn) -> bool:
    """Whether the agent's turn only asks the user something: no action, and its words are one
    short line ending with a question mark, in any script ("Sorry, what would you like
    instead?"; a draft that ends "Want me to shorten it?" is an attempt). The next correction
    still corrects the attempt before it."""
    words = "\n".join(s.text for s in turn.steps if s.kind == "text").strip()
    short = len(words) <= _ASK_CHARS and "\n" not in words
    return not turn.actions and short and words.endswith(("?", "\uff1f"))


def _said(turn: Turn) -> str:
    """What the agent said and saw in a turn (its words and the tools' output)."""
    return "\n".join(s.text for s in turn.steps if s.kind in ("text", "output"))


def safe(text: str, limit: int, *, tail: bool = False) -> str:
    """``text`` redacted and cut to ``limit`` characters."""
    window = cut(text, limit + _REDACT_SLACK, tail=tail)
    return cut(redact(window), limit, tail=tail)


def relative(path: str, project: str) -> str:
    """A file path relative to the project when it lies inside it."""
    base = project.rstrip("/\\")
    if path.startswith((base + "/", base + "\\")):
        return path[len(base) + 1 :]
    return path


def render_attempt(turn: Turn, project: str) -> str:
    """What the agent did, in order: its words, tool calls, outputs, errors, files written."""
    lines: list[str] = []
    for i, step in enumerate(turn.steps):
        if i == len(turn.head) and turn.dropped_steps:
            lines.append(f"[... {turn.dropped_steps} steps omitted ...]")
        text = step.text.replace(project.rstrip("/") + "/", "") if project else step.text
        prefix = {"text": "", "tool": "> ", "output": "  ", "error": "[error] ", "file": "[wrote] "}
        lines.append(prefix[step.kind] + text)
    files = _files(turn, project)
    if files:
        lines.append("Files changed: " + ", ".join(files))
    return "\n".join(lines)


def _files(turn: Turn, project: str) -> list[str]:
    """The files the turn changed: one whose every write or edit failed is left out."""
    done = {a.path for a in turn.actions if is_change(a)}
    failed = {a.path for a in turn.actions if a.kind in CHANGE_KINDS and a.failed} - done
    out: list[str] = []
    for path in turn.files:
        if path in failed:
            continue
        rel = relative(path, project)
        if rel not in out:
            out.append(rel)
    return out


def _attempts(group: TaskGroup, project: str) -> tuple[str, list[str | None]]:
    """The request's redacted attempt, and each attached turn's (None: the agent did nothing)."""
    first = safe(render_attempt(group.task, project), ATTEMPT_CHARS)
    later = [
        safe(render_attempt(a.turn, project), ATTEMPT_CHARS) if a.turn.has_work else None
        for a in group.attached
    ]
    return first, later


def _accepted(group: TaskGroup, index: int) -> bool:
    """Whether the session shows the retry after attached turn ``index`` is what the user asked
    for: the next sure verdict on the task is praise (before any other retry)."""
    for later in group.attached[index + 1 :]:
        if later.verdict.sure and later.verdict.kind in ("correction", "praise"):
            return later.verdict.kind == "praise"
        if later.turn.has_work:
            return False
    return False


def mine_checks(
    group: TaskGroup, first: str, later: list[str | None], project: str = ""
) -> list[Check]:
    """Rule checks the sure corrections of a task state, each validated where it applies: it
    must fail on the attempt the correction answers and pass on the retry the user let stand.
    Action checks likewise, on the actions of those attempts."""
    previous = first
    acted = to_models(group.task, project)
    found: list[Check] = []
    unruled: list[str] = []  # corrections no rule captures: scored by a rubric of their words
    for i, (a, retry) in enumerate(zip(group.attached, later, strict=True)):
        if a.verdict.kind == "correction" and a.verdict.sure:
            accepted = retry if _accepted(group, i) else None
            retry_acts = to_models(a.turn, project) if accepted is not None else None
            said = redact(a.turn.prompt)
            mined = [
                *validated(candidate_checks(said, (previous, retry or "")), previous, accepted),
                *mined_action_checks(said, acted, retry_acts),
                *validated_actions(file_checks(said, acted), acted, retry_acts),
                *validated_actions(refused_in_files(said, acted), acted, retry_acts),
            ]
            if not any(c.kind in ("changed", "file_contains") for c in mined):
                mined += validated_actions(named_file_checks(said, acted), acted, retry_acts)
            if not any(c.kind in ("untouched", "never_read") for c in mined):
                mined += validated(scope_text_checks(said), previous, accepted)
            example = user_example(said, acted)
            if example is not None and example.where.only and not mined:
                mined = validated_actions(_confined_runs(example), acted, retry_acts)
            mined = named_run(said, mined, acted, retry_acts)
            if not any(c.kind == "ran" for c in mined):  # the user's flags, asked for as run
                mined += validated_actions(flag_runs(example, acted, said), acted, retry_acts)
            texts = held_text_checks(said, previous, acted)
            held = consistent(_merged(polar(hold(mined, example, acted), said, example), texts))
            held = [c for c in held if "[REDACTED" not in f"{c.value} {c.path}"]  # no secret's rule
            new = [c for c in held if all((c.kind, c.value) != (f.kind, f.value) for f in found)]
            found.extend(new)
            if not new:
                unruled.append(safe(a.turn.prompt, FEEDBACK_CHARS))
        split = i + 1 < len(later) and group.attached[i + 1].verdict.reason == CONTINUES
        asked = _asks_back(a.turn)  # "What would you like instead?" is no new attempt
        previous = retry if retry is not None and not split and not asked else previous
        acted = to_models(a.turn, project) if a.turn.actions else acted
    if found and unruled:  # without any rule, the night makes the rubric from all the feedback
        text = " / ".join(unruled)
        found.append(
            Check(kind="rubric", value=f"The answer respects the user's correction: {text}")
        )
    return found


def _notes(group: TaskGroup) -> list[TurnNote]:
    return [
        TurnNote(
            kind=a.verdict.kind,
            text=safe(a.turn.prompt, FEEDBACK_CHARS),
            reason=a.verdict.reason,
            unsure=not a.verdict.sure,
            by=a.verdict.by,
            at=a.turn.timestamp,
        )
        for a in group.attached
    ]


def group_record(group: TaskGroup, chunk: SessionChunk, fallback_time: datetime) -> TaskRecord:
    """One TaskRecord from a task and the turns attached to it. All text is redacted."""
    task, project = group.task, chunk.state.project
    first, later = _attempts(group, project)
    extends: list[str] = []  # follow-up work until the first correction: what was corrected
    acts: list[Action] = to_models(task, project)
    for a, text in zip(group.attached, later, strict=True):
        if a.verdict.kind == "correction" and a.verdict.sure:
            break
        if text and a.verdict.kind == "follow_up" and a.verdict.sure:
            extends.append(text)
            acts += to_models(a.turn, project)
    attempt = cut("\n".join([first, *extends]), ATTEMPT_CHARS)
    notes = _notes(group)
    feedback = "\n".join(
        n.text for n in notes if not n.unsure and n.kind in ("correction", "praise")
    )
    follow_ups = [f"Then: {n.text}" for n in notes if n.kind == "follow_up" and not n.unsure]
    context = "\n".join(p for p in [safe(task.context, CONTEXT_CHARS), *follow_ups] if p)
    tags = list(task.tags)
    if "correction" in group.kinds:
        tags.append("corrected")
    if group.unsure:
        tags.append("unsure-request")  # no rule was sure it is a request; kept as one
    if any(n.unsure for n in notes):
        tags.append("unsure-turn")
    if task.errors:
        tags.append("tool-error")
    return TaskRecord(
        source=chunk.source,
        project=project,
        session_id=chunk.state.session_id,
        turn=task.index,
        created_at=task.timestamp or fallback_time,
        intent=safe(task.prompt, PROMPT_CHARS) or "(empty prompt)",
        context=cut(context, CONTEXT_CHARS),
        attempt=attempt,
        outcome=outcome_of(group.kinds),
        feedback=feedback,
        checks=mine_checks(group, first, later, project),
        turns=notes,
        actions=acts,
        skills_used=list(task.skills),
        tools_used=list(task.tools),
        tags=tags,
        model=task.model,
        commit=chunk.state.commit
        if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", chunk.state.commit)
        else "",
    )


def count_unattributed(chunk: SessionChunk, classifier: TurnClassifier | None = None) -> None:
    """Count the turns of ``chunk`` no task takes (:func:`unattributed`) with its skipped
    lines, as ``unattributed``: the harvest's output and ``status`` name them."""
    lost = unattributed(chunk.turns, classifier)
    if lost:
        chunk.skipped[UNATTRIBUTED] += lost


def mine_chunk(
    chunk: SessionChunk, fallback_time: datetime, classifier: TurnClassifier | None = None
) -> list[TaskRecord]:
    """TaskRecords of one read of a session; none for replays or sessions without a project.

    ``fallback_time`` dates turns whose records carry no timestamp (the file's mtime).
    """
    state = chunk.state
    if state.replay or not state.session_id or not _absolute(state.project):
        return []
    groups = group_turns(chunk.turns, classifier)
    return [group_record(g, chunk, fallback_time) for g in groups]


def _absolute(path: str) -> bool:
    return path.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", path) is not None
