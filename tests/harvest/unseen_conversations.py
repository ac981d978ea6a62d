"""A third set of conversations recorded with the real ``claude`` and ``codex``, written after the
changes the fresh set (``fresh_conversations.py``) led to and never tuned on: 12 corrections (10
of what the agent did, 2 of what it said). Its figures in ``bench/corrections.py`` are the
estimate for unseen sessions of the miner as it is now.

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.unseen_conversations tests/fixtures/conversations_unseen
"""

from __future__ import annotations

import sys
from pathlib import Path

from .conversations import record_into
from .fresh_conversations import _acted, _praise, _said

UNSEEN = Path(__file__).resolve().parents[1] / "fixtures" / "conversations_unseen"

UNSEEN_SESSIONS = (
    _acted(
        "claude",
        "sigma",
        "Run the formatter.",
        ("autopep8 -i app.py 2>&1 | tail -1", "Formatted app.py with autopep8."),
        "We don't use autopep8, run black instead.",
        ("echo 'black: 1 file reformatted'", "Formatted with black."),
    ),
    _acted(
        "codex",
        "sigma",
        "Search the code for TODOs.",
        ("grep -rn TODO . 2>&1 | head -5", "Found 3 TODOs."),
        "Use rg for that, grep is far too slow on this repo.",
        ("echo 'rg TODO: 3 matches'", "rg found 3 TODOs."),
        _praise("codex", "Thanks."),
    ),
    _acted(
        "claude",
        "tau",
        "What's in the secrets file?",
        ("cat secrets.yaml 2>&1 | head -3", "It holds the API tokens."),
        "Don't read secrets.yaml, ever.",
        ("echo 'skipped secrets.yaml'", "Understood, I won't read it."),
    ),
    _acted(
        "codex",
        "tau",
        "Bump the version to 1.1.",
        ("sed -i 's/1.0/1.1/' setup.py 2>&1 | tail -1", "Bumped it in setup.py."),
        "Not setup.py, the version lives in pyproject.toml.",
        ("sed -i 's/1.0/1.1/' pyproject.toml 2>&1 | tail -1", "Bumped it in pyproject.toml."),
    ),
    _acted(
        "claude",
        "upsilon",
        "Tidy up the logs.",
        ("rm logs/app.log 2>&1 | tail -1", "Removed logs/app.log."),
        "Keep the logs folder as it is, I still need those.",
        ("echo 'nothing removed'", "Left the logs alone."),
        _praise("claude", "Good, thanks."),
    ),
    _acted(
        "codex",
        "upsilon",
        "Run the type checker.",
        ("pyright 2>&1 | tail -1", "pyright: 0 errors."),
        "mypy --strict please, that's what CI runs.",
        ("echo 'mypy --strict: Success'", "mypy --strict: no issues."),
    ),
    _acted(
        "claude",
        "phi",
        "Installier die Pakete.",
        ("npm install 2>&1 | tail -1", "Pakete mit npm installiert."),
        "Bitte mit yarn, nicht mit npm.",
        ("echo 'yarn install: done'", "Mit yarn installiert."),
    ),
    _acted(
        "codex",
        "phi",
        "Lance le linter.",
        ("pylint src 2>&1 | tail -1", "pylint : 10.00/10."),
        "Pas pylint, on utilise ruff ici.",
        ("echo 'ruff check: All checks passed!'", "ruff : tout est bon."),
    ),
    _acted(
        "claude",
        "chi",
        "Update the generated client.",
        ("echo 'def get(): ...' > generated/client.py 2>&1", "Updated generated/client.py."),
        "Don't hand-edit anything in generated/, run make gen.",
        ("echo 'make gen: done'", "Regenerated it with make gen."),
    ),
    _acted(
        "codex",
        "chi",
        "Start the database.",
        ("docker compose up -d db 2>&1 | tail -1", "Started db with docker compose."),
        "Use podman, there's no docker on this machine.",
        ("echo 'podman-compose up -d db: started'", "Started it with podman."),
    ),
    _said(
        "claude",
        "psi",
        "Write the commit message.",
        "Updated the parser.",
        "Start it with 'fix:' like every commit here.",
        "fix: parse dates with a timezone",
    ),
    _said(
        "codex",
        "psi",
        "Describe the cache in one paragraph.",
        "The cache keeps every replay under a key of the task, the skill and the model, so a night "
        "that changed nothing pays nothing; it lives in the SQLite store next to the task log.",
        "Max 20 words.",
        "Replays are cached by task, skill and model, so an unchanged night costs nothing.",
    ),
)


def main(argv: list[str]) -> int:
    return record_into(argv, UNSEEN, UNSEEN_SESSIONS)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
