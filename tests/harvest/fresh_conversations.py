"""A second set of conversations recorded with the real ``claude`` and ``codex``, written after the
check miner was built and kept apart from its tuning: 20 corrections (14 of what the agent *did*:
the tool it ran, a file it read, wrote or deleted; 6 of what it *said*), in English, German and
French, with praise and follow-ups between them. ``bench/corrections.py`` counts how many of the
corrections land on their request and yield a check that fails on the corrected attempt.

Measured before any change was made with these sessions in view: 13 of 20 corrections attached
to their request (7 became tasks of their own), 10 of 20 yielded a failing rule or action check.
Four changes followed from reading its misses: an output redirect such as ``2>&1`` hid the file a
``sed -i`` edited; linters, formatters and type checkers became tools of one job ("use ruff,
flake8 is gone" corrects a flake8 run); a command codex refused to start (``rm -rf``: "rm -f style
commands are not permitted") is kept as what the attempt tried, as Claude Code's denied calls
are; a German compound names the directory it is made of (``.cache-Ordner``). After them: 17 of
20 attached, 14 of 20 with a check. Figures on this set after those changes are no longer an
estimate for unseen sessions.

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.fresh_conversations tests/fixtures/conversations_fresh
"""

from __future__ import annotations

import sys
from pathlib import Path

from skillopt_sleep.testing.replies import Reply, Text
from skillopt_sleep.testing.scripts import claude_bash, codex_exec

from .conversations import Scenario, Step, record_into

FRESH = Path(__file__).resolve().parents[1] / "fixtures" / "conversations_fresh"


def _run(agent: str, command: str, said: str) -> tuple[Reply, ...]:
    call = claude_bash(command) if agent == "claude" else codex_exec(command)
    return (call, Text(said))


def _acted(
    agent: str,
    project: str,
    request: str,
    bad: tuple[str, str],
    correction: str,
    good: tuple[str, str],
    *later: Step,
) -> Scenario:
    """A request the agent does with one command, corrected, redone with another, then ``later``."""
    steps = (
        Step(request, _run(agent, *bad), "new"),
        Step(correction, _run(agent, *good), "resume", "correction", checkable=True),
        *later,
    )
    return Scenario(request[:28], agent, project, steps)  # type: ignore[arg-type]


def _said(
    agent: str, project: str, request: str, bad: str, correction: str, good: str, *later: Step
) -> Scenario:
    steps = (
        Step(request, (Text(bad),), "new"),
        Step(correction, (Text(good),), "resume", "correction", checkable=True),
        *later,
    )
    return Scenario(request[:28], agent, project, steps)  # type: ignore[arg-type]


def _praise(agent: str, text: str) -> Step:
    return Step(
        text, (Text("Glad it helps."),), "continue" if agent == "claude" else "last", "praise"
    )


