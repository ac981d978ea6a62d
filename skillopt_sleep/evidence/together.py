"""Harm and conflicts of the edits that passed efficacy, checked on the files the night would stage.

Under the ``lean`` allocation (:mod:`.allocation`) harm is not checked edit by edit as each passes
efficacy, but once, on all of them together: fresh rollouts under the joint files on every task
outside their efficacy sets, against the night's shared baseline. Harm is rare, so this one test
usually clears every edit at the price of one. When it does see harm (at ``harm_alpha``) and more
than one edit is in it, each edit is checked alone, exactly as the classic gate checks it, and the
harmful ones are refused (group testing); if none is harmful alone, the one with the weakest
evidence is dropped as a conflict. When no task is left outside their efficacy sets (each kind of
the night has an edit of its own), each edit is checked alone on the tasks outside its own set, so
the night's other tasks are checked, not skipped. Then each remaining edit's efficacy tasks are replayed under
the joint files against its own "after" rollouts, in two looks (the second only while the pass
rate fell): an edit that conclusively loses there is dropped as a conflict.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..models import EditEvidence, TaskRecord
from ..rollouts.replay import Rollout
from .exact import stratified_p
from .pool import counts as _counts
from .pool import fell as _fell
from .pool import total as _total
from .trials import Candidate, Trials

Joint = Callable[
    [Sequence[Candidate]], dict[str, str]
]  # the files of several edits applied together
CONFLICT_WEIGHTS = (0.25, 0.75)  # the share of harm_conclusive each conflict look spends


async def settle(
    trials: Trials, accepted: Sequence[Candidate], verdicts: dict[str, EditEvidence], joint: Joint
) -> dict[str, EditEvidence]:
    """``verdicts`` of the ``accepted`` edits after harm and conflicts (see the module docstring)."""
    out = dict(verdicts)
    if not accepted:
        return out
    files = accepted[0].files if len(accepted) == 1 else joint(accepted)
    acting = list({t.id: t for c in accepted for t in c.efficacy_tasks}.values())
    tasks = trials.harm_set(acting)
    counts, p_less = await trials.harm(files, tasks, "together")
    flagged = p_less is not None and p_less <= trials.policy.harm_alpha
    if flagged and len(accepted) > 1:
        for c in accepted:
            out[c.key] = await trials.judge_harm(c, out[c.key])
        if all(out[c.key].verdict == "accepted" for c in accepted):
            weakest = max(accepted, key=lambda c: (out[c.key].p_efficacy or 0.0, c.key))
            out[weakest.key] = _conflict(
                out[weakest.key], "harms the other tasks together with the other edits"
            )
    elif tasks or len(accepted) == 1:
        for c in accepted:
            out[c.key] = trials.harm_verdict(out[c.key], tasks, counts, p_less)
    else:  # every task is where one of them acts: each alone on the tasks where the others act
        for c in accepted:
            out[c.key] = await trials.judge_harm(c, out[c.key])
    kept = [c for c in accepted if out[c.key].verdict == "accepted"]
    if len(kept) > 1:
        files = joint(kept)
        for c in kept:
            if await _loses(trials, c, files):
                out[c.key] = _conflict(out[c.key], "conflicts with another edit accepted tonight")
    return out


def _conflict(ev: EditEvidence, reason: str) -> EditEvidence:
    return ev.model_copy(update={"verdict": "conflict", "reason": reason})


async def _loses(trials: Trials, c: Candidate, files: dict[str, str]) -> bool:
    """Whether ``c``'s efficacy tasks pass conclusively less often under ``files`` than under ``c``
    alone. The alone rollouts passed efficacy, a lucky draw on average (the winner's curse), so only
    a conclusive loss counts."""
    tasks: list[TaskRecord] = [t for t in c.efficacy_tasks if c.after.get(t.id)]
    full = {t.id: len(c.after[t.id]) for t in tasks}
    steps = [dict.fromkeys(full, 1), full]
    drawn = dict.fromkeys(full, 0)
    got_all: dict[str, list[Rollout]] = {}
    p_adj = 1.0
    for upto, weight in zip(steps, CONFLICT_WEIGHTS, strict=True):
        got = await trials.draw(
            [(t, drawn[t.id], upto[t.id] - drawn[t.id]) for t in tasks],
            files,
            f"{trials.nonce}:joint:{c.key}",
            part="joint",
        )
        for t in tasks:
            got_all.setdefault(t.id, []).extend(got.get(t.id, []))
        drawn = upto
        strata = [_counts(c.after[t.id], got_all[t.id])[0] for t in tasks]
        p_adj = min(p_adj, stratified_p(strata, "less") / weight)
        if p_adj <= trials.policy.harm_conclusive or not _fell(_total(strata)):
            break
    trials.spend.save("joint", sum(full.values()) - sum(drawn.values()))
    return p_adj <= trials.policy.harm_conclusive
