"""A fixed night judged edit by edit, with earlier adopted rules: what the reports are shown with."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from skillopt_sleep.harvest.preferences import preference_sightings
from skillopt_sleep.models import (
    Counts,
    Edit,
    EditEvidence,
    Example,
    NightSummary,
    TaskRecord,
    TurnNote,
    Usage,
)
from skillopt_sleep.review.ledger import AdoptedRule, rule_id
from skillopt_sleep.review.outcome import assess
from skillopt_sleep.review.rule_views import RuleView

STARTED = datetime(2026, 3, 1, 3, 17, tzinfo=timezone.utc)
PYTEST = Edit(
    target="skill",
    content="Run the test suite with `pytest -q`, never bare `pytest`.",
    status="applied",
    rationale="the user corrected this twice",
)
TITLE = Edit(target="memory", content="The README title is always 'Beta App'.", status="applied")
CHATTY = Edit(
    target="memory",
    content="Explain every step you take in detail.",
    status="rejected",
    reason="fewer passes on the other tasks: 0.95 -> 0.60 (p = 8.92e-06)",
)
SHORT = Edit(
    target="memory",
    content="Keep summaries under five lines.",
    status="rejected",
    reason="over tonight's edit budget of 2",
)


def _ev(
    edit: Edit,
    verdict: str,
    reason: str,
    eff: tuple[int, int, int, int],
    harm: tuple[int, int, int, int],
    **more,
) -> EditEvidence:
    return EditEvidence(
        edit=edit,
        verdict=verdict,
        reason=reason,
        cited=["t1", "t2"],
        unseen=["t3"],
        harm_tasks=[f"h{i}" for i in range(12)],
        efficacy=Counts(
            **dict(zip(("before_pass", "before_n", "after_pass", "after_n"), eff, strict=True))
        ),
        harm=Counts(
            **dict(zip(("before_pass", "before_n", "after_pass", "after_n"), harm, strict=True))
        ),
        looks=2,
        **more,
    )


EVIDENCE = [
    _ev(
        PYTEST,
        "accepted",
        "helps where it acts (p = 8.92e-06 <= 0.004)",
        (3, 20, 18, 20),
        (40, 40, 40, 40),
        p_efficacy=8.92e-06,
        alpha=0.004,
        p_harm=1.0,
        e_value=310.0,
        e_total=310.0,
        example=Example(
            task_id="t1",
            request="Run the tests for the parser",
            before="Ran `pytest`: 12 passed.",
            after="Ran `pytest -q`: 12 passed.",
            after_passed=True,
        ),
    ),
    _ev(
        TITLE,
        "accepted",
        "helps where it acts (p = 0.0021 <= 0.004)",
        (5, 20, 16, 20),
        (38, 40, 35, 40),
        p_efficacy=0.0021,
        alpha=0.004,
        p_harm=0.21,
    ),
    _ev(
        CHATTY,
        "harmful",
        CHATTY.reason,
        (10, 20, 12, 20),
        (38, 40, 24, 40),
        p_efficacy=0.3,
        alpha=0.004,
        p_harm=8.92e-06,
    ),
    _ev(
        SHORT,
        "over_budget",
        "over tonight's edit budget of 2",
        (6, 20, 14, 20),
        (0, 0, 0, 0),
        p_efficacy=0.003,
        alpha=0.004,
    ),
]

NIGHT = NightSummary(
    night_id="20260301-031700-ab12cd",
    project="/home/dev/beta-app",
    started_at=STARTED,
    finished_at=STARTED + timedelta(minutes=7),
    decision="accept",
    reason="2 of 4 edits accepted: each helps where it acts and harms nothing elsewhere",
    n_train=14,
    n_holdout=8,
    edits=[PYTEST, TITLE],
    rejected_edits=[CHATTY, SHORT],
    evidence=EVIDENCE,
    proposal_dir="/home/dev/.local/share/skillopt-sleep/nights/20260301-031700-ab12cd",
    calls=171,
    tokens=40399,
    cost_usd=0.0123,
    target="simulated:sim-1",
    usage_by_role={
        "target": Usage(calls=168, input_tokens=34504, output_tokens=4745, cost_usd=0.0101),
        "optimizer": Usage(calls=3, input_tokens=939, output_tokens=211, cost_usd=0.0022),
    },
)


def earlier_rules() -> list[RuleView]:
    """Two rules adopted a month before: one the agent follows, one it ignores."""
    adopted = STARTED - timedelta(days=28)
    views = []
    for n, (text, said_after) in enumerate(
        [
            ("Use uv, never pip.", None),
            ("Answer in British English.", "no, British spelling please"),
        ]
    ):
        tasks = []
        for i in range(16):
            when = adopted - timedelta(days=28) + timedelta(days=3.5 * i)
            said = (
                ("no, use uv" if n == 0 else "no, British spelling please")
                if when < adopted
                else said_after
            )
            turns = [TurnNote(kind="correction", text=said, at=when)] if said else []
            intent = (
                f"install the {['http', 'yaml', 'toml', 'rich'][i % 4]} package"
                if n == 0
                else f"write the {['intro', 'summary', 'notes', 'faq'][i % 4]} page"
            )
            tasks.append(
                TaskRecord(
                    source="claude-code",
                    project=NIGHT.project,
                    session_id=f"s{n}{i}",
                    created_at=when,
                    intent=intent,
                    turns=turns,
                )
            )
        edit = Edit(target="memory", content=text, status="applied")
        rule = AdoptedRule(
            id=rule_id(edit),
            project=NIGHT.project,
            text=text,
            target="memory",
            files=[],
            night_id="20260201-031700-aaaaaa",
            adopted_at=adopted,
            edit=edit,
            task_ids=[tasks[0].id],
            cited=[tasks[0].id],
            exemplars=[tasks[0].intent],
            preference_keys=sorted({x.key for x in preference_sightings(tasks[:1])}),
        )
        views.append(RuleView(rule, {}, assess(rule, tasks)))
    return views
