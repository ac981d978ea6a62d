"""Conversations recorded with the real ``claude`` and ``codex`` against the loopback model server.

Each scenario is a session: a first request, then later turns sent with ``--resume``,
``--continue`` (claude) or ``codex exec resume`` (by id, or ``--last``), each labelled with the
kind of turn it is. The model's answers are scripted so the corrected attempts really break
what the correction asks for. ``record`` drives the binaries; ``rewrite`` moves what they wrote
to the stable ``/home/dev`` paths of the stored fixtures (tests/fixtures/conversations/).

Regenerate the stored fixtures (needs both binaries on PATH):
    python tests/harvest/conversations.py tests/fixtures/conversations
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillopt_sleep.testing import ModelServer, Text
from skillopt_sleep.testing.agents import codex_home, run_agent, run_claude, run_codex, which_codex
from skillopt_sleep.testing.replies import Reply
from skillopt_sleep.testing.scripts import claude_bash, codex_exec

How = Literal["new", "resume", "continue", "last"]
Kind = Literal["new_request", "correction", "praise", "follow_up"]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "conversations"
STABLE_HOME = "/home/dev"


@dataclass(frozen=True)
class Step:
    """One prompt of a session: how it is sent, what the model answers, what kind of turn it is.

    ``checkable``: a correction a rule check can test (a command, a heading, a separator, ...).
    """

    prompt: str
    replies: tuple[Reply, ...]
    how: How = "resume"
    kind: Kind = "new_request"
    checkable: bool = False


@dataclass(frozen=True)
class Scenario:
    name: str
    agent: Literal["claude", "codex"]
    project: str  # a directory name under the work root
    steps: tuple[Step, ...]


def _t(*texts: str) -> tuple[Reply, ...]:
    return tuple(Text(t) for t in texts)


def _pair(
    agent: str,
    request: str,
    bad: str,
    correction: str,
    good: str,
    praise: str | None = None,
    project: str = "epsilon",
    name: str = "",
) -> Scenario:
    """A request answered badly, the user's checkable correction, the retry, maybe praise."""
    steps = [
        Step(request, _t(bad), "new"),
        Step(correction, _t(good), "resume", "correction", checkable=True),
    ]
    if praise:
        steps.append(
            Step(
                praise, _t("Glad it helps."), "continue" if agent == "claude" else "last", "praise"
            )
        )
    return Scenario(name or request[:24], agent, project, tuple(steps))  # type: ignore[arg-type]


