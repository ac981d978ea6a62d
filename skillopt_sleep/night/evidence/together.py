"""Harm and conflicts of the edits that passed efficacy, checked on the files the night would stage.

Under the ``lean`` allocation (:mod:`.allocation`) harm is not checked edit by edit as each passes
efficacy, but once, on all of them together: fresh rollouts under the joint files on every task
outside their efficacy sets, against the night's shared baseline. Harm is rare, so this one test
usually clears every edit at the price of one. When it does see harm (at ``harm_alpha``) and more
than one edit is in it, each edit is checked alone, exactly as the classic gate checks it, and the
harmful ones are refused (group testing); if none is harmful alone, the one with the weakest
evidence is dropped as a conflict. Then each remaining edit's efficacy tasks are replayed under
the joint files against its own "after" rollouts, in two looks (the second only while the pass
rate fell): an edit that conclusively loses there is dropped as a conflict.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from ...models import Counts, EditEvidence, TaskRecord
from ..replay import Rollout
from .exact import Stratum, stratified_p
from .kinds import kind_of
from .trials import Candidate, Trials, _counts, _fell, _total

Joint = Callable[[Sequence[Candidate]], dict[str, str]]  # the files of several edits applied together
CONFLICT_WEIGHTS = (0.25, 0.75)  # the share of harm_conclusive each conflict look spends


async def settle(trials: Trials, accepted: Sequence[Candidate], verdicts: dict[str, EditEvidence],
                 joint: Joint) -> dict[str, EditEvidence]:
    """``verdicts`` of the ``accepted`` edits after harm and conflicts (see the module docstring)."""
    out = dict(verdicts)
    if not accepted:
        return out
    files = accepted[0].files if len(accepted) == 1 else joint(accepted)
    acting = list({t.id: t for c in accepted for t in c.efficacy_tasks}.values())
    tasks = trials.harm_set(acting)
    counts, p_less = await randomized_harm(trials, files, tasks, "together")
    flagged = p_less is not None and p_less <= trials.policy.harm_alpha
    if flagged and len(accepted) > 1:
        for c in accepted:
            out[c.key] = await trials.judge_harm(c, out[c.key])
        if all(out[c.key].verdict == "accepted" for c in accepted):
            weakest = max(accepted, key=lambda c: (out[c.key].p_efficacy or 0.0, c.key))
            out[weakest.key] = _conflict(out[weakest.key], "harms the other tasks together with the other edits")
    else:
        for c in accepted:
            out[c.key] = trials.harm_verdict(out[c.key], tasks, counts, p_less)
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
    for upto, weight in zip(steps, CONFLICT_WEIGHTS):
        got = await trials.draw([(t, drawn[t.id], upto[t.id] - drawn[t.id]) for t in tasks], files,
                                f"{trials.nonce}:joint:{c.key}", part="joint")
        for t in tasks:
            got_all.setdefault(t.id, []).extend(got.get(t.id, []))
        drawn = upto
        strata = [_counts(c.after[t.id], got_all[t.id])[0] for t in tasks]
        p_adj = min(p_adj, stratified_p(strata, "less") / weight)
        if p_adj <= trials.policy.harm_conclusive or not _fell(_total(strata)):
            break
    trials.spend.save("joint", sum(full.values()) - sum(drawn.values()))
    return p_adj <= trials.policy.harm_conclusive



async def randomized_harm(trials: Trials, files: dict[str, str], tasks: Sequence[TaskRecord],
                          stream: str) -> tuple[Counts, float | None]:
    """Harm of ``files`` on ``tasks``: (counts, one-sided p of fewer passes, adjusted over the looks).

    The first look replays every task once, under ``files`` or under the night's files, the side
    drawn at random within each kind of task (a randomised comparison: under "the edits change
    nothing on these tasks" each split is as likely as any other, so the stratified exact test is
    exact, at half the rollouts of a pair per task); with fewer than ``2 * harm_rollouts`` tasks, the
    pairs of :meth:`Trials.harm` instead, ``harm_rollouts`` a side, as many as a check edit by edit
    draws. Further looks, only while the pass rate fell
    enough to suspect harm, add ``harm_rollouts`` per side spread over the tasks, paired by task.
    """
    if len(tasks) < 2 * trials.policy.harm_rollouts:  # too few for a randomised half on each side: pairs
        return await trials.harm(files, tasks, stream)
    p, alloc = trials.policy, trials.allocation
    order = sorted(tasks, key=lambda t: t.id)
    after_arm = _split(order, trials.rng)
    await trials.baseline.ensure({t.id: (t, 1) for t in order if t.id not in after_arm})
    got = await trials.draw([(t, 0, 1) for t in order if t.id in after_arm], files,
                            f"{trials.nonce}:{stream}", part="harm")
    blocks: dict[str, list[int]] = {}
    for t in order:
        b = blocks.setdefault(_block(t, order), [0, 0, 0, 0])
        side = got.get(t.id, []) if t.id in after_arm else trials.baseline.take(t.id, 0, 1)
        scored = [r for r in side if r.score is not None]
        b[2 if t.id in after_arm else 0] += sum(r.passed for r in scored)
        b[3 if t.id in after_arm else 1] += len(scored)
    strata = [Stratum(*b) for b in blocks.values()]
    weights = alloc.harm_weights(p)
    p_raw = stratified_p(strata, "less")
    p_adj, counts = p_raw / weights[0], _total(strata)
    steps = alloc.harm_steps(p, len(order))
    drawn = {t.id: (0, 0) for t in order}  # (before, after) samples past the first look's
    after: dict[str, list[Rollout]] = {t.id: [] for t in order}
    for look in range(2, len(weights) + 1):
        if p_adj <= p.harm_conclusive or not alloc.looks_again(p_raw, _fell(counts)):
            break  # decided: conclusive harm, or too little sign of any to look again
        upto = trials._spread(order, steps[look - 1] - steps[0])
        first = {t.id: (int(t.id not in after_arm), int(t.id in after_arm)) for t in order}
        await trials.baseline.ensure({t.id: (t, first[t.id][0] + upto[t.id]) for t in order})
        more = await trials.draw([(t, first[t.id][1] + drawn[t.id][1], upto[t.id] - drawn[t.id][1]) for t in order],
                                 files, f"{trials.nonce}:{stream}", part="harm")
        for t in order:
            after[t.id].extend(more.get(t.id, []))
        drawn = {t.id: (upto[t.id], upto[t.id]) for t in order}
        paired = [_counts(trials.baseline.take(t.id, first[t.id][0], first[t.id][0] + upto[t.id]), after[t.id])[0]
                  for t in order]
        p_raw = stratified_p([*strata, *paired], "less")
        p_adj, counts = min(p_adj, p_raw / weights[look - 1]), _total([*strata, *paired])
    return counts, min(1.0, p_adj)




def _block(task: TaskRecord, tasks: Sequence[TaskRecord]) -> str:
    """The block a task is randomised in: its kind, or "" when no other task shares it."""
    kind = kind_of(task) or ""
    return kind if sum(1 for t in tasks if (kind_of(t) or "") == kind) > 1 else ""


def _split(order: Sequence[TaskRecord], rng: random.Random) -> set[str]:
    """Half of each block's tasks, drawn at random (the odd one out on a fair coin): the after side."""
    blocks: dict[str, list[str]] = {}
    for t in order:
        blocks.setdefault(_block(t, order), []).append(t.id)
    chosen: set[str] = set()
    for ids in blocks.values():
        half = len(ids) // 2 + (len(ids) % 2 and rng.random() < 0.5)
        chosen |= set(rng.sample(ids, half))
    return chosen
