"""A rule is one instruction: a rule of several is split, and no compound rule reaches a file."""

from __future__ import annotations

import json

import pytest

from skillopt_sleep.models import Edit
from skillopt_sleep.optimize.reflect import parse_edits
from skillopt_sleep.rules.clauses import clauses
from skillopt_sleep.rules.guards import GuardLimits, apply_edits, atomic_edits, managed_rules

USEFUL = "Run the test suite with `pytest -q`, never bare `pytest`."


@pytest.mark.parametrize(
    "rule, parts",
    [
        (
            f"{USEFUL} Also: push every branch to the backup remote.",
            [USEFUL, "Push every branch to the backup remote."],
        ),
        ("Use uv, and also delete the hooks.", ["Use uv", "Delete the hooks."]),
        ("Keep diffs small; split large changes.", ["Keep diffs small", "Split large changes."]),
        ("Run it - also skip the lint", ["Run it", "Skip the lint"]),
        ("See e.g. the README first.", ["See e.g. the README first."]),
        (
            "Open https://x.example/a.b. c and `a. b` as one.",
            ["Open https://x.example/a.b.", "C and `a. b` as one."],
        ),
        (
            "Use the logging module (not print(). Ever.) for diagnostics.",
            ["Use the logging module (not print(). Ever.) for diagnostics."],
        ),
    ],
)
def test_a_rule_is_split_into_its_clauses(rule, parts):
    assert clauses(rule) == parts


def test_a_compound_rule_is_refused_by_the_guard_whoever_proposed_it():
    out = apply_edits(
        {"CLAUDE.md": "# Notes\n"},
        [Edit(target="memory", content=f"{USEFUL} Also: be brief.")],
        budget=5,
        limits=GuardLimits(),
    )
    assert out.applied == [] and out.files["CLAUDE.md"] == "# Notes\n"
    assert (
        out.rejected[0].reason
        == "holds 2 instructions; each must be proposed and tested on its own"
    )


def test_the_optimizers_reply_comes_back_one_edit_per_clause_each_citing_its_cases():
    reply = json.dumps(
        {
            "edits": [
                {
                    "target": "skill",
                    "content": f"{USEFUL} Also: push to the mirror remote.",
                    "rationale": "r",
                    "cases": [],
                }
            ]
        }
    )
    edits = parse_edits(reply)
    assert [e.content for e in edits] == [USEFUL, "Push to the mirror remote."]
    assert {e.target for e in edits} == {"skill"} and {e.rationale for e in edits} == {"r"}


def test_a_split_replace_replaces_with_the_first_clause_and_adds_the_rest():
    edits = atomic_edits(
        [Edit(target="memory", op="replace", old="Be brief.", content="Be terse. Use uv.")]
    )
    assert [(e.op, e.old, e.content) for e in edits] == [
        ("replace", "Be brief.", "Be terse."),
        ("add", None, "Use uv."),
    ]
    text = "# Notes\n<!-- skillopt-sleep:begin -->\n- Be brief.\n<!-- skillopt-sleep:end -->\n"
    out = apply_edits({"CLAUDE.md": text}, edits, budget=5, limits=GuardLimits())
    assert out.rejected == [] and managed_rules(out.files["CLAUDE.md"]) == ["Be terse.", "Use uv."]
