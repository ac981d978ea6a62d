"""Re-test adopted rules after the user moved to another model, before they count as working.

Only their efficacy, cheaply: on the tasks each rule was made for, K fresh rollouts with the
rule and K without it, an exact one-sided test. A rule is confirmed under the new model when the
night's replays ran on that model (an agent CLI's default follows the user's own setting); a
replay model other than the user's is said, and the rule stays pending.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..backends.base import Backend
from ..evidence.exact import Stratum, stratified_p
from ..models import TaskRecord
from ..review.ledger import AdoptedRule
from ..rollouts.replay import Replayer
from ..rules.managed_block import BlockError, replace_rule

ALPHA = 0.05
AGENT_DEFAULTS = ("claude-code-default", "codex-default")


def _without(files: dict[str, str], rule: str) -> dict[str, str]:
    out = {}
    for name, text in files.items():
        try:
            out[name] = replace_rule(text, rule, None) or text
        except BlockError:
            out[name] = text
    return out


async def retest(
    replayer: Replayer,
    target: Backend,
    rule: AdoptedRule,
    tasks: Sequence[TaskRecord],
    files: dict[str, str],
    k: int,
) -> AdoptedRule:
    """``rule`` with the re-test's result: confirmed under ``rule.retest_model``, or a note why not."""
    model = rule.retest_model
    if not tasks:
        return rule.model_copy(
            update={"retest_note": "no task it was made for is left to re-test it on"}
        )
    wants = [(t, 0, k) for t in tasks]
    without = await replayer.draw(wants, _without(files, rule.text), f"retest:{rule.id}:without")
    with_rule = await replayer.draw(wants, files, f"retest:{rule.id}:with")
    strata = []
    for t in tasks:
        b = [r for r in without.get(t.id, []) if r.score is not None]
        a = [r for r in with_rule.get(t.id, []) if r.score is not None]
        strata.append(Stratum(sum(r.passed for r in b), len(b), sum(r.passed for r in a), len(a)))
    p = stratified_p(strata)
    before = sum(s.before_pass for s in strata), sum(s.before_n for s in strata)
    after = sum(s.after_pass for s in strata), sum(s.after_n for s in strata)
    counts = (
        f"{after[0]} of {after[1]} right with it, {before[0]} of {before[1]} without (p = {p:.3g})"
    )
    on_model = target.model == model or target.model in AGENT_DEFAULTS
    if p <= ALPHA and on_model:
        return rule.model_copy(
            update={
                "confirmed_models": [*rule.confirmed_models, model],
                "retest_model": "",
                "retest_note": f"confirmed under {model}: {counts}",
            }
        )
    if p <= ALPHA:
        return rule.model_copy(
            update={
                "retest_note": (
                    f"helps on {target.name}:{target.model}, not yet tested on {model}: {counts}; set "
                    f"roles.target.model = {model!r} to re-test under it"
                )
            }
        )
    return rule.model_copy(update={"retest_note": f"not confirmed under {model}: {counts}"})
