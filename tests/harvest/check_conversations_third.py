"""A third labelled set of corrections recorded with the real ``claude`` and ``codex``, written and
recorded before the miner was changed for it and never tuned on: 18 corrections (9 of what the
answer or a file should say, 9 of what the agent did), in English, German, French and Spanish,
worded unlike the other sets: reasons before the rule, "we never ...", questions, corrections
split over two messages (the first only says something is wrong; the second, labelled, says
what), flags with a value the user wants added (``--namespace payments``, ``--port 3001``) beside
a flag the user forbids (``--fake``), a file that must change too, a slash-command request.

Labelled like ``check_conversations.py``: where it lands, the right checks, the user's own
example as a synthetic attempt (a check failing on it contradicts the correction).

Measured untouched (``python -m bench.corrections --baseline 4b6d96e --after HEAD`` at d4985ee),
before and after that revision's miner: 6 and 8 of 18 attached (12 and 10 became tasks), 5 and 6
with a failing check, 3 and 3 with a correct check, 2 and 2 with a contradicting check
(``never_ran apply`` beside ``--namespace payments`` on ``kubectl apply``; ``never_ran grep`` and
``never_ran src/`` from "We never grep inside node_modules ...; stick to src/.").

After the miner change af4aac6, made on the other labelled sets (``python -m bench.corrections
--baseline c8c4633 --after af4aac6``): 14 of 18 attached, 14 with a failing check, 9 correct, 1
contradicting (``never_ran grep`` and ``never_ran src/`` remain). Its author wrote this set
before that change, so three shapes of it were in view: a prefix "at the front, like `[X]`", a
text that ends with "`X` ans Ende", a quoted text after a negation ("aucun identifiant `JIRA-`").
Without those three the same run gives 11 attached, 10 with a failing check, 6 correct, 1
contradicting: the blind estimate.

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.check_conversations_third tests/fixtures/conversations_checks_third
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from skillopt_sleep.testing.replies import Text

from .check_conversations import About, Example, Label, Want, _patched, _slash, record_with_files
from .conversations import Scenario, Step
from .fresh_conversations import _acted, _run, _said

CHECKS_THIRD = Path(__file__).resolve().parents[1] / "fixtures" / "conversations_checks_third"

THIRD_PROJECT_FILES: Mapping[str, Mapping[str, str]] = {
    "slash3": {
        ".claude/commands/changelog.md": "---\ndescription: Changelog entry\n---\n"
        "Write a changelog entry for: $ARGUMENTS\n",
    },
}


def _labelled(
    scenario: Scenario, about: About, *checks: Want, example: Example | None = None
) -> tuple[Scenario, Label]:
    """``scenario`` and the label of its checkable correction (a correction split over two
    messages has a first, uncheckable part that only says something is wrong)."""
    (correction,) = [s.prompt for s in scenario.steps if s.kind == "correction" and s.checkable]
    return scenario, Label(correction, about, checks, example)


def _split_said(
    agent: str, project: str, request: str, bad: str, first: str, second: str, good: str
) -> Scenario:
    """A request answered in words, corrected in two messages: ``first`` says it is wrong,
    ``second`` says what is right."""
    steps = (
        Step(request, (Text(bad),), "new"),
        Step(first, (Text("What should I change?"),), "resume", "correction"),
        Step(second, (Text(good),), "resume", "correction", checkable=True),
    )
    return Scenario(request[:28], agent, project, steps)  # type: ignore[arg-type]


def _split_acted(
    agent: str,
    project: str,
    request: str,
    bad: tuple[str, str],
    first: str,
    second: str,
    good: tuple[str, str],
) -> Scenario:
    """A request done with one command, corrected in two messages, redone with another."""
    steps = (
        Step(request, _run(agent, *bad), "new"),
        Step(first, (Text("What should I do instead?"),), "resume", "correction"),
        Step(second, _run(agent, *good), "resume", "correction", checkable=True),
    )
    return Scenario(request[:28], agent, project, steps)  # type: ignore[arg-type]


_TEXT_CASES = (
    _labelled(
        _said(
            "codex",
            "alder",
            "Write the upgrade note for v3.",
            "Version 3 drops support for Python 3.8.",
            "Could you begin it with `BREAKING:`? Every upgrade note we publish opens that way.",
            "BREAKING: Version 3 drops support for Python 3.8.",
        ),
        "text",
        Want("starts_with", "BREAKING:"),
        example=Example(answer="BREAKING: Version 3 drops support for Python 3.8."),
    ),
    _labelled(
        _said(
            "claude",
            "alder",
            "Summarise yesterday's incident for the status page.",
            "We had a short outage caused by a full disk on the database host.",
            "Readers scan the status page for what broke first, so the summary needs an "
            "`### Affected services` heading.",
            "### Affected services\n- API\n\nWe had a short outage caused by a full disk.",
        ),
        "text",
        Want("heading", "Affected services"),
        example=Example(
            answer="### Affected services\n- API\n\nWe had a short outage caused by a full disk."
        ),
    ),
    _labelled(
        _said(
            "codex",
            "birch",
            "Write the install snippet for the docs.",
            "sudo pip install acme-cli",
            "We never tell users to run sudo in our docs.",
            "pip install --user acme-cli",
        ),
        "text",
        Want("not_contains", "sudo"),
        example=Example(answer="pip install --user acme-cli"),
    ),
    _labelled(
        _said(
            "claude",
            "birch",
            "Schreib die Antwort an den Kunden wegen der Lieferverzögerung.",
            "Hallo Herr Weber,\ndie Lieferung verzögert sich um zwei Tage.\nGruß",
            "Bei uns endet jede Kundenmail mit der Ticketnummer, also `Ticket #4711` ans Ende.",
            "Hallo Herr Weber,\ndie Lieferung verzögert sich um zwei Tage.\nTicket #4711",
        ),
        "text",
        Want("contains", "Ticket #4711"),
        example=Example(
            answer="Hallo Herr Weber,\ndie Lieferung verzögert sich um zwei Tage.\nTicket #4711"
        ),
    ),
    _labelled(
        _patched(
            "cedar",
            "Ajoute une commande `export` à la CLI.",
            ("src/cli.py", "def export():\n    pass\n", "Commande export ajoutée dans src/cli.py."),
            "Chaque nouvelle commande doit aussi figurer dans `docs/commands.md`, sinon personne "
            "ne la trouve.",
            (
                "docs/commands.md",
                "## export\nExporte les données en CSV.\n",
                "Documentée dans docs/commands.md.",
            ),
        ),
        "text",
        Want("changed", "docs/commands.md"),
        Want("file_contains", "export", "docs/commands.md"),
        example=Example(
            writes=(
                ("src/cli.py", "def export():\n    pass\n"),
                ("docs/commands.md", "## export\nExporte les données en CSV.\n"),
            )
        ),
    ),
    _labelled(
        _said(
            "claude",
            "cedar",
            "Añade al README un enlace a la guía de contribución.",
            "[Guía de contribución](https://acme.dev/docs/contributing.html)",
            "Los enlaces internos del README van siempre en forma relativa, p. ej. "
            "`./CONTRIBUTING.md`.",
            "[Guía de contribución](./CONTRIBUTING.md)",
        ),
        "text",
        Want("contains", "./CONTRIBUTING.md"),
        Want("not_contains", "https://"),
        example=Example(answer="[Guía de contribución](./CONTRIBUTING.md)"),
    ),
    _labelled(
        _split_said(
            "codex",
            "elm",
            "Draft the PR title for the date parsing fix.",
            "Fixed the date parser",
            "Not quite.",
            "Our PR titles carry the ticket key in square brackets at the front, like "
            "`[PARSE-12]`.",
            "[PARSE-12] Fix the date parser",
        ),
        "text",
        Want("starts_with", "[PARSE-12]"),
        Want("contains", "[PARSE-12]"),
        example=Example(answer="[PARSE-12] Fix the date parser"),
    ),
    _labelled(
        _slash(
            "slash3",
            "/changelog CSV export",
            "### v0.9\n- Added a CSV export",
            "Why did you make up a version? New entries go under `## Pending` until we tag.",
            "## Pending\n- Added a CSV export",
        ),
        "text",
        Want("heading", "Pending"),
        example=Example(answer="## Pending\n- Added a CSV export"),
    ),
    _labelled(
        _said(
            "codex",
            "elm",
            "Rédige la note de version pour les utilisateurs.",
            "Cette version corrige le bug JIRA-482 dans le module de paiement.",
            "Les clients ne voient pas notre Jira : aucun identifiant `JIRA-` dans les notes "
            "publiques.",
            "Cette version corrige un bug dans le module de paiement.",
        ),
        "text",
        Want("not_contains", "JIRA-"),
        example=Example(answer="Cette version corrige un bug dans le module de paiement."),
    ),
)

_ACTION_CASES = (
    _labelled(
        _acted(
            "claude",
            "fir",
            "Deploy the hotfix.",
            ("kubectl apply -f deploy/hotfix.yaml 2>&1 | tail -1", "Applied deploy/hotfix.yaml."),
            "Always add `--namespace payments` when you apply anything; the default namespace "
            "is shared.",
            (
                "kubectl apply -f deploy/hotfix.yaml --namespace payments 2>&1 | tail -1",
                "Applied it in the payments namespace.",
            ),
        ),
        "action",
        Want("ran", "kubectl apply -f deploy/hotfix.yaml --namespace payments"),
        example=Example(commands=("kubectl apply -f deploy/hotfix.yaml --namespace payments",)),
    ),
    _labelled(
        _acted(
            "codex",
            "fir",
            "Format the code.",
            ("black . 2>&1 | tail -1", "Formatted with black."),
            "Since the switch last spring our formatter is `ruff format`; black isn't even "
            "installed anymore.",
            ("echo '3 files reformatted'", "Formatted with ruff format."),
        ),
        "action",
        Want("never_ran", "black ."),
        Want("ran", "ruff format"),
        example=Example(commands=("ruff format",)),
    ),
    _labelled(
        _acted(
            "claude",
            "grove",
            "Bring die Datenbank auf das neue Schema.",
            ("python manage.py migrate --fake 2>&1 | tail -1", "Migrationen angewendet."),
            "Wir führen Migrationen nie mit `--fake` aus, das verdeckt echte Fehler.",
            ("python manage.py migrate 2>&1 | tail -1", "Migrationen ohne --fake angewendet."),
        ),
        "action",
        Want("never_ran", "python manage.py migrate --fake"),
        example=Example(commands=("python manage.py migrate",)),
    ),
    _labelled(
        _acted(
            "codex",
            "grove",
            "Look at the nginx config and tell me the upstream port.",
            ("cat /etc/nginx/nginx.conf 2>&1 | head -20", "No upstream block in nginx.conf."),
            "Why read the system file? The one we deploy is `deploy/nginx.conf` in the repo.",
            ("cat deploy/nginx.conf 2>&1 | head -20", "The upstream listens on 8081."),
        ),
        "action",
        Want("ran", "cat deploy/nginx.conf"),
        Want("never_ran", "cat /etc/nginx/nginx.conf"),
        example=Example(commands=("cat deploy/nginx.conf",), reads=("deploy/nginx.conf",)),
    ),
    _labelled(
        _acted(
            "claude",
            "hazel",
            "Borra los ficheros temporales del proyecto.",
            ("rm -rf tmp/ uploads/", "Borrados tmp/ y uploads/."),
            "¡Cuidado! `uploads/` son ficheros de usuarios, eso no se borra nunca.",
            ("rm -rf tmp/", "Solo borrado tmp/."),
        ),
        "action",
        Want("untouched", "uploads"),
        example=Example(commands=("rm -rf tmp/",), deletes=("tmp",)),
    ),
    _labelled(
        _split_acted(
            "codex",
            "hazel",
            "Bump the version to 1.3.0.",
            ("sed -i 's/1.2.0/1.3.0/' setup.py 2>&1 | tail -1", "Bumped setup.py to 1.3.0."),
            "That only changed one place.",
            "Use `bump2version minor`, it updates every file that carries the version.",
            ("echo 'bumped 1.2.0 -> 1.3.0'", "Bumped with bump2version minor."),
        ),
        "action",
        Want("ran", "bump2version minor"),
        Want("never_ran", "sed -i 's/1.2.0/1.3.0/' setup.py"),
        example=Example(commands=("bump2version minor",)),
    ),
    _labelled(
        _acted(
            "claude",
            "larch",
            "Lance le serveur de dev.",
            ("npm run dev 2>&1 | tail -1", "Serveur lancé sur le port 3000."),
            "Lance-le avec `npm run dev -- --port 3001`, le 3000 est pris par l'API.",
            ("echo 'ready on 3001'", "Serveur lancé sur le port 3001."),
        ),
        "action",
        Want("ran", "npm run dev -- --port 3001"),
        example=Example(commands=("npm run dev -- --port 3001",)),
    ),
    _labelled(
        _acted(
            "codex",
            "larch",
            "Find where the session timeout is set.",
            ("grep -rn SESSION_TIMEOUT node_modules/ src/ 2>&1 | head -5", "Found it in src/."),
            "We never grep inside node_modules, it is vendored noise; stick to src/.",
            ("grep -rn SESSION_TIMEOUT src/ 2>&1 | head -5", "src/settings.js:4"),
        ),
        "action",
        Want("never_ran", "grep -rn SESSION_TIMEOUT node_modules/ src/"),
        Want("ran", "grep -rn SESSION_TIMEOUT src/"),
        example=Example(commands=("grep -rn SESSION_TIMEOUT src/",)),
    ),
    _labelled(
        _acted(
            "claude",
            "maple",
            "Run the integration tests.",
            ("pytest tests/integration 2>&1 | tail -1", "3 passed."),
            "Put `DATABASE_URL=sqlite:///test.db` in front, otherwise they hit the shared "
            "Postgres.",
            ("echo '3 passed'", "3 passed against sqlite."),
        ),
        "action",
        Want("ran", "DATABASE_URL=sqlite:///test.db pytest tests/integration"),
        example=Example(commands=("DATABASE_URL=sqlite:///test.db pytest tests/integration",)),
    ),
)

_CASES = _TEXT_CASES + _ACTION_CASES
CHECK_THIRD_SESSIONS: tuple[Scenario, ...] = tuple(s for s, _ in _CASES)
CHECK_THIRD_LABELS: tuple[Label, ...] = tuple(label for _, label in _CASES)


def main(argv: list[str]) -> int:
    return record_with_files(argv, CHECKS_THIRD, CHECK_THIRD_SESSIONS, THIRD_PROJECT_FILES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
