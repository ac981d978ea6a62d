"""Sessions recorded with the real ``claude`` and ``codex`` for text corrections whose checks are
generated and held against the corrected attempt and the user's example built from it: a
reference shape, a relative link, a required last line (German), no emoji (Spanish), a spelling,
a limit in lines (French) and one in characters split over two messages, then praise after it;
a command named in Italian after a command, and one after a slash-command request.

Each scenario carries the user's example (the answer, or the command) a check must pass on.

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.held_shapes tests/fixtures/held_shapes
"""

from __future__ import annotations

import sys
from pathlib import Path

from skillopt_sleep.testing.replies import Text

from .check_conversations import record_with_files
from .conversations import Scenario, Step
from .fresh_conversations import _acted, _praise, _run, _said

HELD = Path(__file__).resolve().parents[1] / "fixtures" / "held_shapes"

_TICKETS = "- ticket 88: refunds\n- ticket 91: receipts"
_WIDGET = (
    "Version 2.0 brings:\n- a new editor\n- offline mode\n- faster sync\n- dark theme\n"
    "- shared folders\n- a calmer inbox"
)
_BANNER = "Scheduled maintenance on Sunday night will pause every payment and refund job"


def _split_said(
    agent: str, project: str, request: str, bad: str, first: str, second: str, good: str
) -> Scenario:
    """An answer corrected in two messages (``first`` only says it is wrong), then praised."""
    steps = (
        Step(request, (Text(bad),), "new"),
        Step(first, (Text("Sorry, what would you like instead?"),), "resume", "correction"),
        Step(second, (Text(good),), "resume", "correction", checkable=True),
        _praise(agent, "Yes, that reads much better."),
    )
    return Scenario(request[:28], agent, project, steps)  # type: ignore[arg-type]


HELD_SESSIONS: tuple[Scenario, ...] = (
    _said(
        "claude",
        "maple",
        "List the tickets I closed today.",
        _TICKETS,
        "Our tracker links `PAY-88`; 'ticket 88' is just words to it.",
        "- PAY-88: refunds\n- PAY-91: receipts",
    ),
    _said(
        "codex",
        "maple",
        "Link the setup guide from the intro.",
        "Details in [setup](https://gitlab.com/acme/app/-/blob/main/docs/setup.md).",
        "The wiki is mirrored offline, so no gitlab.com in there; `./setup.md` is enough.",
        "Details in [setup](./setup.md).",
    ),
    _said(
        "claude",
        "maple",
        "Fasse die Änderung am Handbuch zusammen.",
        "Tippfehler im Handbuch behoben.",
        "Der Bot nimmt nur Zusammenfassungen an, deren letzte Zeile `Geprüft: QA` ist.",
        "Tippfehler im Handbuch behoben.\nGeprüft: QA",
    ),
    _said(
        "codex",
        "maple",
        "Escribe el anuncio de la versión.",
        "✨ Nueva versión disponible 🎊 con búsqueda rápida.",
        "Sin emojis, por favor; el boletín se imprime en papel.",
        "Nueva versión disponible con búsqueda rápida.",
    ),
    _said(
        "claude",
        "maple",
        "Write the intro line for the database page.",
        "Postgres SQL 16 is now the default database.",
        "We write it `PostgreSQL`; 'Postgres SQL' looks sloppy in print.",
        "PostgreSQL 16 is now the default database.",
    ),
    _said(
        "codex",
        "maple",
        "Rédige la note de version pour le widget.",
        _WIDGET,
        "Le widget n'affiche que trois lignes, donc trois lignes au maximum.",
        "Version 2.0 brings:\n- a new editor\n- offline mode",
    ),
    _split_said(
        "claude",
        "maple",
        "Write the maintenance banner.",
        _BANNER,
        "Too long.",
        "Forty characters is the limit for that banner.",
        "Payments pause Sunday night",
    ),
    _acted(
        "codex",
        "maple",
        "Start the app locally.",
        ("python manage.py runserver 2>&1 | tail -1", "Started on port 8000."),
        "Qui si usa `docker compose up web`, il database gira nel container.",
        ("echo 'web started'", "Started with compose."),
    ),
    Scenario(
        "/sweep",
        "claude",
        "maple",
        (
            Step("/sweep", _run("claude", "rm -rf tmp notes.txt 2>&1 | tail -1", "Swept."), "new"),
            Step(
                "My notes.txt went with it; `git clean -fdX` removes just the ignored files.",
                _run("claude", "echo 'Removing tmp/'", "Cleaned with git clean -fdX."),
                "resume",
                "correction",
                checkable=True,
            ),
        ),
    ),
)

# The user's own example for each corrected request: the answer, or the command to run.
HELD_EXAMPLES: dict[str, str] = {
    "List the tickets I closed today.": "- PAY-88: refunds\n- PAY-91: receipts",
    "Link the setup guide from the intro.": "Details in [setup](./setup.md).",
    "Fasse die Änderung am Handbuch zusammen.": "Tippfehler im Handbuch behoben.\nGeprüft: QA",
    "Escribe el anuncio de la versión.": "Nueva versión disponible con búsqueda rápida.",
    "Write the intro line for the database page.": "PostgreSQL 16 is now the default database.",
    "Rédige la note de version pour le widget.": "Version 2.0 brings:\n- a new editor",
    "Write the maintenance banner.": "Payments pause Sunday night",
}
HELD_COMMANDS: dict[str, str] = {
    "Start the app locally.": "docker compose up web",
    "/sweep": "git clean -fdX",
}
HELD_FILES = {
    "maple": {
        ".claude/commands/sweep.md": "---\ndescription: Sweep\n---\nRemove the leftovers.\n",
        "notes.txt": "my notes\n",
        "tmp/cache.bin": "x\n",
    }
}


def main(argv: list[str]) -> int:
    return record_with_files(argv, HELD, HELD_SESSIONS, HELD_FILES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
