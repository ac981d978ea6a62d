"""A fourth set of conversations recorded with the real ``claude`` and ``codex``, labelled by hand,
to measure the checks the miner makes of a correction: 36 corrections (18 of what the answer or a
file should say, 18 of what the agent did), in English, German, French and Spanish, several naming
the command, path or text the user wants ("use X instead"), slash-command requests (the request
is the command's expanded body) and scope corrections after a listing.

Written and recorded before any change to the miner was made with it in view (the miner of
revision 4b6d96e). Every correction carries a :class:`Label` beside its session: whether it
should land on its request (always, here), what it is about, the checks that would be right
(any one of them will do) and, when the user names it, the user's own example as a synthetic
attempt. ``bench/corrections.py`` judges every mined check of the corrected request on that
example with the package's own judging: a check that fails on what the user asked for
contradicts the correction it came from.

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.check_conversations tests/fixtures/conversations_checks
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillopt_sleep.testing.replies import Reply, Text
from skillopt_sleep.testing.scripts import add_file_patch, codex_apply_patch

from .conversations import Scenario, Step, record, rewrite
from .fresh_conversations import _acted, _praise, _run, _said

CHECKS = Path(__file__).resolve().parents[1] / "fixtures" / "conversations_checks"
About = Literal["text", "action"]


@dataclass(frozen=True)
class Example:
    """What the user asked for, as an attempt that does it: the answer, the commands run and the
    files read, written (with their text) and deleted. A rule check is judged on it only when it
    has an answer: an example of a command says nothing about the words around it."""

    answer: str = ""
    commands: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    writes: tuple[tuple[str, str], ...] = ()
    deletes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Want:
    """A right check: its kind and the key value it must catch (the command a ``never_ran``
    forbids, the path an ``untouched`` keeps, the heading, the text); ``path`` for file kinds."""

    kind: str
    value: str | int | None = None
    path: str | None = None


@dataclass(frozen=True)
class Label:
    """One correction as read by hand."""

    correction: str
    about: About
    checks: tuple[Want, ...]  # any one of them is a correct check
    example: Example | None = None  # the user's own example, when the correction names one
    attaches: bool = True  # lands on the request it corrects, never a task of its own


def _case(
    scenario: Scenario, about: About, *checks: Want, example: Example | None = None
) -> tuple[Scenario, Label]:
    """``scenario`` and the label of its one correction."""
    (correction,) = [s.prompt for s in scenario.steps if s.kind == "correction"]
    return scenario, Label(correction, about, checks, example)


def _slash(
    project: str, request: str, bad: str, correction: str, good: str, *later: Step
) -> Scenario:
    """A claude slash-command request (the project's ``.claude/commands``) answered in words."""
    steps = (
        Step(request, (Text(bad),), "new"),
        Step(correction, (Text(good),), "resume", "correction", checkable=True),
        *later,
    )
    return Scenario(request[:28], "claude", project, steps)


def _patched(
    project: str,
    request: str,
    bad: tuple[str, str, str],
    correction: str,
    good: tuple[str, str, str],
) -> Scenario:
    """A codex request done by one ``apply_patch`` (path, text, answer), corrected, redone."""

    def patch(path: str, text: str, said: str) -> tuple[Reply, ...]:
        return (codex_apply_patch(add_file_patch(path, text)), Text(said))

    steps = (
        Step(request, patch(*bad), "new"),
        Step(correction, patch(*good), "resume", "correction", checkable=True),
    )
    return Scenario(request[:28], "codex", project, steps)


# Files the slash-command sessions need in their project when they are recorded.
PROJECT_FILES: Mapping[str, Mapping[str, str]] = {
    "slash": {
        ".claude/commands/notes.md": "---\ndescription: Draft release notes\n---\n"
        "Draft the release notes for version $ARGUMENTS from the commits since the last tag.\n",
        ".claude/commands/review.md": "---\ndescription: Review a file\n---\n"
        "Review $ARGUMENTS and list every problem you find.\n",
        ".claude/commands/deps.md": "---\ndescription: Upgrade dependencies\n---\n"
        "Upgrade every dependency of this project to its newest version.\n",
        ".claude/commands/doku.md": "---\ndescription: Doku schreiben\n---\n"
        "Schreibe eine kurze Doku für das Modul $ARGUMENTS.\n",
    },
}

_ACTION_CASES = (
    _case(
        _acted(
            "claude",
            "aleph",
            "Run the test suite.",
            ("python3 -m unittest discover 2>&1 | tail -1", "OK (unittest discover)."),
            "Please run it via `python3 -m pytest -q`; unittest discovery misses half our tests.",
            ("echo '12 passed'", "python3 -m pytest -q: 12 passed."),
            _praise("claude", "Great, thanks."),
        ),
        "action",
        Want("never_ran", "python3 -m unittest discover"),
        Want("ran", "python3 -m pytest -q"),
        example=Example(commands=("python3 -m pytest -q",)),
    ),
    _case(
        _acted(
            "codex",
            "aleph",
            "Run the JS tests.",
            ("npx jest 2>&1 | tail -1", "jest: all suites passed."),
            "We moved to vitest, so `npx vitest run` instead of jest.",
            ("echo 'vitest: 8 passed'", "npx vitest run: 8 passed."),
        ),
        "action",
        Want("never_ran", "npx jest"),
        Want("ran", "npx vitest run"),
        example=Example(commands=("npx vitest run",)),
    ),
    _case(
        _acted(
            "claude",
            "beth",
            "Clean the workspace.",
            ("rm -rf build .venv", "Removed build/ and .venv/."),
            "You may wipe `build/` whenever you like, but `.venv/` must never be deleted.",
            ("rm -rf build", "Removed build/ only."),
        ),
        "action",
        Want("untouched", ".venv"),
        Want("never_ran", "rm -rf build .venv"),
        example=Example(commands=("rm -rf build",), deletes=("build",)),
    ),
    _case(
        _acted(
            "codex",
            "beth",
            "Show me why the worker job failed.",
            ("cat logs/worker.log 2>&1 | head -40", "Here is the worker log."),
            "Don't dump worker.log in here; `tail -n 50 logs/worker.log` is plenty.",
            ("tail -n 50 logs/worker.log 2>&1 | head -5", "The last 50 lines show a timeout."),
        ),
        "action",
        Want("never_ran", "cat logs/worker.log"),
        Want("ran", "tail -n 50 logs/worker.log"),
        example=Example(commands=("tail -n 50 logs/worker.log",), reads=("logs/worker.log",)),
    ),
    _case(
        _acted(
            "claude",
            "gimel",
            "Figure out why CI failed.",
            ("cat ci-output.txt 2>&1 | head -40", "Here's the CI output."),
            "No need to paste all of ci-output.txt at me; `grep -n FAILED ci-output.txt` will do.",
            ("grep -n FAILED ci-output.txt 2>&1 | head -5", "Two tests FAILED."),
        ),
        "action",
        Want("never_ran", "cat ci-output.txt"),
        Want("ran", "grep -n FAILED ci-output.txt"),
        example=Example(commands=("grep -n FAILED ci-output.txt",), reads=("ci-output.txt",)),
    ),
    _case(
        _acted(
            "codex",
            "gimel",
            "Convert the source files to UTF-8.",
            (
                (
                    "iconv -f latin1 -t utf-8 tests/data/legacy.csv > tests/data/legacy.utf8.csv "
                    "&& mv tests/data/legacy.utf8.csv tests/data/legacy.csv"
                ),
                "Converted tests/data/legacy.csv.",
            ),
            "Leave tests/data/ out of it, those CSVs are cp1252 on purpose.",
            ("echo 'nothing else to convert'", "Left tests/data/ alone."),
        ),
        "action",
        Want("untouched", "tests/data"),
    ),
    _case(
        _acted(
            "claude",
            "daleth",
            "Baue das Projekt.",
            ("make build 2>&1 | tail -1", "Mit make gebaut."),
            "Nicht mit make, wir bauen mit `cargo build --release`.",
            ("echo 'Finished release'", "Mit cargo build --release gebaut."),
        ),
        "action",
        Want("never_ran", "make build"),
        Want("ran", "cargo build --release"),
        example=Example(commands=("cargo build --release",)),
    ),
    _case(
        _acted(
            "codex",
            "daleth",
            "Supprime les fichiers générés.",
            ("rm -rf generated/ migrations/", "generated/ et migrations/ supprimés."),
            "Ne touche jamais à `migrations/`, elles sont versionnées.",
            ("rm -rf generated/", "Seulement generated/ supprimé."),
            _praise("codex", "Merci !"),
        ),
        "action",
        Want("untouched", "migrations"),
        example=Example(commands=("rm -rf generated/",), deletes=("generated",)),
    ),
    _case(
        _acted(
            "claude",
            "he",
            "Check what's listening on port 8080.",
            ("netstat -tlnp 2>&1 | grep 8080", "Nothing on 8080 (netstat)."),
            "netstat is deprecated on these boxes, use `ss -ltnp` instead.",
            ("ss -ltnp 2>&1 | grep 8080 || echo none", "Nothing listens on 8080."),
        ),
        "action",
        Want("never_ran", "netstat -tlnp"),
        Want("ran", "ss -ltnp"),
        example=Example(commands=("ss -ltnp",)),
    ),
    _case(
        _acted(
            "codex",
            "he",
            "Read the API key from the env file so we can test the client.",
            ("cat .env.local 2>&1 | head -3", "The key is in .env.local."),
            "Don't open `.env.local`; the test key is in `tests/keys.example`.",
            ("cat tests/keys.example 2>&1 | head -3", "Using the key from tests/keys.example."),
        ),
        "action",
        Want("never_read", ".env.local"),
        Want("never_ran", "cat .env.local"),
        example=Example(commands=("cat tests/keys.example",), reads=("tests/keys.example",)),
    ),
    _case(
        _acted(
            "claude",
            "vav",
            "Reset my local changes to the parser.",
            ("git checkout -- . 2>&1 | tail -1", "Reset every change."),
            "Only restore `src/parser.py` with `git restore src/parser.py`, not the whole tree.",
            ("git restore src/parser.py 2>&1 | tail -1", "Restored src/parser.py."),
        ),
        "action",
        Want("never_ran", "git checkout -- ."),
        Want("ran", "git restore src/parser.py"),
        example=Example(commands=("git restore src/parser.py",)),
    ),
    _case(
        _acted(
            "codex",
            "vav",
            "Instala las dependencias.",
            ("npm install 2>&1 | tail -1", "Instaladas con npm."),
            "Aquí usamos `pnpm install`, no npm.",
            ("echo 'pnpm install: done'", "Instaladas con pnpm."),
        ),
        "action",
        Want("ran", "pnpm install"),
        Want("never_ran", "npm install"),
        example=Example(commands=("pnpm install",)),
    ),
    _case(
        _acted(
            "claude",
            "zayin",
            "Regenerate the protobuf stubs.",
            (
                "sed -i 's/Old/New/' api/api_pb2.py 2>&1 | tail -1",
                "Updated api/api_pb2.py by hand.",
            ),
            "Don't edit api_pb2.py by hand, run `make proto`.",
            ("echo 'make proto: done'", "Regenerated them with make proto."),
        ),
        "action",
        Want("untouched", "api/api_pb2.py"),
        Want("ran", "make proto"),
        example=Example(commands=("make proto",)),
    ),
    _case(
        _acted(
            "codex",
            "zayin",
            "Commit the fix.",
            ("git commit -am 'fix parser' --no-verify 2>&1 | tail -1", "Committed."),
            "Never skip the hooks with --no-verify.",
            ("git commit -am 'fix parser' 2>&1 | tail -1", "Committed with the hooks."),
        ),
        "action",
        Want("never_ran", "git commit -am 'fix parser' --no-verify"),
        example=Example(commands=("git commit -am 'fix parser'",)),
    ),
    _case(
        _acted(
            "claude",
            "heth",
            "Räum die Logs auf.",
            ("rm -rf logs/ archive/", "logs/ und archive/ gelöscht."),
            "Das archive/-Verzeichnis bleibt, nur logs/ darf weg.",
            ("rm -rf logs/", "Nur logs/ gelöscht."),
            _praise("claude", "Danke!"),
        ),
        "action",
        Want("untouched", "archive"),
        example=Example(commands=("rm -rf logs/",), deletes=("logs",)),
    ),
    _case(
        _acted(
            "codex",
            "heth",
            "Start the app.",
            ("python app.py 2>&1 | tail -1", "Started with python app.py."),
            "Usa `flask --app app run`, no `python app.py`.",
            ("echo 'Running on http://127.0.0.1:5000'", "Arrancada con flask --app app run."),
        ),
        "action",
        Want("never_ran", "python app.py"),
        Want("ran", "flask --app app run"),
        example=Example(commands=("flask --app app run",)),
    ),
    _case(
        Scenario(
            "deps",
            "claude",
            "slash",
            (
                Step(
                    "/deps",
                    _run("claude", "pip-compile --upgrade requirements.in 2>&1 | tail -1", "Done."),
                    "new",
                ),
                Step(
                    "Don't use pip-compile, we lock with `uv lock --upgrade`.",
                    _run("claude", "echo 'uv lock: resolved'", "Locked with uv lock --upgrade."),
                    "resume",
                    "correction",
                    checkable=True,
                ),
            ),
        ),
        "action",
        Want("ran", "uv lock --upgrade"),
        Want("never_ran", "pip-compile --upgrade requirements.in"),
        example=Example(commands=("uv lock --upgrade",)),
    ),
    _case(
        _acted(
            "claude",
            "teth",
            "Which files import requests?",
            ("grep -rl 'import requests' . 2>&1 | head -5", "./.venv/lib/x.py and ./app/http.py"),
            "Leave `.venv/` and `node_modules/` out, only search our `app/` package.",
            ("grep -rl 'import requests' app/ 2>&1 | head -5", "app/http.py"),
        ),
        "action",
        Want("ran", "grep -rl 'import requests' app/"),
        Want("not_contains", ".venv/"),
        example=Example(
            answer="app/http.py", commands=("grep -rl 'import requests' app/",), reads=("app/",)
        ),
    ),
)

_TEXT_CASES = (
    _case(
        _said(
            "codex",
            "yod",
            "Add a changelog entry for the --dry-run flag.",
            "## 1.4.0\n- Added a --dry-run flag",
            "Entries belong in the `## Unreleased` section until we cut a release, don't invent "
            "a version number.",
            "## Unreleased\n- Added a --dry-run flag",
        ),
        "text",
        Want("heading", "Unreleased"),
        example=Example(answer="## Unreleased\n- Added a --dry-run flag"),
    ),
    _case(
        _patched(
            "kaph",
            "Add a `retry_limit` option to the config loader.",
            ("src/settings.py", "RETRY_LIMIT = 3\n", "Added RETRY_LIMIT to src/settings.py."),
            "Any option you add has to show up in `docs/configuration.md` too.",
            (
                "docs/configuration.md",
                "## retry_limit\nHow often a request is retried (default 3).\n",
                "Documented it in docs/configuration.md.",
            ),
        ),
        "text",
        Want("changed", "docs/configuration.md"),
        Want("file_contains", "retry_limit", "docs/configuration.md"),
        example=Example(
            writes=(
                ("src/settings.py", "RETRY_LIMIT = 3\n"),
                ("docs/configuration.md", "## retry_limit\nHow often a request is retried.\n"),
            )
        ),
    ),
    _case(
        _said(
            "claude",
            "kaph",
            "Add a link to the install guide in the README.",
            "[Install guide](https://github.com/acme/tool/blob/main/docs/install.md)",
            "Use a relative link like `docs/install.md`, not the absolute GitHub URL; it breaks "
            "on forks.",
            "[Install guide](docs/install.md)",
        ),
        "text",
        Want("not_contains", "https://github.com"),
        Want("contains", "(docs/install.md)"),
        example=Example(answer="[Install guide](docs/install.md)"),
    ),
    _case(
        _patched(
            "lamed",
            "Add a section on caching to docs/guide.md.",
            (
                "docs/guide.md",
                "**Caching**\nReplays are cached by task and skill.\n",
                "Added a Caching part.",
            ),
            "The new section needs a real `## Caching` heading in that file, not a bold line.",
            (
                "docs/guide.md",
                "## Caching\nReplays are cached by task and skill.\n",
                "It has a ## Caching heading now.",
            ),
        ),
        "text",
        Want("file_contains", "## Caching", "docs/guide.md"),
        Want("file_not_contains", "**Caching**", "docs/guide.md"),
        example=Example(writes=(("docs/guide.md", "## Caching\nReplays are cached.\n"),)),
    ),
    _case(
        _said(
            "claude",
            "lamed",
            "Write a docstring for parse_date.",
            '"""Parses the date."""',
            "Docstrings here are Google style: they need an `Args:` section.",
            '"""Parse a date.\n\nArgs:\n    text: the date as written."""',
        ),
        "text",
        Want("contains", "Args:"),
        example=Example(answer='"""Parse a date.\n\nArgs:\n    text: the date as written."""'),
    ),
    _case(
        _said(
            "codex",
            "mem",
            "Écris le message de commit.",
            "Mise à jour du parser",
            "Le message doit commencer par `fix:` comme tous les commits ici.",
            "fix: corrige le parser de dates",
        ),
        "text",
        Want("starts_with", "fix:"),
        Want("regex", "fix: corrige le parser de dates"),
        example=Example(answer="fix: corrige le parser de dates"),
    ),
    _case(
        _said(
            "claude",
            "mem",
            "Resume el README en una frase.",
            "Esta herramienta revisa cada noche las sesiones de tu agente, propone cambios "
            "pequeños a sus instrucciones, los comprueba con pruebas repetidas y te deja por la "
            "mañana una propuesta que puedes aceptar o rechazar con un solo comando.",
            "Máximo 120 caracteres, por favor.",
            "Revisa cada noche las sesiones de tu agente y propone mejoras comprobadas.",
        ),
        "text",
        Want("max_chars", 120),
    ),
    _case(
        _said(
            "codex",
            "nun",
            "Write the env var docs for the README.",
            "Set API_URL to the server and API_TOKEN to your token.",
            "Put every variable name in backticks, like `API_URL`.",
            "Set `API_URL` to the server and `API_TOKEN` to your token.",
        ),
        "text",
        Want("contains", "`API_URL`"),
        example=Example(answer="Set `API_URL` to the server and `API_TOKEN` to your token."),
    ),
    _case(
        _said(
            "claude",
            "nun",
            "Schreib eine Fehlermeldung für fehlende Konfiguration.",
            "Error: config missing",
            "Die Meldung muss auf Deutsch sein und mit `Fehler:` beginnen.",
            "Fehler: Die Konfiguration fehlt.",
        ),
        "text",
        Want("starts_with", "Fehler:"),
        example=Example(answer="Fehler: Die Konfiguration fehlt."),
    ),
    _case(
        _said(
            "codex",
            "samekh",
            "Draft the reply to the customer.",
            "Hi John,\nthe fix ships on Monday.\nBest, Dana",
            "Sign it as 'The Acme Support Team', never with my name.",
            "Hi John,\nthe fix ships on Monday.\nThe Acme Support Team",
        ),
        "text",
        Want("contains", "The Acme Support Team"),
        Want("not_contains", "Dana"),
        example=Example(answer="Hi John,\nthe fix ships on Monday.\nThe Acme Support Team"),
    ),
    _case(
        _said(
            "claude",
            "samekh",
            "Return the config as JSON.",
            'Here is the config: {"port": 8080, "debug": false}',
            "Just the raw JSON, no prose around it.",
            '{"port": 8080, "debug": false}',
        ),
        "text",
        Want("json_valid"),
        example=Example(answer='{"port": 8080, "debug": false}'),
    ),
    _case(
        _said(
            "codex",
            "ayin",
            "Donne-moi la date de sortie.",
            "Le 12/03/2026.",
            "Au format ISO, s'il te plaît : 2026-03-12.",
            "2026-03-12",
        ),
        "text",
        Want("contains", "2026-03-12"),
        Want("regex", "2026-03-12"),
        example=Example(answer="2026-03-12"),
    ),
    _case(
        _said(
            "claude",
            "ayin",
            "Schreib die Beschreibung für den PR.",
            "Dieser PR repariert den Parser für Datumsangaben mit Zeitzone.",
            "Der PR-Text braucht immer einen Abschnitt `## Testplan`.",
            "Repariert den Parser.\n\n## Testplan\n- pytest -q",
        ),
        "text",
        Want("heading", "Testplan"),
        example=Example(answer="Repariert den Parser.\n\n## Testplan\n- pytest -q"),
    ),
    _case(
        _slash(
            "slash",
            "/notes 2.1",
            "## 2.1\n- Faster nights\n- A new review page",
            "Release notes always start under `## Unreleased`; we tag versions later.",
            "## Unreleased\n- Faster nights\n- A new review page",
        ),
        "text",
        Want("heading", "Unreleased"),
        example=Example(answer="## Unreleased\n- Faster nights\n- A new review page"),
    ),
    _case(
        _slash(
            "slash",
            "/review src/app.py",
            "src/app.py:12 does not check for None.\nsrc/app.py:40 swallows an exception.",
            "Each finding must start with its severity in brackets, e.g. `[high]`.",
            "[high] src/app.py:12 does not check for None.\n"
            "[medium] src/app.py:40 swallows an exception.",
        ),
        "text",
        Want("starts_with", "[high]"),
        Want("contains", "[high]"),
        example=Example(answer="[high] src/app.py:12 does not check for None."),
    ),
    _case(
        _slash(
            "slash",
            "/doku cache",
            "# cache\nDas Modul speichert Antworten.",
            "Bitte immer mit der Überschrift `## Verwendung` anfangen.",
            "## Verwendung\nDas Modul speichert Antworten.",
        ),
        "text",
        Want("heading", "Verwendung"),
        Want("starts_with", "## Verwendung"),
        example=Example(answer="## Verwendung\nDas Modul speichert Antworten."),
    ),
    _case(
        _acted(
            "codex",
            "pe",
            "List all the Python files.",
            (
                "find . -name '*.py' 2>&1 | head -5",
                "./third_party/six.py\n./dist/pkg/app.py\n./lib/core.py",
            ),
            "Ignore `third_party/` and `dist/`, I only care about `lib/`.",
            ("find lib -name '*.py' 2>&1 | head -5", "./lib/core.py"),
        ),
        "text",
        Want("not_contains", "third_party/"),
        Want("ran", "find lib -name '*.py'"),
        example=Example(answer="lib/core.py", commands=("find lib -name '*.py'",)),
    ),
    _case(
        _acted(
            "claude",
            "pe",
            "Liste les fichiers de config.",
            ("ls -R . 2>&1 | grep -i conf | head -5", "node_modules/x/config.js, config/app.toml"),
            "Seulement dans `config/`, pas dans `node_modules/`.",
            ("ls config/ 2>&1 | head -5", "config/app.toml"),
        ),
        "text",
        Want("not_contains", "node_modules/"),
        Want("ran", "ls config/"),
        example=Example(answer="config/app.toml", commands=("ls config/",)),
    ),
)

_CASES = _ACTION_CASES + _TEXT_CASES
CHECK_SESSIONS: tuple[Scenario, ...] = tuple(s for s, _ in _CASES)
CHECK_LABELS: tuple[Label, ...] = tuple(label for _, label in _CASES)


def record_with_files(
    argv: list[str],
    default: Path,
    scenarios: tuple[Scenario, ...],
    files: Mapping[str, Mapping[str, str]],
) -> int:
    """As :func:`~.conversations.record_into`, with ``files`` written into each project first
    (a slash command is a file of the project it runs in)."""
    dest = Path(argv[0]) if argv else default
    with tempfile.TemporaryDirectory(prefix="conv-") as tmp:
        home, work_root = Path(tmp) / "home", Path(tmp) / "work"
        for project, tree in files.items():
            for rel, text in tree.items():
                target = work_root / project / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
        work_root.mkdir(parents=True, exist_ok=True)
        record(home, work_root, scenarios)
        rewrite(home, work_root.resolve(), dest)
    print(f"recorded {len(scenarios)} sessions into {dest}")
    return 0


def main(argv: list[str]) -> int:
    return record_with_files(argv, CHECKS, CHECK_SESSIONS, PROJECT_FILES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
