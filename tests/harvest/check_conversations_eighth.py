"""An eighth labelled set of corrections recorded with the real ``claude`` and ``codex``, written and
recorded while the miner change after 942032c was made, and kept from it: 16 corrections (8 of
what the answer or a file should say, 8 of what the agent did), in English, Polish, Turkish,
Swedish, German, Czech, Spanish and Japanese, new topics and wordings.

Labelled like ``check_conversations.py``: where it lands, the right checks, the user's own
example as a synthetic attempt (a check failing on it contradicts the correction). A command key
is the whole command the user named or the attempt ran, so a check catching any part of it counts.

Measured before the change it measures (``python -m bench.corrections --baseline 942032c --after
942032c --sets checks8 --json``): 12 of 16 attached (4 became tasks, all about text), 3 with a
rule check, 7 with an action check, 10 with a failing check, 9 correct (3 of 8 text, 6 of 8
actions), 3 contradicting with 4 checks (all about actions).

After the miner work made while this set was kept from it (``python -m bench.corrections
--baseline 942032c --after 9daf906 --sets checks8 --json``): 12 of 16 attached, 4 became tasks, 3
with a rule check, 7 with an action check, 10 with a failing check, 9 correct (3 of 8 text, 6 of 8
actions), 1 contradicting with 2 checks (``never_ran pytest`` and ``never_ran -n`` beside the
user's own ``pytest -n 2``, from "`-n auto` はやめて"). Before it the contradictions were those two
and ``never_ran var/sessions.db`` beside the user's own ``sqlite3 var/sessions.db 'DELETE FROM
sessions;'`` (now ``ran`` of that command), and ``never_ran -f`` beside the user's own ``helm
upgrade ... -f values/staging.yaml`` (now ``never_ran apply -f``, plus ``ran helm upgrade ...``).
The 4 that became tasks, before and after: the relative link in Turkish, the apology phrase in
quotes with an apostrophe, the SMS limit in Swedish, the text correction after the slash command
``/announce``; the 2 with no check: the command named as what CI runs (``npm run lint:strict``)
and the leave-out in Czech after a listing. The praise in Polish after a corrected request and
the praise after two uncorrected requests (Swedish, Turkish) never became tasks.

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.check_conversations_eighth tests/fixtures/conversations_checks_eighth
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from .check_conversations import Example, Want, _patched, _slash, record_with_files
from .check_conversations_fifth import _slash_acted
from .check_conversations_sixth import _answered, _uncorrected
from .check_conversations_third import _labelled, _split_said
from .conversations import Scenario
from .fresh_conversations import _acted, _praise, _said

CHECKS_EIGHTH = Path(__file__).resolve().parents[1] / "fixtures" / "conversations_checks_eighth"

EIGHTH_PROJECT_FILES: Mapping[str, Mapping[str, str]] = {
    "slash8": {
        ".claude/commands/announce.md": "---\ndescription: Release announcement\n---\n"
        "Write the public announcement for release $ARGUMENTS.\n",
        ".claude/commands/deploy.md": "---\ndescription: Deploy\n---\n"
        "Deploy the web app to the $ARGUMENTS environment.\n",
    },
    "peridot": {"package.json": '{"name": "shop", "version": "1.4.2"}\n'},
    "zircon": {"var/sessions.db": "placeholder\n", "data/orders.csv": "id,total\n1,9.5\n"},
    "garnet": {
        "src/index.ts": "export {};\n",
        "dist/index.js": "export {};\n",
        "node_modules/left-pad/index.ts": "export {};\n",
    },
}

_STATUS_BAD = (
    "We're sorry for any inconvenience: search was down from 09:10 to 09:40 and is back now."
)
_STATUS = "Search was down from 09:10 to 09:40 UTC. It is back, and no data was lost."
_SMS_LONG = (
    "Hej! Vi vill påminna dig om att din tandläkartid är imorgon, tisdag den 3 december klockan "
    "14:30 på Storgatan 12. Om du inte kan komma ber vi dig att avboka senast idag klockan 18:00 "
    "via vår webbplats eller genom att ringa oss, annars debiteras en avgift."
)
_SMS = "Påminnelse: tandläkartid tis 3/12 kl 14:30, Storgatan 12. Avboka senast idag 18:00."
_NOTICE_BAD = "Migration notes for the 2.0 upgrade:\n- config moves to settings.toml"
_NOTICE = "Migration notes for the 2.0 upgrade:\n- config moves to settings.toml\n\n— Platform team"
_KNOWN = "## Znane problemy\n- Eksport do PDF gubi polskie znaki w nagłówkach"
_HELM = "helm upgrade --install web charts/web -f values/staging.yaml"
_HEAD = "head -n 5 data/orders.csv | column -s, -t"
_WIPE = "sqlite3 var/sessions.db 'DELETE FROM sessions;'"

_TEXT_CASES = (
    _labelled(
        _said(
            "codex",
            "peridot",
            "Dopisz do README, że eksport do PDF gubi polskie znaki.",
            "## Uwaga\nEksport do PDF gubi polskie znaki w nagłówkach.",
            "Takie rzeczy wpisujemy pod istniejący nagłówek `## Znane problemy`, nie pod nowy.",
            _KNOWN,
            _praise("codex", "Super, teraz pasuje."),
        ),
        "text",
        Want("heading", "Znane problemy"),
        Want("not_contains", "## Uwaga"),
        example=Example(answer=_KNOWN),
    ),
    _labelled(
        _patched(
            "peridot",
            "Add a `--dry-run` flag to the sync command.",
            (
                "src/sync.py",
                "def sync(dry_run: bool = False) -> None: ...\n",
                "Added --dry-run to sync.",
            ),
            "Every flag also has to be listed in `docs/cli.md`; the man page is generated from it "
            "and a flag missing there doesn't exist for our users.",
            (
                "docs/cli.md",
                "## sync\n\n- `--dry-run`: show what would change, change nothing.\n",
                "Listed --dry-run in docs/cli.md.",
            ),
        ),
        "text",
        Want("file_contains", "--dry-run", "docs/cli.md"),
        Want("changed", "docs/cli.md"),
        example=Example(
            writes=(
                ("src/sync.py", "def sync(dry_run: bool = False) -> None: ...\n"),
                ("docs/cli.md", "## sync\n\n- `--dry-run`: show what would change.\n"),
            )
        ),
    ),
    _labelled(
        _said(
            "claude",
            "zircon",
            "Kurulum rehberine bir bağlantı ekle.",
            "[Kurulum](https://docs.example.com/guides/setup.html)",
            "Tam adres yazma; dokümanlar iki ayrı alan adında yayınlanıyor. `../guides/setup.md` "
            "gibi göreli bir bağlantı olsun.",
            "[Kurulum](../guides/setup.md)",
        ),
        "text",
        Want("contains", "../guides/setup.md"),
        Want("not_contains", "https://docs.example.com"),
        example=Example(answer="[Kurulum](../guides/setup.md)"),
    ),
    _labelled(
        _said(
            "claude",
            "garnet",
            "Draft the migration notice for the 2.0 upgrade.",
            _NOTICE_BAD,
            "Every notice we send ends with the line `— Platform team`, nothing after it.",
            _NOTICE,
        ),
        "text",
        Want("contains", "— Platform team"),
        Want("regex", "— Platform team"),
        example=Example(answer=_NOTICE),
    ),
    _labelled(
        _said(
            "claude",
            "peridot",
            "Write the status page update for this morning's search outage.",
            _STATUS_BAD,
            'Please, no "we\'re sorry for any inconvenience" - it reads like a form letter. '
            "Say what broke, for how long, and whether data's safe.",
            _STATUS,
        ),
        "text",
        Want("not_contains", "sorry for any inconvenience"),
        example=Example(answer=_STATUS),
    ),
    _labelled(
        _said(
            "codex",
            "zircon",
            "Skriv påminnelse-SMS:et till patienterna.",
            _SMS_LONG,
            "Ett SMS får vara högst 160 tecken, annars delas det upp i två och vi betalar dubbelt.",
            _SMS,
        ),
        "text",
        Want("max_chars", 160),
        example=Example(answer=_SMS),
    ),
    _labelled(
        _slash(
            "slash8",
            "/announce 3.1",
            "Release 3.1 is out! Thanks to everyone in #eng-internal for the testing.",
            "It's a public post: nothing about #eng-internal or any other Slack channel in it.",
            "Release 3.1 is out! Thanks to everyone who tested the betas.",
        ),
        "text",
        Want("not_contains", "#eng-internal"),
        example=Example(answer="Release 3.1 is out! Thanks to everyone who tested the betas."),
    ),
    _labelled(
        _split_said(
            "codex",
            "garnet",
            "Write the text for the 404 page.",
            "Oops! We can't find that page.",
            "Nope.",
            "The style guide bans exclamation marks in UI copy, not even one after 'Oops'.",
            "We can't find that page. Check the address or go back to the home page.",
        ),
        "text",
        Want("not_contains", "!"),
        example=Example(
            answer="We can't find that page. Check the address or go back to the home page."
        ),
    ),
)

_ACTION_CASES = (
    _labelled(
        _acted(
            "claude",
            "peridot",
            "Bump the patch version.",
            ("npm version patch 2>&1 | tail -1", "Bumped to 1.4.3 and tagged v1.4.3."),
            "Use `npm version patch --no-git-tag-version`. The release pipeline makes the tag; a "
            "hand-made one breaks it.",
            (
                "npm version patch --no-git-tag-version 2>&1 | tail -1",
                "Bumped to 1.4.3 without a tag.",
            ),
        ),
        "action",
        Want("ran", "npm version patch --no-git-tag-version"),
        example=Example(
            commands=("npm version patch --no-git-tag-version",),
            writes=(("package.json", '{"name": "shop", "version": "1.4.3"}\n'),),
        ),
    ),
    _labelled(
        _acted(
            "claude",
            "zircon",
            "Setz die Sessions zurück, die Tabelle ist voller Testmüll.",
            ("rm var/sessions.db 2>&1 | tail -1", "var/sessions.db gelöscht."),
            "Lösch `var/sessions.db` nie, der Server hält die Datei offen. Leeren geht mit "
            f"`{_WIPE}`.",
            (f"{_WIPE} 2>&1 | tail -1", "Tabelle geleert."),
        ),
        "action",
        Want("never_ran", "rm var/sessions.db"),
        Want("ran", _WIPE),
        # the user's own command rewrites the database in place: that is what they asked for
        example=Example(commands=(_WIPE,), writes=(("var/sessions.db", ""),)),
    ),
    _labelled(
        _acted(
            "codex",
            "zircon",
            "What columns does the orders export have?",
            ("cat data/orders.csv", "Printed the whole file: id,total ..."),
            f"Don't dump the whole CSV, it's 2 GB on the real box. `{_HEAD}` shows the columns.",
            (_HEAD, "Columns: id, total."),
        ),
        "action",
        Want("ran", _HEAD),
        Want("never_ran", "cat data/orders.csv"),
        example=Example(commands=(_HEAD,), reads=("data/orders.csv",)),
    ),
    _labelled(
        _patched(
            "garnet",
            "Make the linter pass on the cart module.",
            (
                "src/cart.ts",
                "// eslint-disable-next-line no-unused-vars\nimport { sum } from './math';\n",
                "Silenced the unused import.",
            ),
            "CI runs `npm run lint:strict`, which fails on any eslint-disable, so remove the "
            "unused import from `src/cart.ts` instead of silencing it.",
            ("src/cart.ts", "export const cart: string[] = [];\n", "Removed the unused import."),
        ),
        "action",
        Want("file_not_contains", "eslint-disable", "src/cart.ts"),
        Want("changed", "src/cart.ts"),
        example=Example(writes=(("src/cart.ts", "export const cart: string[] = [];\n"),)),
    ),
    _labelled(
        _acted(
            "codex",
            "garnet",
            "Vypiš všechny TypeScriptové soubory v projektu.",
            (
                "find . -name '*.ts' 2>&1 | head -20",
                "./src/index.ts\n./node_modules/left-pad/index.ts",
            ),
            "Vynech `node_modules/` i `dist/`, zajímá mě jen to, co je v `src/`.",
            ("find src -name '*.ts' 2>&1 | head -20", "src/index.ts"),
        ),
        "action",
        Want("ran", "find src -name '*.ts'"),
        Want("never_ran", "find . -name '*.ts'"),
        Want("not_contains", "node_modules/"),
        example=Example(answer="src/index.ts", commands=("find src -name '*.ts'",)),
    ),
    _labelled(
        _patched(
            "peridot",
            "Renombra la columna `fullname` a `full_name`.",
            (
                "migrations/0007_rename.py",
                "ALTER TABLE users RENAME COLUMN fullname TO full_name;\n",
                "Migración 0007 editada.",
            ),
            "No toques nada en `migrations/`, esas se generan solas. El cambio va solo en "
            "`schema/models.py`.",
            (
                "schema/models.py",
                "class User:\n    full_name: str\n",
                "Cambiado en schema/models.py.",
            ),
        ),
        "action",
        Want("untouched", "migrations"),
        Want("changed", "schema/models.py"),
        example=Example(writes=(("schema/models.py", "class User:\n    full_name: str\n"),)),
    ),
    _labelled(
        _acted(
            "claude",
            "garnet",
            "テストを並列で回して。",
            ("pytest -n auto 2>&1 | tail -1", "-n auto で全テストを実行しました。"),
            "`-n auto` はやめて。CI マシンは 2 コアしかないので `pytest -n 2` まで。",
            ("pytest -n 2 2>&1 | tail -1", "-n 2 で実行しました。"),
        ),
        "action",
        Want("ran", "pytest -n 2"),
        Want("never_ran", "pytest -n auto"),
        example=Example(commands=("pytest -n 2",)),
    ),
    _labelled(
        _slash_acted(
            "slash8",
            "/deploy staging",
            ("kubectl apply -f k8s/ 2>&1 | tail -1", "Applied k8s/ to staging."),
            f"Staging only ever goes through `{_HELM}`; a raw kubectl apply drifts from the chart.",
            (f"{_HELM} 2>&1 | tail -1", "Upgraded the web release on staging."),
        ),
        "action",
        Want("ran", _HELM),
        Want("never_ran", "kubectl apply -f k8s/"),
        example=Example(commands=(_HELM,)),
    ),
)

# Praise after requests nobody corrected: no correction, no label; neither may become a task.
PRAISED = (
    _uncorrected(
        "codex",
        "peridot",
        "Kör linten på hela projektet.",
        "npm run lint 2>&1 | tail -1",
        "Perfekt, tack!",
    ),
    _answered(
        "claude",
        "zircon",
        "`git stash pop` ile `git stash apply` arasındaki fark ne?",
        "`apply` değişiklikleri uygular ve stash'i listede bırakır; `pop` uygular ve başarılı "
        "olursa stash'i listeden siler.",
        "Çok net, teşekkürler!",
    ),
)

_CASES = _TEXT_CASES + _ACTION_CASES
CHECK_EIGHTH_SESSIONS: tuple[Scenario, ...] = tuple(s for s, _ in _CASES) + PRAISED
CHECK_EIGHTH_LABELS = tuple(label for _, label in _CASES)


def main(argv: list[str]) -> int:
    return record_with_files(argv, CHECKS_EIGHTH, CHECK_EIGHTH_SESSIONS, EIGHTH_PROJECT_FILES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