SESSIONS: tuple[Scenario, ...] = (
    Scenario(
        "release-en",
        "claude",
        "gamma",
        (
            Step(
                "List the steps to release version 2.0",
                _t(
                    "Release steps:\n- Bump the version\n- Update the changelog\n- Tag the release\n"
                    "- Build the wheel\n- Upload to PyPI\n- Announce it"
                ),
                "new",
            ),
            Step(
                "Max 3 bullet points, please.",
                _t("- Bump and tag\n- Build and upload\n- Announce"),
                "resume",
                "correction",
                checkable=True,
            ),
            Step("Thanks, that's exactly it 👍", _t("Glad it helps."), "continue", "praise"),
            Step(
                "Now also write the changelog entry for it.",
                _t("## 2.0\n- A new CLI"),
                "continue",
                "follow_up",
            ),
            Step(
                "New task: explain what the tox.ini does.",
                _t("It runs the tests on 3.11 and 3.12 \u2014 and the linters."),
                "resume",
                "new_request",
            ),
            Step(
                "No em dashes please.",
                _t("It runs the tests on 3.11 and 3.12, and the linters."),
                "resume",
                "correction",
                checkable=True,
            ),
            Step("Perfect.", _t("Thanks."), "continue", "praise"),
        ),
    ),
    Scenario(
        "dockerfile-de",
        "claude",
        "delta",
        (
            Step(
                "Schreib eine kurze Zusammenfassung des Projekts.",
                _t("Hallo! Du findest hier ein kleines Tool, das deine Sitzungen auswertet."),
                "new",
            ),
            Step(
                "Bitte sprich mich mit Sie an, nicht mit du.",
                _t("Sie finden hier ein kleines Tool, das Ihre Sitzungen auswertet."),
                "resume",
                "correction",
                checkable=True,
            ),
            Step("Super, danke!", _t("Gern."), "continue", "praise"),
            Step(
                "Erstelle ein Dockerfile für den API-Service.",
                _t('FROM python:3.12-slim\nCOPY . /app\nCMD ["python", "-m", "api"]'),
                "continue",
                "new_request",
            ),
            Step(
                "Du hast den Healthcheck vergessen.",
                _t(
                    "FROM python:3.12-slim\nCOPY . /app\nHEALTHCHECK CMD curl -f http://localhost/ || exit 1\n"
                    'CMD ["python", "-m", "api"]'
                ),
                "resume",
                "correction",
            ),
            Step(
                "Jetzt noch die Tests laufen lassen.",
                (claude_bash("echo '4 passed'"), Text("4 Tests bestanden.")),
                "resume",
                "follow_up",
            ),
        ),
    ),
    Scenario(
        "tests-codex-en",
        "codex",
        "gamma",
        (
            Step(
                "Run the test suite",
                (
                    codex_exec("python3 -m unittest 2>&1 | tail -1"),
                    Text("All tests pass (python -m unittest)."),
                ),
                "new",
            ),
            Step(
                "I've told you three times now: use `pytest -q`, not unittest.",
                (codex_exec("echo 'pytest -q: 3 passed'"), Text("pytest -q: 3 passed.")),
                "resume",
                "correction",
                checkable=True,
            ),
            Step("🎉", _t("Thanks!"), "resume", "praise"),
            Step(
                "Can you do the same for the integration tests?",
                (codex_exec("echo 'pytest -q tests/integration: 2 passed'"), Text("2 passed.")),
                "last",
                "follow_up",
            ),
        ),
    ),
    Scenario(
        "csv-codex-de",
        "codex",
        "delta",
        (
            Step(
                "Erstelle eine CSV-Übersicht der Endpunkte.",
                _t("name,method,path\nusers,GET,/users\norders,POST,/orders"),
                "new",
            ),
            Step(
                "Trenn die Spalten bitte mit Semikolon statt Komma.",
                _t("name;method;path\nusers;GET;/users\norders;POST;/orders"),
                "resume",
                "correction",
                checkable=True,
            ),
            Step("Perfekt, danke 🙂", _t("Gern."), "resume", "praise"),
            Step(
                "Wie funktioniert das Caching in diesem Repo?",
                _t(
                    "Das Caching speichert jede Antwort unter einem Schlüssel aus Aufgabe, Skill-Hash, "
                    "Memory-Hash, Stichprobe und Modell. Ändert sich nichts davon, wird die Antwort aus "
                    "der Datenbank gelesen, statt das Modell erneut zu fragen. Das spart Zeit und Geld, "
                    "besonders bei vielen Wiederholungen in einer Nacht."
                ),
                "last",
                "new_request",
            ),
            Step(
                "Zu lang.",
                _t("Antworten werden nach Aufgabe und Hashes zwischengespeichert."),
                "resume",
                "correction",
            ),
        ),
    ),
    Scenario(
        "tests-claude-en",
        "claude",
        "gamma",
        (
            Step(
                "Run the tests",
                (claude_bash("python3 -m unittest 2>&1 | tail -1"), Text("OK (unittest).")),
                "new",
            ),
            Step(
                "No, always use pytest -q",
                (claude_bash("echo 'pytest -q: 3 passed'"), Text("3 passed with pytest -q.")),
                "resume",
                "correction",
                checkable=True,
            ),
        ),
    ),
    _pair(
        "claude",
        "Summarise the design doc.",
        "The design has three parts: harvest, night, review.",
        "Please use the heading '## Summary' like I asked.",
        "## Summary\nThree parts: harvest, night, review.",
        "Thanks!",
    ),
    _pair(
        "codex",
        "Write me a short status update.",
        "Status for the user: all tests pass.",
        "Call me Sam, not 'the user'.",
        "Status for Sam: all tests pass.",
        "👍",
    ),
    _pair(
        "claude",
        "Compare the three backends.",
        "| backend | speed |\n|---|---|\n| simulated | fast |\n| anthropic | slow |",
        "Stop using tables, plain lists only.",
        "- simulated: fast\n- anthropic: slow",
    ),
    _pair(
        "codex",
        "Explain the retry policy.",
        "The retry policy is **important**: it backs off on 429 and 5xx.",
        "No bold text in the answer, it renders badly in my terminal.",
        "The retry policy backs off on 429 and 5xx.",
        "Perfect.",
    ),
    _pair(
        "claude",
        "List the open ports as name and number.",
        "web, 8080\napi, 9090",
        "Use a | as separator, not commas.",
        "web | 8080\napi | 9090",
    ),
    _pair(
        "codex",
        "Nenn mir die wichtigsten Änderungen im Release.",
        "- Neue CLI\n- Schnellere Nacht\n- Bessere Berichte\n- Weniger Abhängigkeiten\n- Neue Doku",
        "Höchstens drei Stichpunkte, bitte.",
        "- Neue CLI\n- Schnellere Nacht\n- Bessere Berichte",
        "Danke!",
        project="zeta",
    ),
    _pair(
        "claude",
        "Fasse das Meeting zusammen.",
        "# Meeting\nWir haben den Release geplant.",
        "Verwende bitte künftig die Überschrift '## Zusammenfassung'.",
        "## Zusammenfassung\nWir haben den Release geplant.",
        project="zeta",
    ),
    _pair(
        "codex",
        "Schreib eine Commit-Nachricht für den Fix.",
        "Fix: Cache-Bug behoben 🎉",
        "Wie gesagt: keine Emojis in Commit-Nachrichten!",
        "Fix: Cache-Bug behoben",
        project="zeta",
    ),
    Scenario(
        "ruff-en",
        "claude",
        "epsilon",
        (
            Step(
                "Check the code style.",
                (claude_bash("echo 'flake8: 0 problems'"), Text("Style looks fine (flake8).")),
                "new",
            ),
            Step(
                "Please always run ruff before you say it's done.",
                (
                    claude_bash("echo 'ruff check: all checks passed'"),
                    Text("ruff check: all good."),
                ),
                "resume",
                "correction",
                checkable=True,
            ),
            Step("Great, thanks.", _t("You're welcome."), "continue", "praise"),
        ),
    ),
    Scenario(
        "uv-codex-en",
        "codex",
        "epsilon",
        (
            Step(
                "Run the unit tests.",
                (codex_exec("echo 'pytest: 5 passed'"), Text("5 passed with pytest.")),
                "new",
            ),
            Step(
                "Use `uv run pytest`, not plain pytest.",
                (codex_exec("echo 'uv run pytest: 5 passed'"), Text("uv run pytest: 5 passed.")),
                "resume",
                "correction",
                checkable=True,
            ),
        ),
    ),
    _pair(
        "claude",
        "Write the README title.",
        "# beta-app",
        "For the last time, the title must be 'Beta App'.",
        "# Beta App",
    ),
    _pair(
        "codex",
        "Describe what the harvest does.",
        "The harvest reads new transcript lines. It turns prompts into tasks. It attaches "
        "corrections to their requests. It mines checks from them.",
        "That's too much. Two sentences max.",
        "The harvest turns new transcript lines into tasks. Corrections become feedback and checks.",
        "Nice, thanks!",
    ),
    _pair(
        "claude",
        "Explain the gate in plain words.",
        "The gate is the part of the night that decides whether an edit is kept. It replays the "
        "tasks the edit should help with, before and after the edit, several times each, and "
        "runs an exact test on the passes. Then it replays every other task to make sure nothing "
        "got worse. Only an edit that helps and harms nothing is staged for the morning review.",
        "Keep it under 50 words.",
        "The gate keeps an edit only if replays show it helps the tasks it targets and harms no "
        "other task.",
    ),
    _pair(
        "codex",
        "Schreib mir eine kurze Zusammenfassung meiner offenen Tickets.",
        "Sie haben drei offene Tickets; Ihr ältestes ist zwei Wochen alt.",
        "Bitte duze mich.",
        "Du hast drei offene Tickets; dein ältestes ist zwei Wochen alt.",
        project="zeta",
    ),
)


