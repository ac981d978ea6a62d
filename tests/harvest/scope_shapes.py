"""Small sessions recorded with the real ``claude`` and ``codex`` for the scope shape: a
correction that keeps the work out of one path ("never search under .venv") and in another
("look in app/ only"), said after a command that worked on both. Its own example is the
corrected command kept to that scope; no check mined from it may fail there. And a correction
that quotes back, word for word, the command it corrects: that command is what the user
objects to, never their example.

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.scope_shapes tests/fixtures/scope_shapes
"""

from __future__ import annotations

import sys
from pathlib import Path

from skillopt_sleep.testing.replies import Reply, Text
from skillopt_sleep.testing.scripts import claude_bash, codex_exec

from .conversations import Scenario, Step, record_into

SCOPES = Path(__file__).resolve().parents[1] / "fixtures" / "scope_shapes"


def _run(agent: str, command: str, said: str) -> tuple[Reply, ...]:
    call = claude_bash(command) if agent == "claude" else codex_exec(command)
    return (call, Text(said))


def _scoped(agent: str, project: str, request: str, bad: str, fix: str) -> Scenario:
    steps = (
        Step(request, _run(agent, bad, "Done."), "new"),
        Step(fix, (Text("Understood."),), "resume", "correction", checkable=True),
    )
    return Scenario(request[:28], agent, project, steps)  # type: ignore[arg-type]


SCOPE_SESSIONS: tuple[Scenario, ...] = (
    _scoped(
        "claude",
        "ivy",
        "Where do we read the API key?",
        "grep -rn API_KEY .venv/ app/ 2>&1 | head -5",
        "Never search under .venv, that's installed packages; look in app/ only.",
    ),
    _scoped(
        "claude",
        "ivy",
        "Clear out the generated files.",
        "rm -rf out/docs out/coverage",
        "Don't ever remove what's in out/docs, we publish it from there; out/coverage can go.",
    ),
    _scoped(
        "codex",
        "moss",
        "How big is each log folder?",
        "du -sh logs/ archive/ 2>&1 | tail -3",
        "Only logs/ matters, skip archive/.",
    ),
    _scoped(
        "codex",
        "moss",
        "Free some space on the build box.",
        "docker system prune -af 2>&1 | tail -1",
        "Why `docker system prune -af`? It wiped the build cache too, that costs us an hour.",
    ),
)


def main(argv: list[str]) -> int:
    return record_into(argv, SCOPES, SCOPE_SESSIONS)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
