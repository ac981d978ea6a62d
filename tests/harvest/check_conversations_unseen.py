"""A fifth set of conversations recorded with the real ``claude`` and ``codex``, labelled by hand
like ``check_conversations.py`` and never tuned on: 14 corrections (7 of what the answer or a
file should say, 7 of what the agent did), new wordings of the same shapes, in English, German,
French and Spanish, with slash-command requests and a scope correction after a listing. Written
and recorded while the miner was being changed on ``check_conversations.py``, kept out of the
checkout until those changes had landed (362744b, 9a68a9d, b4238af): its figures in
``bench/corrections.py`` are the estimate for corrections nobody has read.

Measured (``python bench/corrections.py --baseline 4b6d96e --after b4238af``): before, 8 of 14
attached (1 of 7 about text), 8 with a failing check, 8 with a correct check, 5 with a
contradicting check (10 checks); after, 10 of 14 attached (3 of 7 about text), 10 with a failing
check, 9 with a correct check, 1 with a contradicting check (``never_ran --context`` from "Always
pass `--context staging` for this, never prod."). Still read as new requests: "Put it under the
`## Next release` heading; ...", "A setting nobody documented doesn't exist for our users: ...",
"Keep links inside the docs relative ...", "Start every summary with the date, ...".

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.check_conversations_unseen tests/fixtures/conversations_checks_unseen
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from .check_conversations import (
    Example,
    Want,
    _case,
    _patched,
    _slash,
    record_with_files,
)
from .conversations import Scenario, Step
from .fresh_conversations import _acted, _praise, _run, _said

CHECKS_UNSEEN = Path(__file__).resolve().parents[1] / "fixtures" / "conversations_checks_unseen"

UNSEEN_PROJECT_FILES: Mapping[str, Mapping[str, str]] = {
    "slash2": {
        ".claude/commands/deploy.md": "---\ndescription: Deploy\n---\n"
        "Deploy the app to the $ARGUMENTS cluster.\n",
        ".claude/commands/summary.md": "---\ndescription: Summarise the day\n---\n"
        "Summarise today's commits in this repository.\n",
    },
}

_CASES = (
    _case(
        _acted(
            "claude",
            "omega",
            "Run the linters.",
            ("pylint app/ 2>&1 | tail -1", "pylint: 9.8/10."),
            "Swap pylint for `ruff check app/`, please.",
            ("echo 'All checks passed!'", "ruff check app/: all passed."),
        ),
        "action",
        Want("never_ran", "pylint app/"),
        Want("ran", "ruff check app/"),
        example=Example(commands=("ruff check app/",)),
    ),
    _case(
        _acted(
            "codex",
            "omega",
            "Tidy the repo.",
            ("rm -rf .pytest_cache coverage/", "Removed .pytest_cache and coverage/."),
            "Clearing .pytest_cache is fine, but coverage/ holds the report I send out today, "
            "keep it.",
            ("rm -rf .pytest_cache", "Removed .pytest_cache only."),
            _praise("codex", "Thanks!"),
        ),
        "action",
        Want("untouched", "coverage"),
        example=Example(commands=("rm -rf .pytest_cache",), deletes=(".pytest_cache",)),
    ),
    _case(
        _acted(
            "claude",
            "psi2",
            "Why does the import fail?",
            ("cat build/trace.log 2>&1 | head -40", "Here is the trace."),
            "Don't read the entire trace.log to me, just `grep -n ImportError build/trace.log`.",
            (
                "grep -n ImportError build/trace.log 2>&1 | head -5",
                "One ImportError: yaml.",
            ),
        ),
        "action",
        Want("never_ran", "cat build/trace.log"),
        Want("ran", "grep -n ImportError build/trace.log"),
        example=Example(
            commands=("grep -n ImportError build/trace.log",),
            reads=("build/trace.log",),
        ),
    ),
    _case(
        _acted(
            "codex",
            "psi2",
            "Führe die Tests aus.",
            ("python3 -m unittest 2>&1 | tail -1", "OK (unittest)."),
            "Bitte mit `python3 -m pytest -q tests/`, nicht mit unittest.",
            ("echo '9 passed'", "python3 -m pytest -q tests/: 9 passed."),
        ),
        "action",
        Want("never_ran", "python3 -m unittest"),
        Want("ran", "python3 -m pytest -q tests/"),
        example=Example(commands=("python3 -m pytest -q tests/",)),
    ),
    _case(
        _acted(
            "claude",
            "rho2",
            "Mets à jour le numéro de version.",
            (
                "sed -i 's/0.9/1.0/' setup.cfg 2>&1 | tail -1",
                "Version mise à jour dans setup.cfg.",
            ),
            "Pas dans setup.cfg : la version est dans `src/pkg/__init__.py`.",
            (
                "sed -i 's/0.9/1.0/' src/pkg/__init__.py 2>&1 | tail -1",
                "Version mise à jour dans src/pkg/__init__.py.",
            ),
        ),
        "action",
        Want("untouched", "setup.cfg"),
        Want("changed", "src/pkg/__init__.py"),
        example=Example(
            commands=("sed -i 's/0.9/1.0/' src/pkg/__init__.py",),
            writes=(("src/pkg/__init__.py", '__version__ = "1.0"\n'),),
        ),
    ),
    _case(
        _acted(
            "codex",
            "rho2",
            "Arranca la base de datos.",
            ("docker compose up -d db 2>&1 | tail -1", "Arrancada con docker compose."),
            "Usa `podman compose up -d db`, aquí no hay docker.",
            ("echo 'db started'", "Arrancada con podman compose."),
        ),
        "action",
        Want("ran", "podman compose up -d db"),
        Want("never_ran", "docker compose up -d db"),
        example=Example(commands=("podman compose up -d db",)),
    ),
    _case(
        Scenario(
            "deploy",
            "claude",
            "slash2",
            (
                Step(
                    "/deploy staging",
                    _run(
                        "claude",
                        "kubectl apply -f k8s/ --context prod 2>&1 | tail -1",
                        "Done.",
                    ),
                    "new",
                ),
                Step(
                    "Always pass `--context staging` for this, never prod.",
                    _run("claude", "echo 'applied'", "Applied with --context staging."),
                    "resume",
                    "correction",
                    checkable=True,
                ),
            ),
        ),
        "action",
        Want("never_ran", "kubectl apply -f k8s/ --context prod"),
        Want("ran", "--context staging"),
        example=Example(commands=("kubectl apply -f k8s/ --context staging",)),
    ),
    _case(
        _said(
            "codex",
            "sigma2",
            "Write the changelog line for the new --json flag.",
            "### v0.8.0\n- --json output on every command",
            "Put it under the `## Next release` heading; versions get assigned at tagging time.",
            "## Next release\n- --json output on every command",
        ),
        "text",
        Want("heading", "Next release"),
        example=Example(answer="## Next release\n- --json output on every command"),
    ),
    _case(
        _patched(
            "sigma2",
            "Add the `max_workers` setting.",
            (
                "src/config.py",
                "MAX_WORKERS = 4\n",
                "Added MAX_WORKERS to src/config.py.",
            ),
            "A setting nobody documented doesn't exist for our users: add `max_workers` to "
            "`CONFIG.md` as well.",
            (
                "CONFIG.md",
                "## max_workers\nHow many replays run at once.\n",
                "Documented it.",
            ),
        ),
        "text",
        Want("changed", "CONFIG.md"),
        Want("file_contains", "max_workers", "CONFIG.md"),
        example=Example(
            writes=(
                ("src/config.py", "MAX_WORKERS = 4\n"),
                ("CONFIG.md", "## max_workers\nHow many replays run at once.\n"),
            )
        ),
    ),
    _case(
        _said(
            "claude",
            "tau2",
            "Link the contributing guide from the docs index.",
            "[Contributing](https://example.org/acme/docs/contributing.html)",
            "Keep links inside the docs relative (`contributing.md`); absolute URLs go stale.",
            "[Contributing](contributing.md)",
            _praise("claude", "Perfect."),
        ),
        "text",
        Want("not_contains", "https://example.org"),
        Want("contains", "(contributing.md)"),
        example=Example(answer="[Contributing](contributing.md)"),
    ),
    _case(
        _slash(
            "slash2",
            "/summary",
            "Today: a faster cache, a fixed parser and two new tests.",
            "Start every summary with the date, as in `2026-11-26:`.",
            "2026-11-26: a faster cache, a fixed parser and two new tests.",
        ),
        "text",
        Want("starts_with", "2026-11-26:"),
        Want("regex", "2026-11-26:"),
        example=Example(answer="2026-11-26: a faster cache, a fixed parser and two new tests."),
    ),
    _case(
        _said(
            "codex",
            "tau2",
            "Écris le titre de la PR.",
            "Amélioration du cache",
            "Le titre doit être en anglais et commencer par `perf:`.",
            "perf: cache replays by skill hash",
        ),
        "text",
        Want("starts_with", "perf:"),
        example=Example(answer="perf: cache replays by skill hash"),
    ),
    _case(
        _acted(
            "claude",
            "upsilon2",
            "Zeig mir alle TODOs.",
            (
                "grep -rn TODO . 2>&1 | head -5",
                "vendor/lib.py:3: TODO\nbuild/x.py:9: TODO\nsrc/app.py:12: TODO",
            ),
            "Ohne `vendor/` und `build/`, nur in `src/` suchen.",
            ("grep -rn TODO src/ 2>&1 | head -5", "src/app.py:12: TODO"),
        ),
        "text",
        Want("not_contains", "vendor/"),
        Want("ran", "grep -rn TODO src/"),
        example=Example(answer="src/app.py:12: TODO", commands=("grep -rn TODO src/",)),
    ),
    _case(
        _said(
            "codex",
            "upsilon2",
            "Write the alert text for the pager.",
            "DB IS DOWN!!! Check ASAP",
            "No exclamation marks in alerts, keep it calm.",
            "The database is down; please check it.",
        ),
        "text",
        Want("not_contains", "!"),
    ),
)

CHECK_UNSEEN_SESSIONS: tuple[Scenario, ...] = tuple(s for s, _ in _CASES)
CHECK_UNSEEN_LABELS = tuple(label for _, label in _CASES)


def main(argv: list[str]) -> int:
    return record_with_files(argv, CHECKS_UNSEEN, CHECK_UNSEEN_SESSIONS, UNSEEN_PROJECT_FILES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