def _send(scenario: Scenario, step: Step, home: Path, url: str, cwd: Path, thread: str) -> str:
    """Send one step; returns the session (claude) or thread (codex) id."""
    if scenario.agent == "claude":
        extra = {"new": [], "resume": ["--resume", thread], "continue": ["--continue"]}[step.how]
        run = run_claude(step.prompt, home=home, url=url, cwd=cwd, extra=extra, timeout=180)
        if run.code != 0:
            raise RuntimeError(f"claude failed on {step.prompt!r}: {run.err[-500:]}")
        return str(run.json()["session_id"])
    if step.how == "new":
        run = run_codex(step.prompt, home=home, url=url, cwd=cwd, timeout=180)
        if run.code != 0:
            raise RuntimeError(f"codex failed on {step.prompt!r}: {run.err[-500:]}")
        return next(e["thread_id"] for e in run.jsonl() if e.get("type") == "thread.started")
    target = ["--last"] if step.how == "last" else [thread]
    argv = [
        which_codex() or "codex",
        "exec",
        "--skip-git-repo-check",
        "resume",
        *target,
        step.prompt,
    ]
    run = run_agent(argv, codex_home(home, url), cwd, timeout=180)
    if run.code != 0:
        raise RuntimeError(f"codex resume failed on {step.prompt!r}: {run.err[-500:]}")
    return thread


