"""Sessions recorded with the real ``claude`` and ``codex`` for the principles a mined check is
held to, in wordings and languages written after those principles were built and before the
miner was run on them: a span said against something ("None of our status lines opens with
'URGENT'"), a command named as where files come from (German), a file never to delete that the
user's own command rewrites (Spanish), a command whose output the agent piped, and a scope said
with "only" in Portuguese.

Each scenario carries the user's example (the answer, or the commands and the files they write)
no check may fail on.

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.held_principles tests/fixtures/held_shapes/principles
"""

from __future__ import annotations

import sys
from pathlib import Path

from .check_conversations import record_with_files
from .conversations import Scenario
from .fresh_conversations import _acted, _said

PRINCIPLES = Path(__file__).resolve().parents[1] / "fixtures" / "held_shapes" / "principles"

PRINCIPLE_SESSIONS: tuple[Scenario, ...] = (
    _said(
        "claude",
        "birch",
        "Write the status line for the outage.",
        "URGENT: payments are down.",
        "None of our status lines opens with 'URGENT'; it scares people into calling support.",
        "Payments are down; we are working on it.",
    ),
    _acted(
        "codex",
        "birch",
        "Formatiere den Code.",
        ("black . 2>&1 | tail -1", "Alles formatiert."),
        "In `proto/` wird nichts formatiert, die Dateien kommen aus `buf generate`. Nur `src/` "
        "bitte.",
        ("black src/ 2>&1 | tail -1", "Nur src/ formatiert."),
    ),
    _acted(
        "claude",
        "birch",
        "Actualiza las dependencias de Rust.",
        ("rm Cargo.lock && cargo update 2>&1 | tail -1", "Cargo.lock regenerado."),
        "Nunca borres `Cargo.lock`; `cargo update --workspace` ya lo actualiza.",
        ("cargo update --workspace 2>&1 | tail -1", "Dependencias actualizadas."),
    ),
    _acted(
        "codex",
        "birch",
        "Why is the api service down?",
        ("journalctl -u api 2>&1 | tail -50", "No journal entries for api."),
        "It runs in docker, so `docker logs api` is where its output goes.",
        ("docker logs api 2>&1 | tail -50", "It was OOM-killed at 03:12."),
    ),
    _acted(
        "claude",
        "birch",
        "Lista os ficheiros de configuração.",
        ("find . -name '*.yaml' 2>&1 | head -20", "./config/app.yaml\n./node_modules/x/a.yaml"),
        "Quero apenas o que está em `config/`.",
        ("find config -name '*.yaml' 2>&1 | head -20", "config/app.yaml"),
    ),
)

PRINCIPLE_FILES = {
    "birch": {
        "src/app.py": "x=1\n",
        "proto/api_pb2.py": "y=2\n",
        "Cargo.lock": "# lock\n",
        "config/app.yaml": "a: 1\n",
        "node_modules/x/a.yaml": "b: 2\n",
    }
}


def main(argv: list[str]) -> int:
    return record_with_files(argv, PRINCIPLES, PRINCIPLE_SESSIONS, PRINCIPLE_FILES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
