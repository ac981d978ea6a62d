"""Pydantic models of what a night proposes and records: edits, the evidence on each, the night's
summary and the staged proposal (``proposal.json``). Re-exported by :mod:`skillopt_sleep.models`."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import Field, computed_field, model_validator

from .counting import Counts, Usage
from .strict import Strict as _Strict

SCHEMA_VERSION = 1  # of proposal.json
EditTarget = Literal["skill", "memory", "CLAUDE.md", "AGENTS.md"]
EditOp = Literal["add", "replace", "remove"]
EditStatus = Literal["proposed", "applied", "rejected"]
Decision = Literal["accept", "reject", "no_evidence", "budget_exhausted", "outage"]
EditVerdict = Literal[
    "accepted",
    "harmful",
    "worse",
    "no_effect",
    "inconclusive",
    "conflict",
    "over_budget",
    "no_evidence",
]
ProposalState = Literal["staged", "adopted", "rejected", "rolled_back", "superseded"]
# What an accepted edit was not checked on, on a night too small to check it: no unseen task of
# its kind (the memorisation check), or no other task (the harm check); or an edit shown to help
# that its night's edit budget cut before its harm check, or one inconclusive on strong evidence
# (both wait, not staged).
Unconfirmed = Literal["unseen", "harm", "budget", "evidence"]
UNCONFIRMED_WORDS: dict[str, str] = {
    "unseen": "checked only on the tasks it came from",
    "harm": "no other task to check harm on",
    "budget": "over its night's edit budget, not checked for harm",
    "evidence": "not enough evidence yet, its evidence carried over",
}


def unconfirmed_words(missing: Sequence[str]) -> str:
    """``unconfirmed: checked only on the tasks it came from; ...`` ("" when nothing is missing)."""
    if not missing:
        return ""
    return "unconfirmed: " + "; ".join(UNCONFIRMED_WORDS[m] for m in missing)


class Edit(_Strict):
    """A proposed change to a skill or memory file, as the optimizer proposes it.

    ``target`` "memory" means: this rule, once, into every memory file the project has
    (CLAUDE.md and AGENTS.md), inside the managed block.
    """

    target: EditTarget
    op: EditOp = "add"
    content: str = ""
    old: str | None = None
    rationale: str = ""
    status: EditStatus = "proposed"
    reason: str = ""
    cites: list[str] = Field(
        default_factory=list
    )  # ids of the tasks the optimizer says it addresses

    def key(self) -> str:
        """Identity used to recognise the same edit across nights."""
        norm = " ".join(self.content.lower().split())
        return hashlib.sha256(f"{self.target}|{self.op}|{norm}".encode()).hexdigest()[:16]


class ProposalFile(_Strict):
    """One live file a proposal would change."""

    name: str  # "SKILL.md", "CLAUDE.md", "AGENTS.md", ".claude/rules/skillopt-sleep.md", ...
    live_path: str  # absolute path of the live file
    base_sha256: str | None  # hash of the live file when staged; None if it did not exist
    candidate: str  # path of the candidate, relative to the proposal dir
    diff: str  # path of the unified diff, relative to the proposal dir
    # the agents in use that load this file (directly or through an import), as shown; the
    # files its managed ``@path`` lines import; the text the night's edits were made on when a
    # placement laid the file out anew (rules moved, an import added), relative to the dir
    reaches: list[str] = Field(default_factory=list)
    imports: list[str] = Field(default_factory=list)
    placed: str | None = None
    # "SKILL.md" for a copy of the skill in another agent's skill folder: it holds the skill's
    # text (an adoption of some of the edits writes the skill's recomposed text into it too)
    copy_of: str | None = None


class Example(_Strict):
    """One task an edit was made for, with an answer from before the edit and one from after."""

    task_id: str
    request: str
    before: str = ""
    before_passed: bool = False
    after: str = ""
    after_passed: bool = False


class EditEvidence(_Strict):
    """How one edit was judged tonight: where it was tested, on how many rollouts, and the verdict.

    *Efficacy* is measured where the edit should act (the tasks it cites and unseen tasks of the
    same kind), *harm* on every other task; all rollouts are fresh, drawn tonight.
    """

    edit: Edit
    round: int = 1
    verdict: EditVerdict
    reason: str = ""
    cited: list[str] = Field(default_factory=list)
    unseen: list[str] = Field(default_factory=list)
    harm_tasks: list[str] = Field(default_factory=list)
    efficacy: Counts = Field(default_factory=Counts)
    unseen_counts: Counts = Field(default_factory=Counts)
    harm: Counts = Field(default_factory=Counts)
    p_efficacy: float | None = None
    p_unseen: float | None = None
    p_harm: float | None = None
    alpha: float | None = None  # the level this edit's efficacy p-value was held to tonight
    e_value: float | None = None  # tonight's e-value for efficacy
    e_total: float | None = None  # the product over the nights this edit was tested
    looks: int = 0
    errored: int = 0
    example: Example | None = None  # a task it was made for, answered before and after
    # accepted on a night that could not run every check: never auto-adopted, retested first on
    # the next night that has the missing evidence
    unconfirmed: list[Unconfirmed] = Field(default_factory=list)


class WaitingEdit(_Strict):
    """An unconfirmed edit waiting for the evidence its night lacked (see :data:`Unconfirmed`).

    ``seen`` holds the tasks the optimizer had been shown when it wrote the edit: only a task
    outside them is unseen evidence. ``needs`` says it in words ("1 more task about tests")."""

    edit: Edit
    since: str = ""  # the night that accepted it unconfirmed
    missing: list[Unconfirmed] = Field(default_factory=list)
    cited: list[str] = Field(default_factory=list)
    seen: list[str] = Field(default_factory=list)
    kind: str = "of its kind"  # its tasks in words: "about tests"
    needs: str = ""
    nights: int = 0  # nights run since it started waiting (its own night not counted)
    tries: int = 0  # of those, nights that retested it and did not confirm it


# Edit verdicts as the tally counts them: refused (conclusively, or in conflict with a better edit)
# and inconclusive (evidence kept for a later night); "accepted" and "over_budget" (proven, but
# past the night's edit budget) count as themselves.
REFUSED_VERDICTS = ("harmful", "worse", "no_effect", "conflict")
INCONCLUSIVE_VERDICTS = ("inconclusive", "no_evidence")
# Fields of nights judged by the older whole-holdout gate: an older record still loads, without them.
RETIRED_SUMMARY_FIELDS = ("holdout_before", "holdout_after", "gain", "ci_low", "ci_high", "p_value")


class Tally(_Strict):
    """How tonight's edits fared, edit by edit: accepted, refused, inconclusive, over the budget."""

    accepted: int = 0
    refused: int = 0
    inconclusive: int = 0
    over_budget: int = 0  # proven, but past the night's edit budget
    unconfirmed: int = 0  # of the accepted: checked only where the night's tasks allowed

    def line(self) -> str:
        """``2 accepted, 1 refused, 0 inconclusive`` (``, 1 over the edit budget`` when any)."""
        accepted = f"{self.accepted} accepted"
        if self.unconfirmed:
            accepted += f" ({self.unconfirmed} unconfirmed)"
        line = f"{accepted}, {self.refused} refused, {self.inconclusive} inconclusive"
        return line + (f", {self.over_budget} over the edit budget" if self.over_budget else "")


