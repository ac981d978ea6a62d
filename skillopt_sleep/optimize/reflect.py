"""Reflection: turn scored rollouts into proposed edits.

Contrastive on tasks whose K rollouts disagree (a good and a bad attempt side by side), failure
reflection on tasks that always fail (with the user's own correction), and a few successes (what
reliably works, so it is kept). The optimizer sees intents, attempts, feedback and judge
*reasons*; never a check's source. Every edit cites the cases it addresses; only edits refused
conclusively on earlier nights are shown as already tried.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field, ValidationError

from ..checks.judge import extract_json
from ..errors import MalformedOutput
from ..models import Edit, EditOp, EditTarget, TaskRecord
from ..redact import redact
from ..rollouts.replay import Rollout
from ..rules.clauses import atomic_edits
from .seed_reply import as_our_reply

MAX_EXCERPT = 1200


@dataclass(frozen=True)
class Case:
    """One task shown to the optimizer."""

    kind: str  # "contrast", "failure" or "success"
    task: TaskRecord
    good: Rollout | None
    bad: Rollout | None


class _ProposedEdit(BaseModel):
    target: EditTarget
    op: EditOp = "add"
    content: str = Field(min_length=1, max_length=2000)
    old: str | None = None
    rationale: str = ""
    cases: list[int] = Field(default_factory=list, max_length=50)


class _Reply(BaseModel):
    edits: list[_ProposedEdit] = Field(max_length=20)


def pick_cases(
    tasks: Sequence[TaskRecord],
    rollouts: dict[str, list[Rollout]],
    limit: int,
    skip: frozenset[str] = frozenset(),
) -> list[Case]:
    """Tasks whose scores spread most (contrast), then tasks that always fail (failure), then one
    or two that always pass (success), leaving out the tasks in ``skip``."""
    contrast: list[tuple[float, Case]] = []
    failure: list[tuple[float, Case]] = []
    success: list[Case] = []
    for task in tasks:
        scored = [r for r in rollouts.get(task.id, []) if r.score is not None]
        if not scored or task.id in skip:
            continue
        best = max(scored, key=lambda r: r.score or 0.0)
        worst = min(scored, key=lambda r: r.score or 0.0)
        spread = (best.score or 0.0) - (worst.score or 0.0)
        if spread > 0:
            contrast.append((spread, Case("contrast", task, best, worst)))
        elif (best.score or 0.0) < 0.5:
            failure.append((1.0 if task.feedback else 0.5, Case("failure", task, None, worst)))
        elif task.feedback:
            success.append(Case("success", task, best, None))
    contrast.sort(key=lambda x: (-x[0], x[1].task.id))
    failure.sort(key=lambda x: (-x[0], x[1].task.id))
    cases = [c for _, c in contrast[:limit]]
    cases += [c for _, c in failure[: max(0, limit - len(cases))]]
    return (
        cases + sorted(success, key=lambda c: c.task.id)[: min(2, max(0, limit + 2 - len(cases)))]
    )


def _excerpt(text: str) -> str:
    return text if len(text) <= MAX_EXCERPT else text[:MAX_EXCERPT] + "\n[...]"


def reflection_prompt(
    cases: Sequence[Case],
    current_rules: Sequence[str],
    tried: Sequence[Edit],
    ignored: Sequence[str] = (),
) -> str:
    parts = ["## CURRENT RULES"]
    parts += [f"- {r}" for r in current_rules] or ["(none yet)"]
    if ignored:
        parts += [
            "",
            "## ADOPTED RULES THE AGENT DOES NOT FOLLOW (the user still corrects what they forbid)",
            (
                "Propose a `replace` of such a rule (old: the rule as written) that the agent will follow: "
                "reword it, give it a short example, or move it between the skill and memory."
            ),
            *ignored,
        ]
    parts += ["", "## ALREADY TRIED (did not help; do not propose again)"]
    parts += [f"- {e.content}" for e in tried] or ["(nothing)"]
    parts += ["", "## CASES"]
    for i, case in enumerate(cases, 1):
        t = case.task
        parts += ["", f"### Case {i} ({case.kind})", f"Task: {t.intent}"]
        if t.feedback:
            parts.append(f"User's feedback: {t.feedback}")
        if case.good is not None:
            label = "Attempt that works" if case.bad is None else "Good attempt"
            parts += [f"{label} (score {case.good.score:.2f}):", _excerpt(case.good.shown())]
        if case.bad is not None:
            parts += [f"Bad attempt (score {case.bad.score:.2f}):", _excerpt(case.bad.shown())]
            if case.bad.reasons:
                parts.append("Why the bad attempt was judged bad: " + "; ".join(case.bad.reasons))
    parts += ["", "Propose the rules now, as JSON, each citing its case numbers."]
    return "\n".join(parts)


def parse_edits(text: str, cases: Sequence[Case] = ()) -> list[Edit]:
    """The optimizer's reply as edits, each citing the ids of the tasks of the cases it names;
    ``MalformedOutput`` if it is not the JSON asked for. Case numbers that do not exist are dropped.

    A rule of several instructions comes back as one edit per clause (:func:`.clauses.atomic_edits`),
    each to be guarded and tested on its own. ``text`` is the reply as the optimizer sent it: a rule
    is kept as written, so that the guards refuse one that carries a secret (redacted, it would be
    written with a placeholder); its rationale and the rule it replaces are redacted here."""
    raw = extract_json(text).strip()
    try:  # the seeds' reply (a patch over the minibatch) is read as ours: see .seed_reply
        reply = _Reply.model_validate_json(as_our_reply(raw, len(cases)) or raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise MalformedOutput(f"optimizer reply is not the expected JSON: {err['msg']}") from exc
    edits = []
    for proposed in reply.edits:
        cites = [
            cases[n - 1].task.id for n in dict.fromkeys(proposed.cases) if 1 <= n <= len(cases)
        ]
        fields = proposed.model_dump(exclude={"cases"})
        fields["rationale"] = redact(proposed.rationale)
        fields["old"] = None if proposed.old is None else redact(proposed.old)
        edits.append(Edit(**fields, cites=cites))
    return atomic_edits(edits)


RETRY_NOTE = (
    "\n\nYour previous reply could not be parsed. Reply with the JSON object only, exactly in the "
    "shape asked for, nothing else."
)