FRESH_SESSIONS: tuple[Scenario, ...] = (
    _acted(
        "claude",
        "theta",
        "Install the dependencies.",
        ("pip install -r requirements.txt 2>&1 | tail -1", "Installed with pip."),
        "We use poetry in this repo, so `poetry install`, not pip.",
        ("echo 'poetry install: done'", "Installed with poetry."),
        _praise("claude", "Thanks!"),
    ),
    _acted(
        "codex",
        "theta",
        "Format the code.",
        ("black . 2>&1 | tail -1", "Formatted with black."),
        "Don't use black here, we format with ruff format.",
        ("echo 'ruff format: 3 files left unchanged'", "Formatted with ruff."),
    ),
    _acted(
        "claude",
        "iota",
        "Look at the config and tell me the database host.",
        ("cat .env 2>&1 | head -3", "The host is db.local (from .env)."),
        "Never open .env, it holds secrets. Read config/settings.toml instead.",
        ("cat config/settings.toml 2>/dev/null || echo 'host = db.local'", "db.local"),
        _praise("claude", "Perfect, thank you."),
    ),
    _acted(
        "codex",
        "iota",
        "Clean up the build artefacts.",
        ("rm -rf dist build", "Removed dist/ and build/."),
        "Leave dist alone, the release script needs it.",
        ("rm -rf build", "Removed build/ only."),
    ),
    _acted(
        "claude",
        "kappa",
        "Fix the typo 'recieve' in the parser.",
        (
            "sed -i 's/recieve/receive/' vendor/parser.py 2>&1 | tail -1",
            "Fixed in vendor/parser.py.",
        ),
        "Don't touch anything under vendor/, patch it in src/ instead.",
        ("sed -i 's/recieve/receive/' src/parser.py 2>&1 | tail -1", "Fixed in src/parser.py."),
        Step(
            "Now add a test for it.",
            _run("claude", "echo 'test added'", "Added a test."),
            "continue",
            "follow_up",
        ),
    ),
    _acted(
        "codex",
        "kappa",
        "Run the linter.",
        ("flake8 . 2>&1 | tail -1", "flake8 reports no problems."),
        "Use ruff check, flake8 is gone from this project.",
        ("echo 'ruff check: All checks passed!'", "ruff check: all passed."),
        _praise("codex", "👌"),
    ),
    _acted(
        "claude",
        "lambda",
        "Starte den Dev-Server.",
        ("npm start 2>&1 | tail -1", "Der Server läuft (npm start)."),
        "Nein, wir nutzen pnpm, nicht npm.",
        ("echo 'pnpm dev: ready on :3000'", "Läuft mit pnpm."),
    ),
    _acted(
        "codex",
        "lambda",
        "Lösch die temporären Dateien.",
        ("rm -rf tmp/ .cache/", "tmp/ und .cache/ gelöscht."),
        "Den .cache-Ordner bitte nicht anfassen, der ist teuer neu zu bauen.",
        ("rm -rf tmp/", "Nur tmp/ gelöscht."),
        _praise("codex", "Danke dir!"),
    ),
    _acted(
        "claude",
        "mu",
        "Show me what changed recently.",
        ("git log -n 20 2>&1 | head -5", "Here are the last 20 commits."),
        "Please don't dump the whole log on me, use git log --oneline.",
        ("git log --oneline -n 20 2>&1 | head -5", "Here they are, one per line."),
    ),
    _acted(
        "codex",
        "mu",
        "Run the tests.",
        ("python -m pytest 2>&1 | tail -1", "All tests pass."),
        "Stop running the whole suite every time, only tests/unit please.",
        ("python -m pytest tests/unit 2>&1 | tail -1", "Unit tests pass."),
    ),
    _acted(
        "claude",
        "nu",
        "Update the lockfile.",
        ("rm -f package-lock.json && echo 'npm install: done'", "Regenerated the lockfile."),
        "Never delete package-lock.json, update it in place with npm install.",
        ("echo 'npm install: lockfile updated'", "Updated it in place."),
    ),
    _acted(
        "codex",
        "nu",
        "Check the types.",
        ("mypy . 2>&1 | tail -1", "mypy: no issues."),
        "We use pyright for type checking, not mypy.",
        ("echo 'pyright: 0 errors'", "pyright: 0 errors."),
    ),
    _acted(
        "claude",
        "xi",
        "Lance les tests.",
        ("python3 -m unittest 2>&1 | tail -1", "Les tests passent (unittest)."),
        "Non, utilise pytest, pas unittest.",
        ("echo 'pytest: 4 passed'", "4 tests passent avec pytest."),
        _praise("claude", "Parfait, merci !"),
    ),
    _acted(
        "codex",
        "xi",
        "Build the docs.",
        ("make -C docs html 2>&1 | tail -1", "Built the docs with make."),
        "We switched to mkdocs, run mkdocs build instead of make.",
        ("echo 'mkdocs build: site built'", "Built with mkdocs."),
    ),
    _said(
        "claude",
        "omicron",
        "Write a one-line description of the project.",
        "A tool that gives your coding agent a nightly sleep!!!",
        "No exclamation marks, please.",
        "A tool that gives your coding agent a nightly sleep.",
    ),
    _said(
        "codex",
        "omicron",
        "Summarise the changelog.",
        "- New CLI\n- Faster nights\n- Better reports\n- Fewer dependencies\n- New docs",
        "Just two bullet points.",
        "- New CLI and faster nights\n- Better reports and docs",
        _praise("codex", "Great, thanks."),
    ),
    _said(
        "claude",
        "pi",
        "Give me the API base URL.",
        "The base URL is http://localhost:8000/api/v1, as set in the config.",
        "Only the URL, nothing else.",
        "http://localhost:8000/api/v1",
    ),
    _said(
        "codex",
        "pi",
        "Write the changelog heading for 3.1.",
        "Version 3.1",
        "It has to be a markdown heading: '## 3.1.0'.",
        "## 3.1.0",
    ),
    _said(
        "claude",
        "rho",
        "Draft the release tweet.",
        "Release 3.1 is out with faster nights #python #release",
        "No hashtags.",
        "Release 3.1 is out with faster nights.",
        _praise("claude", "Nice."),
    ),
    _said(
        "codex",
        "rho",
        "Schreib den Betreff für die Release-Mail.",
        "RELEASE 3.1 IST DA",
        "Nicht alles in Großbuchstaben bitte.",
        "Release 3.1 ist da",
    ),
)


def main(argv: list[str]) -> int:
    return record_into(argv, FRESH, FRESH_SESSIONS)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
