"""Before a rule is added: no repeat in other words, no silent override of the user's own line, a rule budget."""

from __future__ import annotations

from skillopt_sleep.models import Edit
from skillopt_sleep.rules.guards import GuardLimits, apply_edits
from skillopt_sleep.rules.managed_block import BEGIN, END

HAND = "# Notes\n\n- Run the tests with `pytest -q` before every commit.\n- Never use emojis in commit messages.\n"

LIMITS = GuardLimits()


def _add(files: dict[str, str], rule: str, limits: GuardLimits = LIMITS):
    return apply_edits(files, [Edit(target="memory", content=rule)], budget=5, limits=limits)


def test_a_rule_that_repeats_a_hand_written_line_in_other_words_is_not_added():
    out = _add({"CLAUDE.md": HAND}, "Before every commit, run the tests with `pytest -q`.")
    assert not out.applied
    assert out.rejected[0].reason.startswith("duplicate: CLAUDE.md already says this")


def test_a_rule_that_repeats_a_learned_rule_in_another_file_is_not_added():
    skill = f"---\nname: s\ndescription: d\n---\n{BEGIN}\n- Keep answers under ten lines.\n{END}\n"
    out = apply_edits(
        {"SKILL.md": skill, "CLAUDE.md": "# N\n"},
        [Edit(target="memory", content="Always keep answers under ten lines.")],
        budget=5,
        limits=GuardLimits(),
    )
    assert not out.applied and "already says this" in out.rejected[0].reason


def test_a_rule_that_contradicts_the_users_own_line_is_refused_with_that_line_quoted():
    out = _add({"CLAUDE.md": HAND}, "Use emojis in commit messages to mark the change type.")
    assert not out.applied
    reason = out.rejected[0].reason
    assert "contradicts your line 'Never use emojis in commit messages.' in CLAUDE.md" in reason
    assert out.files["CLAUDE.md"] == HAND  # never silently overridden


def test_related_but_compatible_rules_still_apply():
    out = _add({"CLAUDE.md": HAND}, "Write commit messages in the imperative mood.")
    assert [e.content for e in out.applied] == ["Write commit messages in the imperative mood."]


def test_the_number_of_learned_rules_is_held_under_its_limit():
    block = "".join(f"- Rule number {i} about topic{i}.\n" for i in range(3))
    files = {"CLAUDE.md": f"# N\n\n{BEGIN}\n{block}{END}\n"}
    out = _add(files, "Prefer dataclasses for plain records.", GuardLimits(max_rules=3))
    assert not out.applied
    assert out.rejected[0].reason.startswith(
        "CLAUDE.md already holds 3 learned rules, its limit ([files] max_rules = 3)"
    )
    assert _add(files, "Prefer dataclasses for plain records.", GuardLimits(max_rules=4)).applied
