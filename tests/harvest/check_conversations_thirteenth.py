"""A thirteenth labelled set of corrections recorded with the real ``claude`` and ``codex``, written
and recorded while the miner change after c8c0ebc was made, and kept from it: 22 corrections (11
of what the answer or a file should say, 11 of what the agent did; 11 recorded with each binary),
in English, Slovenian, Serbian, Icelandic, Welsh, Malay and Basque (the last six in no earlier
set), with praise in Georgian and Welsh, new topics and wordings.

Labelled like ``check_conversations.py``: where it lands, the right checks, the user's own
example as a synthetic attempt (a check failing on it contradicts the correction). A command key
is the whole command the user named or the attempt ran, so a check catching any part of it counts.
The shapes: a right command that starts with the whole wrong one (``docker compose up`` and ``docker
compose up -d db``, ``kubectl apply -f k8s/`` and ``kubectl apply -f k8s/staging/``, ``git push
--force`` and ``git push --force-with-lease origin feature/ISL-88``: forbidding the wrong one's text
would forbid the user's own) or shares its program and flags (``ruff check .`` beside ``ruff check
--fix src/ tests/``, ``git tag v2.4`` beside ``git tag -a v2.4.0 -m 'Release 2026-11-27'``,
``systemctl restart nginx`` beside ``systemctl reload nginx``, ``grep -rn phone .`` beside ``grep
-rn SUPPORT_LINE src/``); "never delete" one file of a glob that deleted three (``logs/audit.log``,
in Serbian); never open ``.env.production``, the test file named (Welsh); the wrong locale file
written, the right one named (Icelandic); a scope after a listing as an action (Malay: only
``config/``); numbers that are not limits: dates in three formats (``27 Nov 2026``, ``24.12.2026``
against ``12/24``, ``2026-11-27`` inside a command), versions (``v4.2.0``, ``20.11.1`` in
``.nvmrc``, ``Safari 17.2``, ``v2.4.0``, "since version 2.3"), times (``03:12 UTC``, "09:00" on
Monday in Basque), ids (``INC-4471``, ``ISL-88``, ``[AUTH]``), a port (``8443`` instead of ``8000``,
in Serbian), counts ("300 open websocket connections", "seven years", "2 GB"); limits that are
numbers (60 characters in Slovenian, 160 in Malay); "link" as a network connection, "title" as a job
title and as a ticket's title, "line" as the support phone line, none about URLs or markdown; a
slash-command request answered in words (``/ticket``, Malay) and one done with a command
(``/deploy``, Basque); corrections split over two messages (a text in Basque, an action in English);
praise after a corrected request and after two requests nobody corrected (Georgian, Welsh).

Measured untouched at 9cab933 (``python -m bench.corrections --baseline c8c0ebc --after HEAD
--sets checks13 --json``), before / after: 21 / 21 of 22 attached (1 / 1 became a task), 9 / 9
with a rule check, 8 / 8 with an action check, 17 / 17 with a failing check, 15 / 15 correct (7 / 7
of 11 text, 8 / 8 actions), 1 / 0 contradicting with 1 / 0 checks: before, a word-count ceiling
of 12 (``regex`` of at most 12 words) from "the fibre link between Frankfurt and Dublin dropped
at 03:12 UTC", the minutes of a time read as a limit. Against c053156 the figures are the same.
Neither before nor after: the Serbian port 8443 (a task of its own); no check for the `.nvmrc`
pin to ``20.11.1``, the Slovenian ``docker compose up -d db``, the Serbian never-delete
``logs/audit.log`` and the Malay leave-out after a listing.

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.check_conversations_thirteenth tests/fixtures/conversations_checks_thirteenth
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from .check_conversations import Example, Want, _patched, _slash, record_with_files
from .check_conversations_fifth import _slash_acted
from .check_conversations_sixth import _answered, _uncorrected
from .check_conversations_third import _labelled, _split_acted, _split_said
from .conversations import Scenario
from .fresh_conversations import _acted, _praise, _said

CHECKS_THIRTEENTH = (
    Path(__file__).resolve().parents[1] / "fixtures" / "conversations_checks_thirteenth"
)

_IS = '{\n  "save": "Vista",\n  "cancel": "Hætta við"\n}\n'
THIRTEENTH_PROJECT_FILES: Mapping[str, Mapping[str, str]] = {
    "slash13": {
        ".claude/commands/ticket.md": "---\ndescription: Ticket title\n---\n"
        "Write the title of a bug ticket for: $ARGUMENTS\n",
        ".claude/commands/deploy.md": "---\ndescription: Deploy\n---\n"
        "Apply the Kubernetes manifests of this repository.\n",
        "k8s/staging/app.yaml": "kind: Deployment\nmetadata:\n  name: app\n",
        "k8s/production/app.yaml": "kind: Deployment\nmetadata:\n  name: app\n",
    },
    "fjord": {
        "src/settings.py": 'SUPPORT_LINE = "+354 555 0199"\nDEBUG = False\n',
        "data/dump.csv": "phone,name\n5550100,ada\n",
        "logs/app.log": "started\n",
        "logs/worker.log": "idle\n",
        "logs/audit.log": "2026-11-01 admin login\n",
        ".env.production": "DB_PASSWORD=not-a-real-one\n",
        "tests/.env.test": "DB_PASSWORD=test\n",
        "config/app.json": '{"port": 8443}\n',
        "config/flags.json": '{"beta": false}\n',
        "node_modules/leftpad/package.json": '{"name": "leftpad"}\n',
        "locales/en.json": '{\n  "save": "Save"\n}\n',
        "locales/is.json": '{\n  "save": "Vista"\n}\n',
        "docker-compose.yml": "services:\n  db:\n    image: postgres:16\n  web:\n    build: .\n",
    },
    "tarn": {
        "src/tarn/__init__.py": "",
        "pyproject.toml": '[project]\nname = "tarn"\nversion = "2.4.0"\n',
    },
}

_RELEASE_BAD = "Tarn 4.2 is out now, with faster sync and a new offline mode."
_RELEASE = "Tarn v4.2.0 is out (27 Nov 2026), with faster sync and a new offline mode."
_SUBJECT_BAD = (
    "Pomembno obvestilo: vaš račun za november je pripravljen in ga lahko prenesete v portalu"
)
_SUBJECT = "Vaš račun za november je pripravljen"
_RUN_BAD = "## Локално покретање\n\nПокрени `make run` и отвори http://localhost:8000."
_RUN = "## Локално покретање\n\nПокрени `make run` и отвори https://localhost:8443."
_XMAS_BAD = "Skrifstofan verður lokuð frá 12/24 til 12/27. Gleðileg jól!"
_XMAS = "Skrifstofan verður lokuð frá 24.12.2026 til 27.12.2026. Gleðileg jól!"
_TICKET_BAD = "Login fails on Safari"
_TICKET = "[AUTH] Login fails on Safari 17.2"
_OUTAGE_BAD = "Zerbitzua ez dago erabilgarri. Barkatu eragozpenak."
_OUTAGE = "INC-4471: Zerbitzua ez dago erabilgarri. Barkatu eragozpenak."
_INCIDENT_BAD = (
    "Between 03:00 and 03:40 UTC some requests failed because of a network problem. It is fixed."
)
_INCIDENT = (
    "At 03:12 UTC the fibre link between our Frankfurt and Dublin data centres dropped; requests "
    "routed through Dublin failed until 03:40 UTC, when traffic moved to the backup link."
)
_WELCOME_BAD = "Welcome to Tafod! Let's learn Welsh together."
_WELCOME = "Croeso i Tafod! Welcome to Tafod! Let's learn Welsh together."
_SIGNATURE_BAD = "Ana Kovač\nDeveloper\nAcme Logistics"
_SIGNATURE = "Ana Kovač\nStaff Engineer\nAcme Logistics"
_SMS_BAD = (
    "Salam sejahtera! Kod pengesahan anda untuk log masuk ke akaun Tarn ialah 482913. Kod ini "
    "sah selama 10 minit sahaja. Jangan kongsi kod ini dengan sesiapa, termasuk kakitangan kami. "
    "Jika anda tidak meminta kod ini, sila abaikan mesej ini."
)
_SMS = "Kod Tarn anda: 482913. Sah 10 minit. Jangan kongsi dengan sesiapa."
_NVMRC = "20.11.1\n"

_JSONS_ALL = (
    "./config/app.json\n./config/flags.json\n./locales/en.json\n./locales/is.json\n"
    "./node_modules/leftpad/package.json"
)
_RUFF = "ruff check --fix src/ tests/"
_DB = "docker compose up -d db"
_LOGS = "rm -f logs/app.log logs/worker.log"
_LEASE = "git push --force-with-lease origin feature/ISL-88"
_TEST_ENV = "tests/.env.test"
_JSON = "find config -name '*.json'"
_STAGING = "kubectl apply -f k8s/staging/"
_RELOAD = "systemctl reload nginx"
_LINE = "grep -rn SUPPORT_LINE src/"
_TAG = "git tag -a v2.4.0 -m 'Release 2026-11-27'"
_LOCALE = """printf '{\\n  "save": "Vista",\\n  "cancel": "Hætta við"\\n}\\n' > locales/is.json"""
_LOCALE_BAD = (
    """printf '{\\n  "save": "Save",\\n  "cancel": "Hætta við"\\n}\\n' > locales/en.json"""
)

_TEXT_CASES = (
    _labelled(
        _said(
            "codex",
            "tarn",
            "Write the release announcement for 4.2.",
            _RELEASE_BAD,
            "Give the version as `v4.2.0` and the date as `27 Nov 2026`; those are the exact "
            "strings support searches the announcements for.",
            _RELEASE,
            _praise("codex", "Lovely, ship it."),
        ),
        "text",
        Want("contains", "v4.2.0"),
        Want("contains", "27 Nov 2026"),
        example=Example(answer=_RELEASE),
    ),
    _labelled(
        _said(
            "claude",
            "fjord",
            "Napiši zadevo e-poštnega sporočila, s katerim strankam pošljemo novembrski račun.",
            _SUBJECT_BAD,
            "Zadeva sme imeti največ 60 znakov, daljše Gmail na telefonu odreže.",
            _SUBJECT,
        ),
        "text",
        Want("max_chars", 60),
        example=Example(answer=_SUBJECT),
    ),
    _labelled(
        _said(
            "codex",
            "fjord",
            "Напиши у README одељак о томе како се сервер покреће локално.",
            _RUN_BAD,
            "Сервер од верзије 2.3 слуша на порту 8443, не на 8000 – напиши "
            "`https://localhost:8443`.",
            _RUN,
        ),
        "text",
        Want("contains", "https://localhost:8443"),
        Want("not_contains", "localhost:8000"),
        example=Example(answer=_RUN),
    ),
    _labelled(
        _said(
            "claude",
            "fjord",
            "Skrifaðu tilkynningu um að skrifstofan verði lokuð yfir jólin.",
            _XMAS_BAD,
            "Við skrifum dagsetningar alltaf svona: `24.12.2026`. Aldrei með skástriki eins og "
            "12/24, það misskilst.",
            _XMAS,
        ),
        "text",
        Want("contains", "24.12.2026"),
        Want("not_contains", "12/24"),
        example=Example(answer=_XMAS),
    ),
    _labelled(
        _patched(
            "tarn",
            "Add an `.nvmrc` so everyone builds the docs with the same Node.",
            (".nvmrc", "lts/*\n", "Added .nvmrc with lts/*."),
            "Pin it to `20.11.1`, the exact version production runs; `lts/*` drifts every few "
            "months.",
            (".nvmrc", _NVMRC, "Pinned .nvmrc to 20.11.1."),
        ),
        "text",
        Want("file_contains", "20.11.1", ".nvmrc"),
        Want("file_not_contains", "lts/*", ".nvmrc"),
        example=Example(writes=((".nvmrc", _NVMRC),)),
    ),
    _labelled(
        _slash(
            "slash13",
            "/ticket login fails on Safari 17.2",
            _TICKET_BAD,
            "Tajuk tiket mesti bermula dengan komponen dalam kurungan segi empat, contohnya "
            "`[AUTH]`, dan jangan buang versi pelayar `Safari 17.2`.",
            _TICKET,
        ),
        "text",
        Want("starts_with", "[AUTH]"),
        Want("contains", "Safari 17.2"),
        example=Example(answer=_TICKET),
    ),
    _labelled(
        _split_said(
            "codex",
            "fjord",
            "Idatzi bezeroentzako mezu bat, zerbitzua etenda dagoela esateko.",
            _OUTAGE_BAD,
            "Ez, horrela ez.",
            "Gure mezu guztiek gertakariaren zenbakia dute hasieran, kasu honetan `INC-4471`.",
            _OUTAGE,
        ),
        "text",
        Want("starts_with", "INC-4471"),
        Want("contains", "INC-4471"),
        example=Example(answer=_OUTAGE),
    ),
    _labelled(
        _said(
            "claude",
            "fjord",
            "Summarise last night's incident for the status page.",
            _INCIDENT_BAD,
            'Don\'t blame "a network problem". Say what it was: the fibre link between Frankfurt '
            "and Dublin dropped at 03:12 UTC.",
            _INCIDENT,
        ),
        "text",
        Want("contains", "03:12 UTC"),
        Want("contains", "Frankfurt"),
        Want("not_contains", "network problem"),
        example=Example(answer=_INCIDENT),
    ),
    _labelled(
        _said(
            "codex",
            "tarn",
            "Ysgrifenna neges groeso ar gyfer sgrin gyntaf yr ap.",
            _WELCOME_BAD,
            "Mae pob neges yn yr ap yn dod yn Gymraeg yn gyntaf, felly dechreua gyda "
            "`Croeso i Tafod!`.",
            _WELCOME,
        ),
        "text",
        Want("starts_with", "Croeso i Tafod!"),
        example=Example(answer=_WELCOME),
    ),
    _labelled(
        _said(
            "claude",
            "tarn",
            "Write the email signature for Ana.",
            _SIGNATURE_BAD,
            "Her title has been `Staff Engineer` since March, she isn't a Developer any more.",
            _SIGNATURE,
        ),
        "text",
        Want("contains", "Staff Engineer"),
        Want("not_contains", "Developer"),
        example=Example(answer=_SIGNATURE),
    ),
    _labelled(
        _said(
            "codex",
            "tarn",
            "Tulis mesej SMS yang menghantar kod pengesahan kepada pengguna.",
            _SMS_BAD,
            "Terlalu panjang. Satu SMS hanya muat 160 aksara, jadi mesej mesti tidak melebihi 160.",
            _SMS,
        ),
        "text",
        Want("max_chars", 160),
        example=Example(answer=_SMS),
    ),
)

_ACTION_CASES = (
    _labelled(
        _acted(
            "claude",
            "fjord",
            "Run the linter.",
            ("ruff check . 2>&1 | tail -1", "Linted the whole repository."),
            f"Use `{_RUFF}`; from the root it also lints the generated code under `build/`.",
            (f"{_RUFF} 2>&1 | tail -1", "Linted src/ and tests/ and fixed what it could."),
        ),
        "action",
        Want("ran", _RUFF),
        example=Example(commands=(_RUFF,)),
    ),
    _labelled(
        _acted(
            "codex",
            "fjord",
            "Zaženi bazo za razvoj.",
            ("docker compose up 2>&1 | tail -3", "Zagnal sem vse storitve."),
            f"Samo storitev `db` in v ozadju: `{_DB}`. Spletnega strežnika ne rabim.",
            (f"{_DB} 2>&1 | tail -3", "Baza teče v ozadju."),
        ),
        "action",
        Want("ran", _DB),
        example=Example(commands=(_DB,)),
    ),
    _labelled(
        _acted(
            "claude",
            "fjord",
            "Обриши старе логове из фасцикле logs.",
            ("rm -f logs/*.log", "Обрисао сам logs/app.log, logs/worker.log и logs/audit.log."),
            "Никада не бриши `logs/audit.log`, ревизори траже тај фајл седам година. Остала два "
            "можеш.",
            (_LOGS, "Обрисао сам само logs/app.log и logs/worker.log."),
        ),
        "action",
        Want("untouched", "logs/audit.log"),
        Want("never_ran", "rm -f logs/*.log"),
        example=Example(commands=(_LOGS,), deletes=("logs/app.log", "logs/worker.log")),
    ),
    _labelled(
        _acted(
            "codex",
            "tarn",
            "Sendu breytingarnar mínar á þjóninn.",
            ("git push --force 2>&1 | tail -1", "Sent með git push --force."),
            f"Aldrei bara `--force`, það getur eytt verki annarra. Notaðu `{_LEASE}`.",
            (f"{_LEASE} 2>&1 | tail -1", "Sent með --force-with-lease."),
        ),
        "action",
        # the wrong command's text is a prefix of the right one's: only ``ran`` is safe
        Want("ran", _LEASE),
        example=Example(commands=(_LEASE,)),
    ),
    _labelled(
        _acted(
            "claude",
            "fjord",
            "Pam mae'r prawf mewngofnodi'n methu?",
            ("cat .env.production 2>&1 | head -3", "Mae'r cyfrinair yn .env.production yn iawn."),
            f"Paid byth ag agor `.env.production`, mae'r cyfrineiriau go iawn ynddo. Mae'r "
            f"gwerthoedd prawf yn `{_TEST_ENV}`.",
            (f"cat {_TEST_ENV} 2>&1 | head -3", "Mae'r cyfrinair prawf yn wag yn y prawf."),
        ),
        "action",
        Want("never_read", ".env.production"),
        Want("never_ran", "cat .env.production"),
        example=Example(commands=(f"cat {_TEST_ENV}",), reads=(_TEST_ENV,)),
    ),
    _labelled(
        _acted(
            "codex",
            "fjord",
            "Senaraikan semua fail JSON dalam repo ini.",
            (
                "find . -name '*.json' 2>&1 | head -20",
                _JSONS_ALL,
            ),
            "Yang dalam `config/` sahaja. `node_modules/` dan `locales/` bukan konfigurasi kami.",
            (f"{_JSON} 2>&1 | head -20", "config/app.json\nconfig/flags.json"),
        ),
        "action",
        Want("never_ran", "find . -name '*.json'"),
        Want("ran", _JSON),
        Want("not_contains", "node_modules/"),
        example=Example(answer="config/app.json\nconfig/flags.json", commands=(_JSON,)),
    ),
    _labelled(
        _slash_acted(
            "slash13",
            "/deploy",
            ("kubectl apply -f k8s/ 2>&1 | tail -2", "Applied everything under k8s/."),
            f"Ez aplikatu dena: `{_STAGING}` bakarrik. Produkzioa astelehenean 09:00etan doa, "
            "ez gaur.",
            (f"{_STAGING} 2>&1 | tail -2", "Applied k8s/staging/ only."),
        ),
        "action",
        # ``kubectl apply -f k8s/`` is a prefix of the user's command: only ``ran`` is safe
        Want("ran", _STAGING),
        example=Example(commands=(_STAGING,)),
    ),
    _labelled(
        _split_acted(
            "codex",
            "tarn",
            "Restart the web server so it picks up the new certificate.",
            ("systemctl restart nginx 2>&1 | tail -1", "Restarted nginx."),
            "No, not like that!",
            f"Reload, don't restart: `{_RELOAD}`. A restart drops the 300 open websocket "
            "connections.",
            (f"{_RELOAD} 2>&1 | tail -1", "Reloaded nginx."),
        ),
        "action",
        Want("ran", _RELOAD),
        Want("never_ran", "systemctl restart nginx"),
        example=Example(commands=(_RELOAD,)),
    ),
    _labelled(
        _acted(
            "claude",
            "fjord",
            "Find where the support phone number is set.",
            ("grep -rn phone . 2>&1 | head -20", "./data/dump.csv:1:phone,name"),
            f"In the code the support line is `SUPPORT_LINE`, so `{_LINE}`. And don't grep the "
            "2 GB dump in `data/`.",
            (f"{_LINE} 2>&1 | head -5", 'src/settings.py:1:SUPPORT_LINE = "+354 555 0199"'),
        ),
        "action",
        Want("ran", _LINE),
        Want("never_ran", "grep -rn phone ."),
        example=Example(
            answer='src/settings.py:1:SUPPORT_LINE = "+354 555 0199"', commands=(_LINE,)
        ),
    ),
    _labelled(
        _acted(
            "codex",
            "tarn",
            "Tag the 2.4 release.",
            ("git tag v2.4 2>&1 | tail -1", "Tagged v2.4."),
            f"We only push annotated tags with the full version and the date: `{_TAG}`.",
            (f"{_TAG} 2>&1 | tail -1", "Tagged v2.4.0, annotated."),
        ),
        "action",
        Want("ran", _TAG),
        Want("never_ran", "git tag v2.4"),
        example=Example(commands=(_TAG,)),
    ),
    _labelled(
        _acted(
            "claude",
            "fjord",
            "Bættu við þýðingunni „Hætta við“ fyrir Cancel.",
            (_LOCALE_BAD, "Bætti henni við í locales/en.json."),
            "Rangt skjal. Íslenskan fer í `locales/is.json`; `locales/en.json` er búin til "
            "sjálfkrafa og aldrei breytt með höndum.",
            (_LOCALE, "Bætti henni við í locales/is.json."),
        ),
        "action",
        Want("untouched", "locales/en.json"),
        Want("changed", "locales/is.json"),
        example=Example(
            commands=(_LOCALE,),
            writes=(("locales/is.json", _IS),),
        ),
    ),
)

# Praise after requests nobody corrected: no correction, no label; none may become a task.
PRAISED = (
    _uncorrected(
        "codex",
        "fjord",
        "რამდენი ფაილია config საქაღალდეში?",
        "find config -type f | wc -l",
        "მადლობა, ზუსტად ეს მინდოდა!",
    ),
    _answered(
        "claude",
        "tarn",
        "Beth yw'r gwahaniaeth rhwng `git merge` a `git rebase`?",
        "Mae `git merge` yn cadw hanes y ddwy gangen ac yn ychwanegu commit uno. Mae `git rebase` "
        "yn ailchwarae dy commits ar ben y gangen arall, felly mae'r hanes yn syth.",
        "Diolch, mae hynny'n glir iawn!",
    ),
)

_CASES = _TEXT_CASES + _ACTION_CASES
CHECK_THIRTEENTH_SESSIONS: tuple[Scenario, ...] = tuple(s for s, _ in _CASES) + PRAISED
CHECK_THIRTEENTH_LABELS = tuple(label for _, label in _CASES)


def main(argv: list[str]) -> int:
    return record_with_files(
        argv, CHECKS_THIRTEENTH, CHECK_THIRTEENTH_SESSIONS, THIRTEENTH_PROJECT_FILES
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
