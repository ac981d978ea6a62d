"""The recurring preferences of :class:`~worlds.preference_world.PreferenceWorld`.

Eight kinds of thing a user keeps correcting. Each kind has several intent templates (so two
tasks of a kind are rarely the same text), the rule check that scores an answer, the user's
correction, the rule that fixes it (in two phrasings: an optimizer does not always word a lesson
the same way), and a regex that finds either phrasing in a system text. An
answer is one fragment: ``right`` passes the kind's check, ``wrong`` fails it.

Besides the correct rules there are rules that change nothing (:data:`USELESS_RULES`), a rule
that breaks every kind (:data:`BREAKS_ALL`) and a rule that perfects one kind and breaks the
others (:data:`HELPS_ONE`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from skillopt_sleep.models import Check

BASE_RATE = 0.25  # an agent follows an unstated preference this often
RULE_RATE = 0.9  # ... and this often when the correct rule is in its instructions
BROKEN_RATE = 0.05  # ... and this often when a harmful rule pushes the other way

MODULES = (
    "parser",
    "exporter",
    "scheduler",
    "auth",
    "cache",
    "cli",
    "billing",
    "search",
    "sync",
    "upload",
)


@dataclass(frozen=True, eq=False)
class Kind:
    """One recurring preference (compared and hashed by identity: there is one of each)."""

    key: str
    topic: re.Pattern[str]  # an intent of this kind matches; no intent of another kind does
    templates: tuple[str, ...]  # intents, with ``{module}`` filled in
    check: Check
    feedback: str  # the user's correction
    rules: tuple[str, ...]  # phrasings of the rule that makes the agent follow the preference
    rule_re: re.Pattern[str]  # finds any of ``rules`` in a system text
    target: str  # where the optimizer writes the rule: "skill" or "memory"
    right: str
    wrong: str

    @property
    def rule(self) -> str:
        """The rule's first phrasing."""
        return self.rules[0]


def _kind(
    key: str,
    topic: str,
    templates: tuple[str, ...],
    check: Check,
    feedback: str,
    rules: tuple[str, ...],
    rule_re: str,
    target: str,
    right: str,
    wrong: str,
) -> Kind:
    return Kind(
        key,
        re.compile(topic, re.IGNORECASE),
        templates,
        check,
        feedback,
        rules,
        re.compile(rule_re),
        target,
        right,
        wrong,
    )


