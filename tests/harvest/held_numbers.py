"""Sessions recorded with the real ``claude`` and ``codex`` where the correction says the answer
again with a number in it: a date the release ships on, in English (after "No,"), Spanish and
Indonesian (with no cue of a correction but the answer said again), after a short answer the
number would otherwise be a character ceiling of; and, beside them, a number said on its own
after the user says the answer's opening again, which is still a ceiling.

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.held_numbers tests/fixtures/held_shapes/numbers
"""

from __future__ import annotations

import sys
from pathlib import Path

from .check_conversations import record_with_files
from .conversations import Scenario
from .fresh_conversations import _said

NUMBERS = Path(__file__).resolve().parents[1] / "fixtures" / "held_shapes" / "numbers"

RELEASE_LATE = "Release 5.2 ships soon."
RELEASE_DATED = "Release 5.2 ships on 14 May."
RELEASE_FIXED = f"No, {RELEASE_DATED[0].lower()}{RELEASE_DATED[1:]}"
PUSH_LONG = "Release 5.2 is here with a faster CSV importer and a new exporter for reports!"
PUSH_SHORT = "Release 5.2 is here: faster CSV import."

NUMBER_SESSIONS: tuple[Scenario, ...] = (
    _said(
        "claude",
        "larch",
        "Write the one-line status for the release channel.",
        RELEASE_LATE,
        RELEASE_FIXED,
        RELEASE_DATED,
    ),
    _said(
        "codex",
        "larch",
        "Escribe la línea de estado para el canal de lanzamientos.",
        "La versión 3.1 sale pronto.",
        "La versión 3.1 sale el 12 de junio.",
        "La versión 3.1 sale el 12 de junio.",
    ),
    _said(
        "claude",
        "larch",
        "Tulis status satu baris untuk kanal rilis.",
        "Versi 2.0 rilis minggu depan.",
        "Versi 2.0 rilis tanggal 15 Juni.",
        "Versi 2.0 rilis tanggal 15 Juni.",
    ),
    _said(
        "codex",
        "larch",
        "Write the push text for release 5.2.",
        PUSH_LONG,
        "The opening release 5.2 is here is fine, no more than 40 though.",
        PUSH_SHORT,
    ),
)


def main(argv: list[str]) -> int:
    return record_with_files(argv, NUMBERS, NUMBER_SESSIONS, {"larch": {"README.md": "# larch\n"}})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
