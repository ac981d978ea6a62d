"""A ninth labelled set of corrections recorded with the real ``claude`` and ``codex``, written and
recorded while the miner change after ba9759c was made, and kept from it: 20 corrections (10 of
what the answer or a file should say, 10 of what the agent did), in English, Danish, Finnish,
Vietnamese, Indonesian, Greek, Hebrew, Ukrainian, Russian and Hindi, new topics and wordings.

Labelled like ``check_conversations.py``: where it lands, the right checks, the user's own
example as a synthetic attempt (a check failing on it contradicts the correction). A command key
is the whole command the user named or the attempt ran, so a check catching any part of it counts.

Measured before the change it measures (``python -m bench.corrections --baseline ba9759c --after
ba9759c --sets checks9 --json``): 15 of 20 attached (5 became tasks), 7 with a rule check, 7 with
an action check, 14 with a failing check, 12 correct (5 of 10 text, 7 of 10 actions), 3
contradicting with 3 checks (2 text, 1 action). Of the three praise messages (one after a
corrected request, two after requests nobody corrected), 2 became tasks of their own.

After the miner work made while this set was kept from it (``python -m bench.corrections
--baseline ba9759c --after 800ae7b --sets checks9 --json``): 15 of 20 attached, 5 became tasks, 7
with a rule check, 8 with an action check, 15 with a failing check, 12 correct (5 of 10 text, 7 of
10 actions), 4 contradicting with 4 checks (2 text, 2 actions). The contradicting checks:
``not_contains 'docs/install.md'`` beside the relative link the user asks for (Vietnamese);
``contains 'терміново'`` from "Прибери емодзі й слово «терміново»" (Ukrainian, after the slash
command ``/digest``); ``never_ran logs/worker.log`` beside the user's own ``: > logs/worker.log``;
and, new after the change, ``ran find .venv build -name '*.py'`` from the Danish leave-out
("Udelad `.venv/` og `build/` ..."), which had no check before. No correction gained or lost a
correct check or its request; ``make -j 1`` gained ``ran make -j 1`` beside its ``never_ran``
checks. Not attached, before and after (each a task of its own): the setting to document in
``docs/configuration.md`` (Finnish, a one-patch codex session), the eighty-character limit
(Indonesian), the three-bullet limit (Greek), the Hindi ``alembic downgrade base`` / ``alembic
upgrade head`` correction, the Finnish ``--depth 1``. Praise: the Vietnamese one after a
corrected request became a task before and not after; the Hindi one after an uncorrected answer
is a task before and after; the Russian one never was.

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.check_conversations_ninth tests/fixtures/conversations_checks_ninth
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

CHECKS_NINTH = Path(__file__).resolve().parents[1] / "fixtures" / "conversations_checks_ninth"

NINTH_PROJECT_FILES: Mapping[str, Mapping[str, str]] = {
    "slash9": {
        ".claude/commands/digest.md": "---\ndescription: Weekly digest\n---\n"
        "Write the weekly status digest for management about: $ARGUMENTS\n",
        ".claude/commands/lint.md": "---\ndescription: Lint\n---\n"
        "Lint the whole project and fix what you can.\n",
    },
    "basalt": {
        "logs/worker.log": "started\n",
        "scripts/e2e.sh": "#!/bin/sh\necho e2e\n",
        "openapi.yaml": "openapi: 3.0.0\n",
        "src/api/types.ts": "export type Order = { id: string };\n",
    },
    "obsidian": {
        "app/main.py": "print('hi')\n",
        ".venv/lib/site.py": "\n",
        "build/lib/app/main.py": "print('hi')\n",
        "dist/app-1.0.tar.gz": "signed\n",
    },
}

_CHANGELOG_BAD = "## 2.4.0\n- Eksporten understøtter nu XLSX."
_CHANGELOG = "## Unreleased\n- Eksporten understøtter nu XLSX."
_SETTING_DOC = (
    "## retry_limit\n\nKuinka monta kertaa epäonnistunut työ yritetään uudelleen (oletus 3).\n"
)
_LINK = "[Hướng dẫn cài đặt](docs/install.md)"
_SIGNUP = "Almost there — check your inbox and open the link we sent to confirm your email."
_COMMIT_BAD = (
    "fix: laporan harian sekarang memakai zona waktu pengguna dan bukan lagi UTC server saat "
    "menghitung batas tanggal"
)
_COMMIT = "fix: laporan harian memakai zona waktu pengguna"
_MINUTES_BAD = (
    "- Κυκλοφορία 3.2 την Πέμπτη\n- Νέος υπεύθυνος QA ο Νίκος\n- Το staging αλλάζει server\n"
    "- Καθυστέρηση στις πληρωμές\n- Επόμενη συνάντηση Τρίτη"
)
_MINUTES = "- Κυκλοφορία 3.2 την Πέμπτη\n- Καθυστέρηση στις πληρωμές\n- Επόμενη συνάντηση Τρίτη"
_MIGRATION_BAD = "CREATE INDEX orders_created_at_idx ON orders (created_at);"
_MIGRATION = (
    "-- migrate:up\nCREATE INDEX orders_created_at_idx ON orders (created_at);\n\n"
    "-- migrate:down\nDROP INDEX orders_created_at_idx;"
)
_DIGEST_BAD = "🚀 Терміново: реліз 4.0 переноситься на вівторок! 🔥 Оплати працюють стабільно ✅"
_DIGEST = "Реліз 4.0 переноситься на вівторок. Оплати працюють стабільно."
_ALT = "Twelve people from the Acme team standing on the office roof at sunset."
_GIT_LOG = "git log --oneline -20 | grep -i fix"
_E2E = "./scripts/e2e.sh --workers 2"
_CLONE = "git clone --depth 1 ../mirror/monorepo.git vendor/monorepo"
_SIGNED_BAD = "Исправить расчёт НДС для счетов в рублях\n\nОкругление теперь по строкам."
_SIGNED = f"{_SIGNED_BAD}\n\nSigned-off-by: Mara Lind <mara@acme.dev>"

_TEXT_CASES = (
    _labelled(
        _said(
            "codex",
            "basalt",
            "Skriv en linje i CHANGELOG om at eksporten nu kan lave XLSX.",
            _CHANGELOG_BAD,
            "Nye punkter skal altid under overskriften `## Unreleased` — versionsoverskriften "
            "laver release-scriptet, aldrig os.",
            _CHANGELOG,
        ),
        "text",
        Want("heading", "Unreleased"),
        example=Example(answer=_CHANGELOG),
    ),
    _labelled(
        _patched(
            "basalt",
            "Lisää workerin asetuksiin `retry_limit`.",
            ("src/worker/settings.py", "RETRY_LIMIT = 3\n", "Lisäsin retry_limit-asetuksen."),
            "Jokainen uusi asetus kirjataan myös tiedostoon `docs/configuration.md`, muuten "
            "ylläpito ei tiedä sen olemassaolosta.",
            ("docs/configuration.md", _SETTING_DOC, "Kirjasin sen docs/configuration.md:hen."),
        ),
        "text",
        Want("file_contains", "retry_limit", "docs/configuration.md"),
        Want("changed", "docs/configuration.md"),
        example=Example(
            writes=(
                ("src/worker/settings.py", "RETRY_LIMIT = 3\n"),
                ("docs/configuration.md", _SETTING_DOC),
            )
        ),
    ),
    _labelled(
        _said(
            "claude",
            "obsidian",
            "Thêm liên kết tới trang hướng dẫn cài đặt vào README.",
            "[Hướng dẫn cài đặt](https://github.com/acme/tram/blob/main/docs/install.md)",
            "Đừng dùng URL đầy đủ, bản mirror nội bộ sẽ bị gãy link. Chỉ dùng đường dẫn tương "
            "đối `docs/install.md` thôi.",
            _LINK,
            _praise("claude", "Tuyệt vời, giờ link chạy ngon rồi! 👍"),
        ),
        "text",
        Want("contains", "docs/install.md"),
        Want("not_contains", "https://github.com/acme/tram"),
        example=Example(answer=_LINK),
    ),
    _labelled(
        _said(
            "claude",
            "basalt",
            "Write the text for the screen people see right after signing up.",
            "You're all set! Welcome aboard.",
            "No “you're all set” — they aren't, the email still has to be confirmed. Tell them "
            "to check their inbox.",
            _SIGNUP,
        ),
        "text",
        Want("not_contains", "you're all set"),
        example=Example(answer=_SIGNUP),
    ),
    _labelled(
        _said(
            "codex",
            "obsidian",
            "Tulis pesan commit untuk perbaikan bug zona waktu di laporan harian.",
            _COMMIT_BAD,
            "Baris pertama pesan commit paling banyak delapan puluh karakter, itu aturan repo ini.",
            _COMMIT,
        ),
        "text",
        Want("max_chars", 80),
        example=Example(answer=_COMMIT),
    ),
    _labelled(
        _said(
            "claude",
            "obsidian",
            "Γράψε μια σύνοψη της σημερινής συνάντησης για το κανάλι της ομάδας.",
            _MINUTES_BAD,
            "Όχι πάνω από τρεις κουκκίδες, κανείς δεν διαβάζει περισσότερες. Κράτα τα σημαντικά.",
            _MINUTES,
        ),
        "text",
        Want("regex", _MINUTES),
        example=Example(answer=_MINUTES),
    ),
    _labelled(
        _said(
            "claude",
            "basalt",
            "כתוב מיגרציית SQL שמוסיפה אינדקס על orders.created_at.",
            _MIGRATION_BAD,
            "השורה הראשונה חייבת להיות `-- migrate:up`, אחרת dbmate פשוט מדלג על הקובץ.",
            _MIGRATION,
        ),
        "text",
        Want("starts_with", "-- migrate:up"),
        example=Example(answer=_MIGRATION),
    ),
    _labelled(
        _slash(
            "slash9",
            "/digest реліз 4.0 і оплати",
            _DIGEST_BAD,
            "Прибери емодзі й слово «терміново»: цей лист читає директор, а не чат команди.",
            _DIGEST,
        ),
        "text",
        Want("not_contains", "Терміново"),
        Want("not_contains", "🚀"),
        example=Example(answer=_DIGEST),
    ),
    _labelled(
        _split_said(
            "codex",
            "obsidian",
            "Write the alt text for the team photo on the About page.",
            "Image of our team smiling in the office.",
            "Hmm, not like that.",
            "Screen readers already say it's an image, so never open with 'Image of' or "
            "'Picture of' — just describe who's in it and where.",
            _ALT,
        ),
        "text",
        Want("not_contains", "Image of"),
        example=Example(answer=_ALT),
    ),
    _labelled(
        _said(
            "codex",
            "basalt",
            "Напиши сообщение коммита для исправления НДС.",
            _SIGNED_BAD,
            "Последней строкой всегда `Signed-off-by: Mara Lind <mara@acme.dev>`, иначе DCO-бот "
            "не пропустит коммит.",
            _SIGNED,
        ),
        "text",
        Want("regex", "Signed-off-by: Mara Lind <mara@acme.dev>"),
        Want("contains", "Signed-off-by: Mara Lind <mara@acme.dev>"),
        example=Example(answer=_SIGNED),
    ),
)

_ACTION_CASES = (
    _labelled(
        _acted(
            "claude",
            "obsidian",
            "Собери проект.",
            ("make -j 8 2>&1 | tail -1", "Собрал с make -j 8."),
            "Только `make -j 1` — при параллельной сборке генератор протоколов падает через раз.",
            ("make -j 1 2>&1 | tail -1", "Собрал с make -j 1."),
        ),
        "action",
        Want("ran", "make -j 1"),
        Want("never_ran", "make -j 8"),
        example=Example(commands=("make -j 1",)),
    ),
    _labelled(
        _acted(
            "codex",
            "basalt",
            "Run the end-to-end tests.",
            ("./scripts/e2e.sh --workers auto 2>&1 | tail -1", "Ran e2e with --workers auto."),
            "Keep it at `--workers 2`: with auto it starts a browser per core and the runner "
            "box starts swapping.",
            (f"{_E2E} 2>&1 | tail -1", "Ran e2e with --workers 2."),
        ),
        "action",
        Want("ran", _E2E),
        Want("never_ran", "./scripts/e2e.sh --workers auto"),
        example=Example(commands=(_E2E,)),
    ),
    _labelled(
        _acted(
            "claude",
            "basalt",
            "डेटाबेस को नए schema पर ले आओ।",
            (
                "alembic downgrade base && alembic upgrade head 2>&1 | tail -1",
                "पहले base तक downgrade किया, फिर head तक upgrade।",
            ),
            "`alembic downgrade base` कभी मत चलाना, उससे सारा डेटा मिट जाता है। सिर्फ़ "
            "`alembic upgrade head` चलाओ।",
            ("alembic upgrade head 2>&1 | tail -1", "सिर्फ़ upgrade head चलाया।"),
        ),
        "action",
        Want("never_ran", "alembic downgrade base"),
        Want("ran", "alembic upgrade head"),
        example=Example(commands=("alembic upgrade head",)),
    ),
    _labelled(
        _acted(
            "codex",
            "basalt",
            "The worker log is huge, get rid of it.",
            ("rm logs/worker.log 2>&1 | tail -1", "Deleted logs/worker.log."),
            "Never delete `logs/worker.log`, supervisord keeps it open and stops logging "
            "altogether. Empty it in place with `: > logs/worker.log`.",
            (": > logs/worker.log 2>&1 | tail -1", "Emptied logs/worker.log in place."),
        ),
        "action",
        Want("never_ran", "rm logs/worker.log"),
        Want("ran", ": > logs/worker.log"),
        # the user's own command empties the very file they say never to delete
        example=Example(commands=(": > logs/worker.log",), writes=(("logs/worker.log", ""),)),
    ),
    _labelled(
        _acted(
            "claude",
            "obsidian",
            "Find the recent bug-fix commits.",
            ("git log --stat 2>&1 | head -400", "Here is the history with --stat."),
            f"Use `{_GIT_LOG}` — the full log with --stat is tens of thousands of lines.",
            (f"{_GIT_LOG} 2>&1 | head -20", "Recent fixes listed."),
        ),
        "action",
        Want("ran", _GIT_LOG),
        Want("never_ran", "git log --stat"),
        example=Example(commands=(_GIT_LOG,)),
    ),
    _labelled(
        _patched(
            "basalt",
            "Add a `status` field to the Order type.",
            (
                "src/api/types.ts",
                "export type Order = { id: string; status: string };\n",
                "Added status to Order in src/api/types.ts.",
            ),
            "Don't hand-edit `src/api/types.ts`: it's regenerated by `npm run gen:api` in CI "
            "and your edit will vanish. Add the field to `openapi.yaml` instead.",
            (
                "openapi.yaml",
                "openapi: 3.0.0\n# Order.status: string\n",
                "Added status to Order in openapi.yaml.",
            ),
        ),
        "action",
        Want("untouched", "src/api/types.ts"),
        Want("changed", "openapi.yaml"),
        example=Example(writes=(("openapi.yaml", "openapi: 3.0.0\n# Order.status: string\n"),)),
    ),
    _labelled(
        _acted(
            "codex",
            "obsidian",
            "Vis alle Python-filer i projektet.",
            (
                "find . -name '*.py' 2>&1 | head -30",
                "./app/main.py\n./.venv/lib/site.py\n./build/lib/app/main.py",
            ),
            "Udelad `.venv/` og `build/` — jeg vil kun se det, der ligger under `app/`.",
            ("find app -name '*.py' 2>&1 | head -30", "app/main.py"),
        ),
        "action",
        Want("ran", "find app -name '*.py'"),
        Want("never_ran", "find . -name '*.py'"),
        Want("not_contains", ".venv/"),
        example=Example(answer="app/main.py", commands=("find app -name '*.py'",)),
    ),
    _labelled(
        _slash_acted(
            "slash9",
            "/lint",
            ("ruff check . --fix 2>&1 | tail -1", "Ran ruff with --fix; 3 fixes applied."),
            "Не з `--fix`: автовиправлення ламають наші міграції. Тільки `ruff check .`, "
            "виправлю сам.",
            ("ruff check . 2>&1 | tail -1", "Ran ruff check . without fixing."),
        ),
        "action",
        Want("never_ran", "ruff check . --fix"),
        Want("ran", "ruff check ."),
        example=Example(commands=("ruff check .",)),
    ),
    _labelled(
        _split_acted(
            "codex",
            "obsidian",
            "Clean up the build artifacts.",
            ("rm -rf build dist 2>&1 | tail -1", "Removed build/ and dist/."),
            "Wait, no.",
            "`dist/` has the signed installers from the release machine, leave it alone. Only "
            "`build/` goes.",
            ("rm -rf build 2>&1 | tail -1", "Removed build/ only."),
        ),
        "action",
        Want("untouched", "dist"),
        Want("never_ran", "rm -rf build dist"),
        example=Example(commands=("rm -rf build",), deletes=("build",)),
    ),
    _labelled(
        _acted(
            "claude",
            "basalt",
            "Kloonaa monorepo kansioon vendor/monorepo.",
            (
                "git clone ../mirror/monorepo.git vendor/monorepo 2>&1 | tail -1",
                "Kloonasin koko historian.",
            ),
            "Aina `--depth 1`, koko historia on kuusi gigaa eikä kukaan tarvitse sitä.",
            (f"{_CLONE} 2>&1 | tail -1", "Kloonasin vain viimeisimmän commitin."),
        ),
        "action",
        Want("ran", _CLONE),
        example=Example(commands=(_CLONE,)),
    ),
)

# Praise after requests nobody corrected: no correction, no label; neither may become a task.
PRAISED = (
    _uncorrected(
        "codex",
        "basalt",
        "Запусти линтер по всему проекту.",
        "ruff check . 2>&1 | tail -1",
        "Отлично, спасибо!! 🙌",
    ),
    _answered(
        "claude",
        "obsidian",
        "`git rebase` और `git merge` में क्या फ़र्क़ है?",
        "`merge` दोनों शाखाओं को एक merge commit से जोड़ता है; `rebase` आपके commits को "
        "दूसरी शाखा के ऊपर दोबारा लिखता है, जिससे इतिहास सीधा रहता है।",
        "बहुत बढ़िया, एकदम साफ़ समझ आ गया! 🎉",
    ),
)

_CASES = _TEXT_CASES + _ACTION_CASES
CHECK_NINTH_SESSIONS: tuple[Scenario, ...] = tuple(s for s, _ in _CASES) + PRAISED
CHECK_NINTH_LABELS = tuple(label for _, label in _CASES)


def main(argv: list[str]) -> int:
    return record_with_files(argv, CHECKS_NINTH, CHECK_NINTH_SESSIONS, NINTH_PROJECT_FILES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
