"""Adopted rules as the user sees them: where each stands in its files and whether it helped."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ..models import TaskRecord
from ..store import Store
from .ledger import AdoptedRule, Presence, pending_retest, presence, read_texts, rules, usual_model
from .outcome import RuleOutcome, assess

LOOKBACK = timedelta(days=90)  # requests older than this before the first adoption are not counted


@dataclass(frozen=True)
class RuleView:
    """One adopted rule, where it stands and its verdict."""

    rule: AdoptedRule
    presence: dict[str, tuple[Presence, str]]
    outcome: RuleOutcome

    @property
    def standing(self) -> str:
        states = {p for p, _ in self.presence.values()}
        if not states or states == {"in place"}:
            return "in place"
        if states <= {"removed by hand", "missing file"}:
            return "removed by hand"
        if "reworded" in states:
            return "reworded by hand"
        return "partly removed by hand"

    @property
    def reworded_to(self) -> str:
        return next((line for p, line in self.presence.values() if p == "reworded"), "")

    @property
    def flagged(self) -> bool:
        """Shown as a warning: the rule stands but does not do what it was adopted for."""
        return self.standing != "removed by hand" and self.outcome.verdict in (
            "ignored",
            "contradicted",
        )

    def line(self) -> str:
        where = "" if self.standing == "in place" else f" [{self.standing}]"
        yours = " (reworded by you)" if self.rule.night_text else ""
        return f"{self.rule.id}  {self.rule.text}{yours}{where}\n    {self.outcome.sentence()}"

    def payload(self) -> dict[str, Any]:
        o = self.outcome
        return {
            "id": self.rule.id,
            "text": self.rule.text,
            "target": self.rule.target,
            "files": self.rule.files,
            "night_id": self.rule.night_id,
            "adopted_at": self.rule.adopted_at.isoformat(),
            "validated_on": self.rule.validated_on,
            "standing": self.standing,
            "reworded_to": self.reworded_to,
            "reworded_by_you": bool(self.rule.night_text),
            "night_text": self.rule.night_text,
            "verdict": o.verdict,
            "summary": o.sentence(),
            "needed": o.needed,
            "before": {"requests": o.before.requests, "corrected": o.before.corrected},
            "after": {
                "requests": o.after.requests,
                "corrected": o.after.corrected,
                "opposite": o.after.opposite,
            },
            "p_fell": o.p_fell,
            "p_recurs": o.p_recurs,
            "weekly": [list(w) for w in o.weekly],
            "task_ids": self.rule.task_ids,
            "preference_keys": self.rule.preference_keys,
            "evidence": None
            if self.rule.evidence is None
            else self.rule.evidence.model_dump(mode="json"),
            "retest_model": self.rule.retest_model,
            "session_model": self.rule.session_model,
            "confirmed_models": self.rule.confirmed_models,
            "retest_note": self.rule.retest_note,
        }


RECENT = 5  # the latest sightings naming a model: which model the user works with now


def views(rule_list: Sequence[AdoptedRule], tasks: Sequence[TaskRecord]) -> list[RuleView]:
    """Each rule with where it stands and its verdict; a rule adopted under another model than the
    one the latest sessions use waits for a re-test before it counts as working."""
    current = usual_model(
        sorted((t for t in tasks if t.model), key=lambda t: t.created_at)[-RECENT:]
    )
    out = []
    for r in rule_list:
        rule = pending_retest(r, current)
        out.append(RuleView(rule, presence(rule, read_texts(rule)), assess(rule, tasks)))
    return out


def project_views(store: Store, project: str) -> list[RuleView]:
    """Every adopted rule of ``project`` with its standing and verdict (reads the files)."""
    adopted = rules(store, project)
    if not adopted:
        return []
    since = min(r.adopted_at for r in adopted) - LOOKBACK
    seen = store.request_sightings(project, since) or store.list_tasks(project=project, since=since)
    return views(adopted, seen)


def flagged_lines(found: Sequence[RuleView], now: datetime) -> list[str]:
    """One line per rule that is ignored or contradicted (for ``status`` and ``review``)."""
    out = []
    for v in found:
        if v.flagged:
            verb = "is ignored" if v.outcome.verdict == "ignored" else "is contradicted"
            fix = (
                "the next night tries to reword it"
                if v.outcome.verdict == "ignored"
                else f"remove it with `skillopt-sleep rules remove {v.rule.id}`"
            )
            out.append(f"! rule {v.rule.id} {verb}: {v.outcome.sentence()}; {fix}")
    return out


def ignored_notes(found: Sequence[RuleView]) -> list[str]:
    """For the next night's optimizer: each adopted rule the agent does not follow, with what the
    user still corrects (their own words), so it can reword the rule, move it, or give an example."""
    out = []
    for v in found:
        if v.outcome.verdict != "ignored" or v.standing == "removed by hand":
            continue
        o = v.outcome
        out.append(
            f"- {v.rule.text} (in {v.rule.target}; since it was adopted the user corrected "
            f"{o.after.corrected} of {o.after.requests} requests of its kind, as before)"
        )
    return out
