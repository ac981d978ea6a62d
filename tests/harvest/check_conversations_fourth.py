"""A fourth labelled set of corrections recorded with the real ``claude`` and ``codex``, written and
recorded before the miner was changed for the scope shape ("never X inside Y", "only in Y") and
kept untouched while it was changed: 18 corrections (9 of what the answer or a file should say, 9
of what the agent did), in English, German, French and Spanish, new wordings: a scope named by a
directory beside the command that searched, deleted or edited there, a command the user names
with its flags, a file that must change too, a length limit, a slash-command request, a
correction split over two messages.

Labelled like ``check_conversations.py``: where it lands, the right checks, the user's own
example as a synthetic attempt (a check failing on it contradicts the correction).

Measured before any miner change made with it (``python -m bench.corrections --baseline f4b38d2``
at f4b38d2): 16 of 18 attached, 3 with a rule check, 6 with an action check, 9 with a failing
check, 8 correct, 2 contradicting (``never_ran lib/`` from "only `lib/` counts";
``never_ran git commit`` from "`git add -A` mete también los logs de depuración"). After the
scope change 32fb774, made on the third set while this set stayed untouched: 1 contradicting
(the ``git commit`` one). After 7664851, made with that one in view: 0 contradicting, 9 correct.

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.check_conversations_fourth tests/fixtures/conversations_checks_fourth
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from .check_conversations import Example, Label, Want, _patched, _slash, record_with_files
from .check_conversations_third import _labelled, _split_acted
from .conversations import Scenario
from .fresh_conversations import _acted, _said

CHECKS_FOURTH = Path(__file__).resolve().parents[1] / "fixtures" / "conversations_checks_fourth"

FOURTH_PROJECT_FILES: Mapping[str, Mapping[str, str]] = {
    "slash4": {
        ".claude/commands/standup.md": "---\ndescription: Standup update\n---\n"
        "Write my standup update from these notes: $ARGUMENTS\n",
    },
}

_LONG_TWEET = (
    "We are thrilled to announce that the public beta of Acme Notes is finally here after many "
    "months of hard work by the whole team, and we would love for every one of you to try it, "
    "break it, and tell us what you think, because your feedback decides what we build next "
    "and which features make it into the first stable release this spring."
)

_SED_BOTH = "sed -i 's/Bienvnue/Bienvenue/' locales/fr/messages.po vendor/i18n/fr.po"

_TEXT_CASES = (
    _labelled(
        _said(
            "codex",
            "quartz",
            "Write the commit message for the login fix.",
            "Fixed login bug",
            "Commit subjects here follow Conventional Commits, so it has to open with "
            "`fix(auth):`.",
            "fix(auth): handle expired tokens on login",
        ),
        "text",
        Want("starts_with", "fix(auth):"),
        Want("contains", "fix(auth):"),
        example=Example(answer="fix(auth): handle expired tokens on login"),
    ),
    _labelled(
        _said(
            "claude",
            "quartz",
            "Draft the announcement for the mailing list.",
            "Hi all, we shipped v2! Numbers are on https://grafana.internal/d/abc if you want "
            "them.",
            "Nothing from `grafana.internal` may go to the public list; drop that link.",
            "Hi all, we shipped v2!",
        ),
        "text",
        Want("not_contains", "grafana.internal"),
        example=Example(answer="Hi all, we shipped v2!"),
    ),
    _labelled(
        _said(
            "codex",
            "onyx",
            "Schreib die Release-Notes für 4.2.",
            "## 4.2\n- Schnellerer Import",
            "Neue Einträge kommen immer unter die Überschrift `## Unveröffentlicht`, die "
            "Versionsnummer setzen wir erst beim Taggen.",
            "## Unveröffentlicht\n- Schnellerer Import",
        ),
        "text",
        Want("heading", "Unveröffentlicht"),
        example=Example(answer="## Unveröffentlicht\n- Schnellerer Import"),
    ),
    _labelled(
        _said(
            "claude",
            "onyx",
            "Écris le message d'accueil pour les nouveaux clients.",
            "Bienvenue chez Acme ! Nous sommes ravis de vous compter parmi nous.",
            "Il manque l'adresse du support : ajoute toujours `support@acme.fr` à la fin.",
            "Bienvenue chez Acme ! Nous sommes ravis de vous compter parmi nous.\nsupport@acme.fr",
        ),
        "text",
        Want("contains", "support@acme.fr"),
        example=Example(
            answer="Bienvenue chez Acme ! Nous sommes ravis de vous compter parmi nous.\n"
            "support@acme.fr"
        ),
    ),
    _labelled(
        _patched(
            "jade",
            "Add a `--verbose` flag to the CLI.",
            ("src/main.py", "VERBOSE = False\n", "Added --verbose in src/main.py."),
            "Every flag also needs a line in `docs/flags.md`; that page is what users read.",
            (
                "docs/flags.md",
                "--verbose: print every step\n",
                "Documented in docs/flags.md.",
            ),
        ),
        "text",
        Want("changed", "docs/flags.md"),
        Want("file_contains", "--verbose", "docs/flags.md"),
        example=Example(
            writes=(
                ("src/main.py", "VERBOSE = False\n"),
                ("docs/flags.md", "--verbose: print every step\n"),
            )
        ),
    ),
    _labelled(
        _said(
            "claude",
            "jade",
            "Escribe el mensaje de error para cuando falla el pago.",
            "Error 500: NullPointerException en PaymentService.charge()",
            "Nunca muestres trazas internas al usuario: nada de `Exception` en los mensajes.",
            "No pudimos procesar el pago. Inténtalo de nuevo en unos minutos.",
        ),
        "text",
        Want("not_contains", "Exception"),
        example=Example(answer="No pudimos procesar el pago. Inténtalo de nuevo en unos minutos."),
    ),
    _labelled(
        _acted(
            "codex",
            "opal",
            "Which TODOs are left in the code?",
            ("grep -rn TODO . 2>&1 | head -5", "vendor/lib.js:3 TODO\nsrc/app.py:10 TODO"),
            "Only in `src/` please; `vendor/` is someone else's code.",
            ("grep -rn TODO src/ 2>&1 | head -5", "src/app.py:10 TODO"),
        ),
        "text",
        Want("not_contains", "vendor/"),
        Want("ran", "grep -rn TODO src/"),
        example=Example(answer="src/app.py:10 TODO", commands=("grep -rn TODO src/",)),
    ),
    _labelled(
        _slash(
            "slash4",
            "/standup fixed the cache bug, reviewing PR 88",
            "- Fixed the cache bug\n- Reviewing PR 88",
            "Write pull requests as `#88` so Slack links them, not as PR 88.",
            "- Fixed the cache bug\n- Reviewing #88",
        ),
        "text",
        Want("contains", "#88"),
        Want("not_contains", "PR 88"),
        example=Example(answer="- Fixed the cache bug\n- Reviewing #88"),
    ),
    _labelled(
        _said(
            "codex",
            "opal",
            "Write a tweet announcing the beta.",
            _LONG_TWEET,
            "That's too long for X, it has to fit in 280 characters.",
            "The Acme Notes public beta is here. Try it, break it, tell us what to build next.",
        ),
        "text",
        Want("max_chars", 280),
        example=Example(
            answer="The Acme Notes public beta is here. Try it, break it, tell us what to build "
            "next."
        ),
    ),
)

_ACTION_CASES = (
    _labelled(
        _acted(
            "claude",
            "topaz",
            "Find every place we call fetchUser.",
            ("grep -rn fetchUser dist/ lib/ 2>&1 | head -5", "Found it in dist/ and lib/."),
            "Don't search in `dist/`, it's all generated; only `lib/` counts.",
            ("grep -rn fetchUser lib/ 2>&1 | head -5", "lib/api.js:12"),
        ),
        "action",
        Want("never_ran", "grep -rn fetchUser dist/ lib/"),
        Want("ran", "grep -rn fetchUser lib/"),
        example=Example(commands=("grep -rn fetchUser lib/",)),
    ),
    _labelled(
        _acted(
            "claude",
            "topaz",
            "Free up some disk space in the repo.",
            ("rm -rf data/cache data/raw", "Removed data/cache and data/raw."),
            "Never delete anything inside `data/raw/`, those are the only copies of the "
            "measurements; `data/cache/` is fine.",
            ("rm -rf data/cache", "Removed data/cache only."),
        ),
        "action",
        Want("untouched", "data/raw"),
        Want("never_ran", "rm -rf data/cache data/raw"),
        example=Example(commands=("rm -rf data/cache",), deletes=("data/cache",)),
    ),
    _labelled(
        _acted(
            "codex",
            "beryl",
            "Bau das Frontend.",
            ("npm run build 2>&1 | tail -1", "Build fertig."),
            "Bei uns baut man mit `pnpm build`; npm bringt das Lockfile durcheinander.",
            ("echo 'built in 4.2s'", "Mit pnpm build gebaut."),
        ),
        "action",
        Want("ran", "pnpm build"),
        Want("never_ran", "npm run build"),
        example=Example(commands=("pnpm build",)),
    ),
    _labelled(
        _acted(
            "claude",
            "beryl",
            "Corrige la faute de frappe dans le message de bienvenue.",
            (
                _SED_BOTH + " 2>&1 | tail -1",
                "Corrigé dans locales/ et vendor/.",
            ),
            "Ne touche jamais aux fichiers dans `vendor/`, ils sont écrasés à chaque mise à "
            "jour ; seulement `locales/`.",
            (
                "sed -i 's/Bienvnue/Bienvenue/' locales/fr/messages.po 2>&1 | tail -1",
                "Corrigé dans locales/fr/messages.po seulement.",
            ),
        ),
        "action",
        Want("untouched", "vendor/i18n/fr.po"),
        Want("never_ran", _SED_BOTH),
        example=Example(
            commands=("sed -i 's/Bienvnue/Bienvenue/' locales/fr/messages.po",),
            writes=(("locales/fr/messages.po", 'msgstr "Bienvenue"\n'),),
        ),
    ),
    _labelled(
        _acted(
            "codex",
            "garnet",
            "Check the types.",
            ("mypy . 2>&1 | tail -1", "Found 3 errors in 2 files."),
            "Run it as `mypy --strict src/`; the top level picks up the generated stubs.",
            ("echo 'Success: no issues found in 14 source files'", "mypy --strict src/: clean."),
        ),
        "action",
        Want("ran", "mypy --strict src/"),
        Want("never_ran", "mypy ."),
        example=Example(commands=("mypy --strict src/",)),
    ),
    _labelled(
        _acted(
            "claude",
            "garnet",
            "Haz commit de los cambios.",
            ("git add -A && git commit -m wip 2>&1 | tail -1", "Hecho el commit."),
            "Añade solo lo que hay en `src/`; `git add -A` mete también los logs de depuración.",
            (
                "git add src/ && git commit -m 'Fix parser' 2>&1 | tail -1",
                "Commit solo con src/.",
            ),
        ),
        "action",
        Want("never_ran", "git add -A"),
        Want("ran", "git add src/"),
        example=Example(commands=("git add src/ && git commit -m 'Fix parser'",)),
    ),
    _labelled(
        _acted(
            "codex",
            "agate",
            "Lint the project.",
            ("ruff check . 2>&1 | tail -1", "Found 212 errors."),
            "Don't run the linter inside `migrations/`, those files are generated. Lint `app/` "
            "only.",
            ("ruff check app/ 2>&1 | tail -1", "All checks passed!"),
        ),
        "action",
        Want("ran", "ruff check app/"),
        Want("never_ran", "ruff check ."),
        example=Example(commands=("ruff check app/",)),
    ),
    _labelled(
        _acted(
            "claude",
            "agate",
            "Show me the config the app loads.",
            ("cat config/dev.yaml 2>&1 | head -20", "Here is config/dev.yaml."),
            "In prod it loads `config/production.yaml`, not the dev one; read that.",
            ("cat config/production.yaml 2>&1 | head -20", "Here is config/production.yaml."),
        ),
        "action",
        Want("ran", "cat config/production.yaml"),
        Want("never_read", "config/dev.yaml"),
        Want("never_ran", "cat config/dev.yaml"),
        example=Example(
            commands=("cat config/production.yaml",), reads=("config/production.yaml",)
        ),
    ),
    _labelled(
        _split_acted(
            "codex",
            "slate",
            "Restart the web service.",
            ("systemctl restart web 2>&1 | tail -1", "Restarted web."),
            "No, not like that.",
            "We run everything through docker compose: `docker compose restart web`.",
            ("echo 'Container web Started'", "Restarted with docker compose."),
        ),
        "action",
        Want("ran", "docker compose restart web"),
        Want("never_ran", "systemctl restart web"),
        example=Example(commands=("docker compose restart web",)),
    ),
)

_CASES = _TEXT_CASES + _ACTION_CASES
CHECK_FOURTH_SESSIONS: tuple[Scenario, ...] = tuple(s for s, _ in _CASES)
CHECK_FOURTH_LABELS: tuple[Label, ...] = tuple(label for _, label in _CASES)


def main(argv: list[str]) -> int:
    return record_with_files(argv, CHECKS_FOURTH, CHECK_FOURTH_SESSIONS, FOURTH_PROJECT_FILES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