def _record_one(home: Path, work_root: Path, scenario: Scenario) -> None:
    cwd = work_root / scenario.project
    cwd.mkdir(parents=True, exist_ok=True)
    replies = [r for step in scenario.steps for r in step.replies]
    with ModelServer(replies) as srv:
        thread = ""
        for step in scenario.steps:
            thread = _send(scenario, step, home, srv.url, cwd, thread)


def _by_id(scenario: Scenario) -> bool:
    """A claude session whose later turns name its own id: no turn of it depends on which
    session is the latest, so it may be recorded while others are."""
    return scenario.agent == "claude" and all(s.how in ("new", "resume") for s in scenario.steps)


def record(
    home: Path, work_root: Path, scenarios: tuple[Scenario, ...] = SESSIONS, workers: int = 1
) -> None:
    """Run every scenario with the real binaries; transcripts land under ``home``.

    In order, one at a time, by default. With ``workers`` > 1 (for sessions whose commands touch
    nothing another could): the first scenario runs alone (it makes the home's config); then the
    claude sessions resumed by id run ``workers`` at a time, each against its own server (most
    of a run is the binary starting, which overlaps); then the others one by one, in order, after
    them, so a ``--continue`` or ``--last`` finds the session it means."""
    if workers <= 1 or not scenarios:
        for scenario in scenarios:
            _record_one(home, work_root, scenario)
        return
    first, rest = scenarios[0], scenarios[1:]
    _record_one(home, work_root, first)
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda s: _record_one(home, work_root, s), [s for s in rest if _by_id(s)]))
    for scenario in (s for s in rest if not _by_id(s)):
        _record_one(home, work_root, scenario)


def _sanitised(path: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def rewrite(home: Path, work_root: Path, dest: Path) -> None:
    """Copy the transcripts under ``home`` to ``dest`` with ``/home/dev`` paths."""
    stable_work = f"{STABLE_HOME}/work"
    pairs = [(str(work_root), stable_work), (str(home), STABLE_HOME)]
    if dest.exists():
        shutil.rmtree(dest)
    sources = [
        *sorted((home / ".claude" / "projects").glob("*/*.jsonl")),
        *sorted((home / ".codex" / "sessions").rglob("rollout-*.jsonl")),
    ]
    for src in sources:
        rel = src.relative_to(home).as_posix()
        for old, new in pairs:
            rel = rel.replace(_sanitised(old), _sanitised(new))
        text = src.read_text(encoding="utf-8")
        for old, new in pairs:
            text = text.replace(old, new).replace(_sanitised(old), _sanitised(new))
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def record_into(argv: list[str], default: Path, scenarios: tuple[Scenario, ...]) -> int:
    """Record ``scenarios`` with the real binaries into ``argv[0]`` (or ``default``)."""
    dest = Path(argv[0]) if argv else default
    with tempfile.TemporaryDirectory(prefix="conv-") as tmp:
        home, work_root = Path(tmp) / "home", Path(tmp) / "work"
        work_root.mkdir(parents=True)
        record(home, work_root, scenarios)
        rewrite(home, work_root.resolve(), dest)
    print(f"recorded {len(scenarios)} sessions into {dest}")
    return 0


def main(argv: list[str]) -> int:
    return record_into(argv, FIXTURES, SESSIONS)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