class NightSummary(_Strict):
    """The stable machine-readable result of one night (``run --json`` prints exactly this)."""

    night_id: str
    project: str
    started_at: datetime
    finished_at: datetime | None = None
    decision: Decision
    reason: str = ""
    dry_run: bool = False
    n_train: int = 0
    n_holdout: int = 0
    errored_rollouts: int = 0
    edits: list[Edit] = Field(default_factory=list)
    rejected_edits: list[Edit] = Field(default_factory=list)
    evidence: list[EditEvidence] = Field(default_factory=list)
    saved_rollouts: int = 0  # rollouts that sequential tests did not need to draw
    # the edit gate's fresh rollouts by part (baseline, efficacy, unseen, harm, joint), and what the
    # early stops of each part's tests saved against their full course
    gate_rollouts: dict[str, int] = Field(default_factory=dict)
    gate_saved: dict[str, int] = Field(default_factory=dict)
    skipped: list[str] = Field(default_factory=list)
    proposal_dir: str | None = None
    calls: int = 0
    tokens: int = 0
    cost_usd: float | None = 0.0  # None: unknown, some calls were of a model with no price
    unpriced_models: list[str] = Field(default_factory=list)
    usage_by_role: dict[str, Usage] = Field(default_factory=dict)
    target: str = ""  # "backend:model" the replays ran on (what an adopted rule was validated on)
    # the model each agent's replays ran on (Codex's own on a night on a Claude model), by agent
    agent_models: dict[str, str] = Field(default_factory=dict)
    notes: list[str] = Field(
        default_factory=list
    )  # what else the night did (re-tests of adopted rules)
    # unconfirmed edits still waiting for evidence after tonight, and why (tonight's included)
    waiting: list[WaitingEdit] = Field(default_factory=list)
    retested: list[str] = Field(default_factory=list)  # waiting edits retested first tonight
    harm_sampled: int = 0  # harm checks run on a sample of the other tasks
    before_reused: int = 0  # "before" sides of harm checks taken from tonight's own replay

    @model_validator(mode="before")
    @classmethod
    def _older_records(cls, data: Any) -> Any:
        """A stored night may carry the retired holdout gate's fields, and carries its tally: both are
        dropped on load (the tally is computed again from the evidence)."""
        if isinstance(data, dict):
            data = {
                k: v for k, v in data.items() if k not in RETIRED_SUMMARY_FIELDS and k != "tally"
            }
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tally(self) -> Tally:
        """How tonight's edits fared, counted from their evidence."""
        verdicts = [str(e.verdict) for e in self.evidence]
        return Tally(
            accepted=verdicts.count("accepted"),
            refused=sum(v in REFUSED_VERDICTS for v in verdicts),
            inconclusive=sum(v in INCONCLUSIVE_VERDICTS for v in verdicts),
            over_budget=verdicts.count("over_budget"),
            unconfirmed=sum(e.verdict == "accepted" and bool(e.unconfirmed) for e in self.evidence),
        )

    def unconfirmed(self, edit: Edit) -> list[Unconfirmed]:
        """What one of tonight's edits was not checked on ([] when it was checked everywhere)."""
        key = edit.key()
        return next(
            (
                e.unconfirmed
                for e in self.evidence
                if e.verdict == "accepted" and e.edit.key() == key
            ),
            [],
        )

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json"), indent=2, sort_keys=True)

    @property
    def usage(self) -> Usage:
        """The night's usage over every role."""
        return sum(self.usage_by_role.values(), Usage())

    def spent_usd(self) -> str:
        """What the night spent in money, as every view prints it: ``$0.0123``; where some calls
        had no price, what the priced ones cost as a floor, ``at least $5.2129; no price for
        stub-model``, or ``$? (no price for stub-model)`` when none was priced."""
        if self.cost_usd is None:
            unpriced = ", ".join(self.unpriced_models) or "a model"
            known = self.usage.cost_usd
            if known > 0:
                return f"at least ${known:.4f}; no price for {unpriced}"
            return f"$? (no price for {unpriced})"
        return f"${self.cost_usd:.4f}"

    def saving_note(self) -> str:
        """What prompt caching and batches saved tonight, in one line; "" when nothing."""
        u = self.usage
        if u.saved_usd <= 0 or u.list_cost_usd <= 0:
            return ""
        how = []
        if u.cache_read_tokens or u.cache_write_tokens:
            how.append(
                f"prompt caching ({u.cache_read_tokens:,} tokens read from the cache, "
                f"{u.cache_write_tokens:,} written)"
            )
        if u.batched_calls:
            how.append(f"batches ({u.batched_calls} calls at half price)")
        return (
            f"saved ${u.saved_usd:.4f} ({u.saved_usd / u.list_cost_usd:.0%} of ${u.list_cost_usd:.4f} "
            f"at the full price) with {' and '.join(how) or 'discounts'}"
        )


class Proposal(_Strict):
    """``proposal.json``: what a staged night would change, and how to check it is still safe."""

    schema_version: int = SCHEMA_VERSION
    night_id: str
    project: str
    created_at: datetime
    state: ProposalState = "staged"
    files: list[ProposalFile]
    summary: NightSummary
    # where memory edits go when adopted in part (None: every memory file; see rules.placement)
    memory: list[str] | None = None