KINDS: tuple[Kind, ...] = (
    _kind(
        "readme-title",
        r"\bREADME\b",
        (
            "Write the README introduction for the {module} module.",
            "Draft the README section that explains {module}.",
            "Update the README now that {module} is public.",
        ),
        Check(kind="heading", value="Beta App"),
        "The README title is 'Beta App', as a level-1 heading, every time.",
        (
            "The README's title is always 'Beta App', as a level-1 heading.",
            "Open every README with the level-1 heading '# Beta App'.",
        ),
        r"'(# )?Beta App'",
        "memory",
        "# Beta App\n\nA small app for tracking beta testers.",
        "# beta_app\n\nA small app.",
    ),
    _kind(
        "pytest-quiet",
        r"\btests?\b",
        (
            "How do I run the tests for {module}?",
            "Run the {module} test suite and tell me what failed.",
            "Check that the {module} tests still pass after my change.",
        ),
        Check(kind="contains", value="pytest -q"),
        "Run the tests with `pytest -q`; the verbose output is noise to me.",
        (
            "Run the test suite with `pytest -q`, never bare `pytest`.",
            "Use `pytest -q` to run the tests.",
        ),
        r"`pytest -q`",
        "skill",
        "Run them with `pytest -q`.",
        "Run them with `pytest -v`.",
    ),
    _kind(
        "logging",
        r"\bdebug",
        (
            "Add debug output to {module} so I can see what it loads.",
            "Show me how {module} should report what it does while I debug it.",
            "I need debugging output in {module} for the next release.",
        ),
        Check(kind="not_contains", value="print("),
        "Use the logging module for debug output, not print().",
        (
            "Use the logging module (logging.getLogger(__name__)) for diagnostics, never print().",
            "Report diagnostics through logging.getLogger(__name__), not print().",
        ),
        r"logging\.getLogger\(__name__\)",
        "skill",
        'log = logging.getLogger(__name__)\nlog.debug("loaded %s", path)',
        'print("loaded", path)',
    ),
    _kind(
        "conventional-commits",
        r"\bcommit\b",
        (
            "Write the commit message for the {module} change.",
            "Commit the {module} fix with a good message.",
            "Give me a commit message for what we just did in {module}.",
        ),
        Check(kind="regex", value=r"^(feat|fix|docs|refactor|chore)(\([\w-]+\))?: \S"),
        "Commit messages follow Conventional Commits: type(scope): summary.",
        (
            "Write commit messages as Conventional Commits: `type(scope): summary`.",
            "Commit messages follow the Conventional Commits format.",
        ),
        r"Conventional Commits",
        "skill",
        "feat(core): add the new option",
        "Added the new option",
    ),
    _kind(
        "type-hints",
        r"\bfunction\b",
        (
            "Write a helper function in {module} that parses the settings.",
            "Add a function to {module} that loads the saved state.",
            "I need a small function in {module} to normalise names.",
        ),
        Check(kind="regex", value=r"def \w+\([^)]*:[^)]*\) -> "),
        "Every new function needs full type hints, the return type included.",
        (
            "Give every new Python function full type hints, return type included.",
            "Annotate every new function fully: parameters and return type.",
        ),
        r"full type hints|Annotate every new function",
        "memory",
        "def load(path: str) -> dict[str, str]:\n    ...",
        "def load(path):\n    ...",
    ),
    _kind(
        "brevity",
        r"\bsummar",
        (
            "Summarize the {module} change for the team.",
            "Give me a summary of what changed in {module}.",
            "Write a short summary of the {module} work.",
        ),
        Check(kind="max_chars", value=300),
        "Too long: summaries must stay under 300 characters.",
        ("Keep summaries under 300 characters.", "A summary is at most 300 characters long."),
        r"[Ss]ummar(y|ies) .{0,20}300 characters",
        "memory",
        "Short version: the change adds the option and its docs.",
        "Sure! Here is a detailed account of everything that happened in this change. " * 5,
    ),
    _kind(
        "changelog",
        r"\bchangelog\b",
        (
            "Add a changelog entry for the {module} change.",
            "Record the {module} improvement in the changelog.",
            "Update the changelog: {module} got faster.",
        ),
        Check(kind="contains", value="## [Unreleased]"),
        "New changelog entries go under the [Unreleased] section, not a version heading.",
        (
            "Add changelog entries under `## [Unreleased]` in CHANGELOG.md.",
            "New CHANGELOG.md entries go in the `## [Unreleased]` section.",
        ),
        r"`## \[Unreleased\]`",
        "skill",
        "## [Unreleased]\n- The module got faster.",
        "## v2.4.0\n- The module got faster.",
    ),
    _kind(
        "iso-dates",
        r"\bdate\b",
        (
            "Note the release date of {module} in the docs.",
            "Put the date {module} was last released in its docs.",
            "Which date did {module} ship? Write it in the docs.",
        ),
        Check(kind="regex", value=r"\b\d{4}-\d{2}-\d{2}\b"),
        "Write dates as YYYY-MM-DD.",
        ("Write dates in ISO 8601 form (YYYY-MM-DD).", "Dates are always written YYYY-MM-DD."),
        r"ISO 8601|YYYY-MM-DD",
        "memory",
        "Released on 2026-03-14.",
        "Released on March 14, 2026.",
    ),
)

BY_KEY = {k.key: k for k in KINDS}

USELESS_RULES: tuple[str, ...] = (
    "Double-check your work before answering.",
    "Read the task carefully before you start.",
    "Prefer clear, descriptive names.",
    "Keep the code readable and well organised.",
    "Think about edge cases before writing code.",
    "Be consistent with the surrounding code.",
)

BREAKS_ALL = "Keep every answer to the bare minimum and leave out project-specific conventions."
HELPS_ONE = "Reply to every request with a single `type(scope): summary` line and nothing else."
HELPED_KIND = "conventional-commits"  # the kind HELPS_ONE perfects
HARMFUL_RULES: tuple[str, ...] = (BREAKS_ALL, HELPS_ONE)


def kind_of_intent(text: str) -> Kind | None:
    """The kind an intent belongs to (the first whose topic it matches), or None."""
    for kind in KINDS:
        if kind.topic.search(text):
            return kind
    return None
