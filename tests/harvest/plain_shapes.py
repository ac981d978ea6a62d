"""Small sessions recorded with the real ``claude`` and ``codex`` for plain-word corrections:
a length to fit in, words to leave out, a reference format (in German), a length in French; a
correction that opens by forbidding what the attempt did, one split over two messages, a scope on
a bare folder ("nothing in vendor"), and a command quoted back approvingly.

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.plain_shapes tests/fixtures/plain_shapes
"""

from __future__ import annotations

import sys
from pathlib import Path

from .check_conversations_third import _split_acted
from .conversations import Scenario, record_into
from .fresh_conversations import _acted, _said

PLAIN = Path(__file__).resolve().parents[1] / "fixtures" / "plain_shapes"

PLAIN_SESSIONS: tuple[Scenario, ...] = (
    _said(
        "claude",
        "fern",
        "Write the status line for the deploy.",
        "Deploy 4.2 finished: all twelve services are healthy, the queue drained in four minutes "
        "and nobody was paged.",
        "Too long for the status bar; keep it within 60 characters.",
        "Deploy 4.2 done, all services healthy.",
    ),
    _said(
        "codex",
        "fern",
        "Summarise the incident for the status page.",
        "The primary database db-primary-3 ran out of disk; we failed over at 14:05.",
        "Nothing about `db-primary-3` on a public page, please.",
        "The primary database ran out of disk; we failed over at 14:05.",
    ),
    _said(
        "claude",
        "fern",
        "Liste die Änderungen für das Release.",
        "- Behebt Issue 42\n- Neuer Export",
        "Schreib Issues als `GH-42`, nicht als Issue 42, sonst verlinkt der Tracker nichts.",
        "- Behebt GH-42\n- Neuer Export",
    ),
    _said(
        "codex",
        "fern",
        "Rédige le titre du commit.",
        "Corrige la gestion des jetons expirés lors de la connexion des utilisateurs mobiles",
        "Le titre doit faire moins de 50 caractères.",
        "Corrige les jetons expirés",
    ),
    _acted(
        "codex",
        "sorrel",
        "Lint the project.",
        ("ruff check . 2>&1 | tail -1", "Found 87 errors."),
        "Never run the linter over `generated/`, that is codegen output. Just `pkg/`.",
        ("ruff check pkg/ 2>&1 | tail -1", "All checks passed!"),
    ),
    _split_acted(
        "claude",
        "sorrel",
        "Restart the worker.",
        ("systemctl restart worker 2>&1 | tail -1", "Restarted."),
        "No, not that way.",
        "Everything here runs under compose: `docker compose restart worker`.",
        ("echo 'Container worker Started'", "Restarted with compose."),
    ),
    _acted(
        "codex",
        "sorrel",
        "Find the FIXMEs.",
        ("grep -rn FIXME vendor src 2>&1 | head -3", "Found three."),
        "Nothing in vendor, that's upstream code.",
        ("grep -rn FIXME src 2>&1 | head -3", "Found one."),
    ),
    _acted(
        "claude",
        "sorrel",
        "Run the test suite.",
        ("make test 2>&1 | tail -5", "All green."),
        "Yes, `make test` is right, but never pipe it into tail; I want the whole output.",
        ("make test", "All green."),
    ),
)


def main(argv: list[str]) -> int:
    return record_into(argv, PLAIN, PLAIN_SESSIONS)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
