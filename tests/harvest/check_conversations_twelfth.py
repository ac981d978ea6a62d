"""A twelfth labelled set of corrections recorded with the real ``claude`` and ``codex``, written
and recorded while the miner change after c053156 was made, and kept from it: 22 corrections (11 of
what the answer or a file should say, 11 of what the agent did; 11 recorded with each binary),
in English, Slovak, Lithuanian, Latvian, Estonian, Bulgarian, Persian, Swahili and Tagalog (the
last eight in no earlier set), new topics and wordings.

Labelled like ``check_conversations.py``: where it lands, the right checks, the user's own
example as a synthetic attempt (a check failing on it contradicts the correction). A command key
is the whole command the user named or the attempt ran, so a check catching any part of it counts.
The shapes: a right command that starts with the whole wrong one (``pip install -e .`` and ``pip
install -e '.[dev]'``, ``git pull`` and ``git pull --ff-only``, ``pytest -q`` and ``pytest -q -m
'not slow'``, ``journalctl -u api --no-pager`` and the same with ``--since '1 hour ago'``) or shares
its program (``terraform apply -auto-approve`` beside ``terraform plan -out=tfplan``); "never
delete" one file of a command that deleted two (``data/seed.sql``); never open anything in
``secrets/``, the right file named; a hand edit of a file the user's own command rewrites
(``hatch version 1.8.0`` writes ``src/lagoon/__about__.py``, so ``untouched`` there fails on the
user's way); the wrong file written, the right one named (``config/staging.yaml``, never
``config/production.yaml``); every source file's first line (an SPDX header, in Estonian); a
pinned runner in a CI workflow (``ubuntu-24.04``, never ``ubuntu-latest``); a product name in
Latin letters inside Persian text; an opening words rule split over two messages (Swahili); a
ticket in brackets first after a slash command; leave-out and only-in after a listing (a text, in
Latvian, and an action, in Tagalog); limits written as numbers (200 characters in Slovak, 90 in
Bulgarian); dates, times and versions in corrections that are not limits (a shutdown date
2027-03-31, Python 3.11 instead of 3.8, ``22:00–02:00 PHT``, ``ubuntu-24.04``, "1 hour ago", "ten
minutes", version 1.8.0); an action after a slash command (``/cleanup``, keep ``.tox/``); an
action correction split over two messages (Slovak); praise after two corrected requests and
after three requests nobody corrected (Estonian, Tagalog, Bulgarian).

Measured untouched at 2d38783 (``python -m bench.corrections --baseline c053156 --after HEAD
--sets checks12 --json``), before / after: 20 / 21 of 22 attached (2 / 1 became tasks), 8 / 8
with a rule check, 10 / 10 with an action check, 18 / 18 with a failing check, 14 / 14 correct,
2 / 2 contradicting with 2 / 2 checks, both about text: ``max_chars 31`` from "v1 shuts down on
2027-03-31" (the day of a date read as a limit), and a bare-link ``regex`` from "titles that open
with the ticket in square brackets, like `[PAY-311]`". Attached after only: the Lithuanian "Python
3.11 or newer" (with no check). Neither: "Pin the runner to `ubuntu-24.04`" (a task of its own);
the Latvian and Tagalog leave-outs after a listing attach with no check.

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.check_conversations_twelfth tests/fixtures/conversations_checks_twelfth
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

CHECKS_TWELFTH = Path(__file__).resolve().parents[1] / "fixtures" / "conversations_checks_twelfth"

_STAGING = "hosts:\n  - staging-1.acme.dev\n"
TWELFTH_PROJECT_FILES: Mapping[str, Mapping[str, str]] = {
    "slash12": {
        ".claude/commands/prtitle.md": "---\ndescription: Pull request title\n---\n"
        "Write the pull request title for: $ARGUMENTS\n",
        ".claude/commands/cleanup.md": "---\ndescription: Clean the repository\n---\n"
        "Remove the caches and build outputs from this repository.\n",
        "build/lib/app.py": "print('built')\n",
        "dist/slash12-0.1.tar.gz": "not really a tarball\n",
        ".pytest_cache/README.md": "# pytest cache directory #\n",
        ".tox/py312/pyvenv.cfg": "home = /usr/bin\n",
    },
    "heron": {
        "src/app.py": "import json\n\n# TODO: retry on 502\ndef handle(event):\n"
        "    return json.dumps(event)\n",
        "node_modules/left-pad/index.js": "// TODO: remove in v2\nmodule.exports = () => {};\n",
        "node_modules/left-pad/README.md": "# left-pad\n",
        "vendor/qs/parse.js": "// TODO: handle arrays\n",
        "vendor/qs/CHANGELOG.md": "# Changelog\n",
        "docs/intro.md": "# Heron\n",
        "data/app.sqlite3": "not really a database\n",
        "data/seed.sql": "INSERT INTO users (name) VALUES ('ada');\n",
        "secrets/stripe.key": "sk_live_not_a_real_key\n",
        "tests/fixtures/stripe_test.json": '{"key": "sk_test_expired", "expires": "2026-10-01"}\n',
        "config/production.yaml": "hosts:\n  - api-1.acme.dev\n  - api-2.acme.dev\n",
        "config/staging.yaml": _STAGING,
    },
    "lagoon": {
        "pyproject.toml": '[project]\nname = "lagoon"\ndynamic = ["version"]\n\n'
        '[tool.hatch.version]\npath = "src/lagoon/__about__.py"\n',
        "src/lagoon/__init__.py": "",
        "src/lagoon/__about__.py": '__version__ = "1.7.2"\n',
        "infra/main.tf": 'resource "null_resource" "noop" {}\n',
    },
}

_NOTICE_BAD = "The v1 API will be retired soon. Please move to v2."
_NOTICE = "The v1 API shuts down on 2027-03-31. Please move to v2 before then."
_SUMMARY_BAD = (
    "Heron je knižnica na spracovanie webhookov, ktorá overuje podpisy, ukladá udalosti do "
    "fronty, opakuje neúspešné doručenia s exponenciálnym odstupom, posiela metriky do "
    "Promethea a ponúka jednoduché rozhranie pre Django, Flask aj FastAPI, takže ju zapojíte "
    "za pár minút."
)
_SUMMARY = (
    "Heron overuje podpisy webhookov, ukladá udalosti do fronty a opakuje neúspešné doručenia."
)
_REQS_BAD = "## Reikalavimai\n\n- Python 3.8 arba naujesnis\n- PostgreSQL 13 arba naujesnis"
_REQS = "## Reikalavimai\n\n- Python 3.11 arba naujesnis\n- PostgreSQL 13 arba naujesnis"
_PUSH_BAD = (
    "Здравейте! Радваме се да ви съобщим, че поръчката ви № 48213 беше предадена на куриер днес "
    "и ще пристигне до 2–3 работни дни. Можете да я проследите от „Моите поръчки“ в приложението."
)
_PUSH = "Поръчка № 48213 е изпратена. Очаквайте я до 2–3 работни дни."
_RETRY_CODE = (
    "def retry(call, times=3):\n"
    "    for _ in range(times - 1):\n"
    "        try:\n"
    "            return call()\n"
    "        except OSError:\n"
    "            pass\n"
    "    return call()\n"
)
_SPDX = "# SPDX-License-Identifier: MIT"
_RETRY = f"{_SPDX}\n\n{_RETRY_CODE}"
_TITLE_BAD = "Retry failed webhooks with backoff (PAY-311)"
_TITLE = "[PAY-311] Retry failed webhooks with backoff"
_TAGLINE_BAD = "کویر ساده‌ترین راه برای مدیریت فاکتورهای شرکت شماست."
_TAGLINE = "Kavir ساده‌ترین راه برای مدیریت فاکتورهای شرکت شماست."
_SMS_BAD = "Habari Juma, bili yako ya Novemba ya TSh 45,000 inapaswa kulipwa kabla ya tarehe 30/11."
_SMS = "Mpendwa mteja, bili yako ya Novemba ya TSh 45,000 inapaswa kulipwa kabla ya tarehe 30/11."
_MAINT_BAD = "Magkakaroon ng maintenance bukas mula 10 PM hanggang 2 AM. Pasensya na sa abala."
_MAINT = "Magkakaroon ng maintenance bukas mula 22:00–02:00 PHT. Pasensya na sa abala."
_TODO_GREP = "grep -rn TODO src/"
_TODO = "src/app.py:3:# TODO: retry on 502"
_TODOS_ALL = (
    "./node_modules/left-pad/index.js:1:// TODO: remove in v2\n"
    "./vendor/qs/parse.js:1:// TODO: handle arrays\n"
    f"./{_TODO}"
)
_WORKFLOW_BAD = (
    "name: tests\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
    "      - uses: actions/checkout@v4\n      - run: pip install -e '.[dev]' && pytest -q\n"
)
_WORKFLOW = _WORKFLOW_BAD.replace("ubuntu-latest", "ubuntu-24.04")

_DEV = "pip install -e '.[dev]'"
_FF = "git pull --ff-only"
_SINCE = "journalctl -u api --no-pager --since '1 hour ago'"
_FAST = "pytest -q -m 'not slow'"
_PLAN = "terraform plan -out=tfplan"
_HATCH = "hatch version 1.8.0"
_MD = "find docs -type f -name '*.md'"
_STAGE = "echo '  - staging-2.acme.dev' >> config/staging.yaml"
_STRIPE = "tests/fixtures/stripe_test.json"

_TEXT_CASES = (
    _labelled(
        _said(
            "codex",
            "heron",
            "Write the deprecation notice for the v1 API.",
            _NOTICE_BAD,
            'Don\'t say "soon", people need the date: v1 shuts down on 2027-03-31.',
            _NOTICE,
            _praise("codex", "Great, that's the one."),
        ),
        "text",
        Want("contains", "2027-03-31"),
        Want("not_contains", "soon"),
        example=Example(answer=_NOTICE),
    ),
    _labelled(
        _said(
            "claude",
            "heron",
            "Napíš jednovetový popis balíka pre PyPI.",
            _SUMMARY_BAD,
            "Popis sa zobrazuje vo výsledkoch vyhľadávania a tam sa zmestí najviac 200 znakov, "
            "skráť to.",
            _SUMMARY,
        ),
        "text",
        Want("max_chars", 200),
        example=Example(answer=_SUMMARY),
    ),
    _labelled(
        _said(
            "codex",
            "lagoon",
            "Parašyk README skyrių „Reikalavimai“.",
            _REQS_BAD,
            "Python 3.8 nebepalaikome nuo 2.0 versijos – rašyk Python 3.11 arba naujesnis.",
            _REQS,
        ),
        "text",
        Want("contains", "Python 3.11"),
        Want("not_contains", "Python 3.8"),
        example=Example(answer=_REQS),
    ),
    _labelled(
        _said(
            "claude",
            "heron",
            "Напиши текста на push известието, че поръчката е изпратена.",
            _PUSH_BAD,
            "Известията на телефона се отрязват след 90 знака, дръж текста до 90.",
            _PUSH,
        ),
        "text",
        Want("max_chars", 90),
        example=Example(answer=_PUSH),
    ),
    _labelled(
        _patched(
            "lagoon",
            "Lisa uus moodul `src/retry.py`, mis kordab ebaõnnestunud päringut.",
            ("src/retry.py", _RETRY_CODE, "Lisasin src/retry.py."),
            f"Iga lähtefaili esimene rida peab olema `{_SPDX}`, muidu kukub litsentsikontroll "
            "CI-s läbi.",
            ("src/retry.py", _RETRY, "Lisasin litsentsirea faili algusesse."),
        ),
        "text",
        Want("file_contains", "SPDX-License-Identifier: MIT", "src/retry.py"),
        example=Example(writes=(("src/retry.py", _RETRY),)),
    ),
    _labelled(
        _slash(
            "slash12",
            "/prtitle PAY-311 retry failed webhooks with backoff",
            _TITLE_BAD,
            "The merge bot only links titles that open with the ticket in square brackets, like "
            "`[PAY-311]`.",
            _TITLE,
        ),
        "text",
        Want("starts_with", "[PAY-311]"),
        Want("contains", "[PAY-311]"),
        example=Example(answer=_TITLE),
    ),
    _labelled(
        _said(
            "codex",
            "heron",
            "یک جمله برای معرفی محصولمان در صفحهٔ اول سایت بنویس.",
            _TAGLINE_BAD,
            "نام محصول همیشه با حروف لاتین نوشته می‌شود، یعنی `Kavir`؛ هیچ‌وقت «کویر» ننویس.",
            _TAGLINE,
        ),
        "text",
        Want("contains", "Kavir"),
        Want("not_contains", "کویر"),
        example=Example(answer=_TAGLINE),
    ),
    _labelled(
        _split_said(
            "claude",
            "heron",
            "Andika ujumbe wa SMS wa kumkumbusha mteja kulipa bili yake.",
            _SMS_BAD,
            "Hapana, si hivyo.",
            "Ujumbe wetu kwa wateja huanza kila mara na `Mpendwa mteja,` — hatutumii majina yao.",
            _SMS,
        ),
        "text",
        Want("starts_with", "Mpendwa mteja"),
        Want("not_contains", "Juma"),
        example=Example(answer=_SMS),
    ),
    _labelled(
        _said(
            "codex",
            "lagoon",
            "Sumulat ng abiso sa mga user tungkol sa maintenance bukas ng gabi.",
            _MAINT_BAD,
            "Sa mga abiso, laging 24-oras na format at may timezone ang oras, halimbawa "
            "`22:00–02:00 PHT`.",
            _MAINT,
        ),
        "text",
        Want("contains", "22:00–02:00 PHT"),
        Want("not_contains", "10 PM"),
        example=Example(answer=_MAINT),
    ),
    _labelled(
        _acted(
            "claude",
            "heron",
            "Kuros failos vēl ir TODO komentāri?",
            (
                "grep -rn TODO . 2>&1 | head -20",
                _TODOS_ALL,
            ),
            "Skaties tikai mūsu kodu `src/` mapē, `node_modules/` un `vendor/` mani neinteresē.",
            (f"{_TODO_GREP} 2>&1 | head -20", _TODO),
        ),
        "text",
        Want("not_contains", "node_modules/"),
        Want("ran", _TODO_GREP),
        example=Example(answer=_TODO, commands=(_TODO_GREP,)),
    ),
    _labelled(
        _patched(
            "lagoon",
            "Add a CI workflow that runs the tests on every push.",
            (".github/workflows/tests.yml", _WORKFLOW_BAD, "Added .github/workflows/tests.yml."),
            "Pin the runner to `ubuntu-24.04`. `ubuntu-latest` moved under us twice this year "
            "and broke the build.",
            (".github/workflows/tests.yml", _WORKFLOW, "The workflow runs on ubuntu-24.04 now."),
        ),
        "text",
        Want("file_contains", "ubuntu-24.04", ".github/workflows/tests.yml"),
        Want("file_not_contains", "ubuntu-latest", ".github/workflows/tests.yml"),
        example=Example(writes=((".github/workflows/tests.yml", _WORKFLOW),)),
    ),
)

_ACTION_CASES = (
    _labelled(
        _acted(
            "claude",
            "heron",
            "Set up my dev environment.",
            ("pip install -e . 2>&1 | tail -1", "Installed the package in editable mode."),
            f"That skips the test tools. It's `{_DEV}` here, with the extras.",
            (f"{_DEV} 2>&1 | tail -1", "Installed with the dev extras."),
        ),
        "action",
        Want("ran", _DEV),
        example=Example(commands=(_DEV,)),
    ),
    _labelled(
        _acted(
            "codex",
            "lagoon",
            "Atnaujink šią šaką naujausiais pakeitimais iš serverio.",
            ("git pull 2>&1 | tail -1", "Atnaujinta su git pull."),
            f"Tik `{_FF}` – jei greitai persukti nepavyksta, sustok ir pasakyk man, jokių merge "
            "commit'ų.",
            (f"{_FF} 2>&1 | tail -1", "Atnaujinta su git pull --ff-only."),
        ),
        "action",
        Want("ran", _FF),
        example=Example(commands=(_FF,)),
    ),
    _labelled(
        _acted(
            "claude",
            "heron",
            "Tühjenda kohalik andmebaas, tahan puhtalt alustada.",
            (
                "rm -f data/app.sqlite3 data/seed.sql",
                "Kustutasin data/app.sqlite3 ja data/seed.sql.",
            ),
            "Faili `data/seed.sql` ära kunagi kustuta, see on meie testandmete ainus koopia. "
            "Andmebaasifaili võid rahulikult kustutada.",
            ("rm -f data/app.sqlite3", "Kustutasin ainult data/app.sqlite3."),
        ),
        "action",
        Want("untouched", "data/seed.sql"),
        Want("never_ran", "rm -f data/app.sqlite3 data/seed.sql"),
        example=Example(commands=("rm -f data/app.sqlite3",), deletes=("data/app.sqlite3",)),
    ),
    _labelled(
        _acted(
            "codex",
            "heron",
            "Провери защо тестът за плащанията пада.",
            (
                "cat secrets/stripe.key 2>&1 | head -3",
                "Ключът в secrets/stripe.key изглежда валиден.",
            ),
            f"Никога не отваряй нищо в `secrets/`, там са истинските ключове. Тестовите данни са в "
            f"`{_STRIPE}`.",
            (f"cat {_STRIPE} 2>&1 | head -5", "Тестовият ключ е изтекъл, затова тестът пада."),
        ),
        "action",
        Want("never_read", "secrets/stripe.key"),
        Want("never_ran", "cat secrets/stripe.key"),
        example=Example(commands=(f"cat {_STRIPE}",), reads=(_STRIPE,)),
    ),
    _labelled(
        _slash_acted(
            "slash12",
            "/cleanup",
            (
                "rm -rf build dist .pytest_cache .tox",
                "Removed build/, dist/, .pytest_cache/ and .tox/.",
            ),
            "Keep `.tox/`, rebuilding those environments takes ten minutes. The other three can go.",
            (
                "rm -rf build dist .pytest_cache",
                "Removed build/, dist/ and .pytest_cache/; kept .tox/.",
            ),
        ),
        "action",
        Want("untouched", ".tox"),
        Want("never_ran", "rm -rf build dist .pytest_cache .tox"),
        example=Example(
            commands=("rm -rf build dist .pytest_cache",),
            deletes=("build", "dist", ".pytest_cache"),
        ),
    ),
    _labelled(
        _acted(
            "codex",
            "heron",
            "لاگ‌های سرویس api را نشانم بده.",
            ("journalctl -u api --no-pager 2>&1 | tail -20", "این هم لاگ کامل سرویس api."),
            f"کل لاگ را نمی‌خواهم؛ فقط یک ساعت اخیر: `{_SINCE}`.",
            (f"{_SINCE} 2>&1 | tail -20", "در یک ساعت اخیر دو خطای timeout ثبت شده است."),
        ),
        "action",
        Want("ran", _SINCE),
        example=Example(commands=(_SINCE,)),
    ),
    _labelled(
        _acted(
            "claude",
            "heron",
            "Ilista mo ang lahat ng Markdown file sa repo.",
            (
                "find . -type f -name '*.md' 2>&1 | head -20",
                "./docs/intro.md\n./node_modules/left-pad/README.md\n./vendor/qs/CHANGELOG.md",
            ),
            "Yung nasa `docs/` lang ang kailangan ko; huwag mo nang isama ang `node_modules/` at "
            "`vendor/`, hindi namin code iyon.",
            (f"{_MD} 2>&1 | head -20", "docs/intro.md"),
        ),
        "action",
        Want("ran", _MD),
        Want("never_ran", "find . -type f -name '*.md'"),
        Want("not_contains", "node_modules/"),
        example=Example(answer="docs/intro.md", commands=(_MD,)),
    ),
    _labelled(
        _acted(
            "codex",
            "lagoon",
            "Endesha majaribio ya mradi.",
            ("pytest -q 2>&1 | tail -1", "Majaribio yote yamepita."),
            f"Usiendeshe yale ya polepole, yanachukua karibu saa nzima: `{_FAST}`.",
            (f"{_FAST} 2>&1 | tail -1", "Majaribio ya haraka yamepita."),
        ),
        "action",
        Want("ran", _FAST),
        example=Example(commands=(_FAST,)),
    ),
    _labelled(
        _split_acted(
            "claude",
            "lagoon",
            "Aplikuj zmeny v infraštruktúre.",
            ("terraform apply -auto-approve 2>&1 | tail -1", "Zmeny sú aplikované."),
            "Stoj, takto nie!",
            f"Nikdy nespúšťaj `-auto-approve`. Najprv `{_PLAN}`, plán si prezriem sám.",
            (f"{_PLAN} 2>&1 | tail -1", "Plán je uložený v súbore tfplan."),
        ),
        "action",
        Want("never_ran", "terraform apply -auto-approve"),
        Want("ran", _PLAN),
        example=Example(commands=(_PLAN,)),
    ),
    _labelled(
        _acted(
            "codex",
            "lagoon",
            "Paaugstini pakotnes versiju uz 1.8.0.",
            (
                "sed -i 's/1.7.2/1.8.0/' src/lagoon/__about__.py",
                "Nomainīju versiju failā src/lagoon/__about__.py.",
            ),
            f"Versiju ar roku nelabo. Palaid `{_HATCH}`, tas pats zina, kur versija glabājas.",
            (f"{_HATCH} 2>&1 | tail -1", "Versija 1.8.0 iestatīta ar hatch."),
        ),
        "action",
        Want("ran", _HATCH),
        Want("never_ran", "sed -i 's/1.7.2/1.8.0/' src/lagoon/__about__.py"),
        # the user's own command rewrites the very file the hand edit touched
        example=Example(
            commands=(_HATCH,), writes=(("src/lagoon/__about__.py", '__version__ = "1.8.0"\n'),)
        ),
    ),
    _labelled(
        _acted(
            "claude",
            "heron",
            "Add the new staging host staging-2.acme.dev to the config.",
            (
                "echo '  - staging-2.acme.dev' >> config/production.yaml",
                "Added it to config/production.yaml.",
            ),
            "Wrong file. Staging hosts go in `config/staging.yaml`, and `config/production.yaml` "
            "is never edited without a change ticket.",
            (_STAGE, "Added it to config/staging.yaml."),
            _praise("claude", "Perfect, thanks."),
        ),
        "action",
        Want("untouched", "config/production.yaml"),
        Want("changed", "config/staging.yaml"),
        example=Example(
            commands=(_STAGE,),
            writes=(("config/staging.yaml", f"{_STAGING}  - staging-2.acme.dev\n"),),
        ),
    ),
)

# Praise after requests nobody corrected: no correction, no label; none may become a task.
PRAISED = (
    _uncorrected(
        "codex",
        "lagoon",
        "Kui palju ruumi võtab src kaust?",
        "du -sh src 2>&1 | tail -1",
        "Aitäh, täpselt seda ma tahtsingi!",
    ),
    _answered(
        "claude",
        "heron",
        "Ano ang pagkakaiba ng `COPY` at `ADD` sa Dockerfile?",
        "Kinokopya lang ng `COPY` ang mga file mula sa build context. Kaya rin ng `ADD` na "
        "mag-extract ng tar archive at mag-download mula sa URL, kaya `COPY` ang mas ligtas "
        "gamitin kung kopya lang ang kailangan.",
        "Salamat, malinaw na malinaw!",
    ),
    _uncorrected(
        "claude",
        "lagoon",
        "Колко Python файла има в src/?",
        "find src -name '*.py' | wc -l",
        "Супер, благодаря!",
    ),
)

_CASES = _TEXT_CASES + _ACTION_CASES
CHECK_TWELFTH_SESSIONS: tuple[Scenario, ...] = tuple(s for s, _ in _CASES) + PRAISED
CHECK_TWELFTH_LABELS = tuple(label for _, label in _CASES)


def main(argv: list[str]) -> int:
    return record_with_files(argv, CHECKS_TWELFTH, CHECK_TWELFTH_SESSIONS, TWELFTH_PROJECT_FILES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
