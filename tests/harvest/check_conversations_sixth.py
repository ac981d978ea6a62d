"""A sixth labelled set of corrections recorded with the real ``claude`` and ``codex``, written and
recorded before the miner change of e1658f0 (checks that agree with the user's own example, text
corrections in plain words, slash-command and listing corrections) and kept untouched while it
was made: 31 corrections (16 of what the answer or a file should say, 15 of what the agent did),
in English, German, French, Spanish, Portuguese, Italian, Japanese and Chinese, new topics and
wordings: a rolling heading entries go under, an option that must be described in
``docs/cli-reference.md``, a relative path instead of a full https address, limits in words and
in characters, a ticket reference format, a required first line and last line, no emoji, a
vendor's name in its own casing (where a check blind to case contradicts the user), banned words,
words and names to leave out, a code block; the command to use instead where the right one shares
its words with the wrong one (``npm test`` / ``npm run test:unit``, ``git pull`` / ``git pull
--rebase``, ``cargo test`` / ``cargo nextest run``, ``twine upload`` / ``twine upload --repository
testpypi``, ``docker image prune -a`` / ``docker image prune``, ``npm install`` / ``npm install
--package-lock-only``), "never inside", "only in", "nothing in", a bare folder, a listing, a
slash-command request corrected in words and one done with a command, corrections split over two
messages, and praise that is not a correction (after a corrected request and after two requests
nobody corrected, one of them quoting the command it praises).

Labelled like ``check_conversations.py``: where it lands, the right checks, the user's own
example as a synthetic attempt (a check failing on it contradicts the correction).

Measured before the change it measures (``python -m bench.corrections --baseline e1658f0 --after
e1658f0 --json``): 21 of 31 attached (10 became tasks: 7 of 16 about text, 3 of 15 about
actions), 3 with a rule check, 10 with an action check, 11 with a failing check, 11 correct (1
of 16 text, 10 of 15 actions), 2 contradicting (``starts_with 'Oops'`` from "... none of them
starts with 'Oops'."; ``untouched 'package-lock.json'`` beside the user's own ``npm install
--package-lock-only``). The praise "Obrigado, assim já abre no preview." became a task of its
own there (it follows the relative-link correction, itself a task).

After the miner work made while this set stayed untouched (``python -m bench.corrections
--baseline e1658f0 --after a6ea199 --json``): 28 of 31 attached, 3 became tasks (the word limit
in Italian, the push length in Portuguese, "only in `tmp/logs/`" in Japanese), 12 with a rule
check, 13 with an action check, 23 with a failing check, 20 correct (8 of 16 text, 12 of 15
actions), 3 contradicting with 5 checks (``starts_with 'Oops'`` and ``contains 'Oops'``;
``never_ran ruff`` and ``ran make codegen`` beside the user's own ``ruff check --fix app/``;
``untouched 'package-lock.json'``). The praise "Obrigado, assim já abre no preview." is still a
task of its own, though the correction before it now attaches.

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.check_conversations_sixth tests/fixtures/conversations_checks_sixth
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from skillopt_sleep.testing.replies import Text

from .check_conversations import Example, Label, Want, _patched, _slash, record_with_files
from .check_conversations_fifth import _slash_acted, _split_said
from .check_conversations_third import _labelled, _split_acted
from .conversations import Scenario, Step
from .fresh_conversations import _acted, _praise, _run, _said

CHECKS_SIXTH = Path(__file__).resolve().parents[1] / "fixtures" / "conversations_checks_sixth"

SIXTH_PROJECT_FILES: Mapping[str, Mapping[str, str]] = {
    "slash6": {
        ".claude/commands/prbody.md": "---\ndescription: Pull-request description\n---\n"
        "Write the pull-request description for: $ARGUMENTS\n",
        ".claude/commands/publish.md": "---\ndescription: Publish\n---\n"
        "Build the package and publish it to the registry.\n",
        "dist/acme-1.0.tar.gz": "tarball\n",
    },
    "basanite": {
        "web/app.js": "const a = 1\n",
        "legacy/old.js": "var  b=2\n",
        "tmp/logs/app.log": "started\n",
        "audit/2026-11.log": "login alice\n",
    },
    "obsidian": {
        "docs/guide.md": "# Guide\n",
        "node_modules/left-pad/README.md": "# left-pad\n",
        "vendor/lib/README.md": "# lib\n",
        "app/main.py": "import os\nimport sys\n",
        "generated/api.py": "import json\n",
    },
    "pyrite": {
        "build/lib/util.py": "from .old import old_helper\n",
        "src/util.py": "from .old import old_helper\n",
        ".cache/x": "x\n",
        ".mypy_cache/y": "y\n",
        ".tox/py312/z": "z\n",
    },
    "marl": {"package-lock.json": "{}\n"},
    "loam": {"logs/nightly.log": "02:00 start\n02:07 ERROR timeout talking to db\n"},
}

_BLURB_LONG = (
    "Ricettario è l'app che ti aiuta a organizzare le tue ricette preferite, a pianificare i "
    "pasti della settimana, a creare automaticamente la lista della spesa e a condividere i "
    "tuoi piatti con amici e familiari, tutto in un'unica applicazione semplice, veloce e "
    "disponibile anche senza connessione a internet."
)
_BLURB = "Ricettario organizza le tue ricette, pianifica i pasti e crea la lista della spesa."
_PUSH_LONG = (
    "A versão 5 já está disponível com modo offline, sincronização muito mais rápida, novos "
    "temas e dezenas de correções pedidas por vocês!"
)
_PUSH = "A versão 5 chegou: modo offline e sincronização mais rápida."
_MIGRATION = (
    "-- migrate:up\nCREATE INDEX idx_orders_created ON orders (created_at);\n\n"
    "-- migrate:down\nDROP INDEX idx_orders_created;"
)
_SPRINT_BAD = (
    "- Fixed the CSV export (Priya)\n- Upgraded staging-db-2 to Postgres 16\n"
    "- New filters on the dashboard (Tom)"
)
_SPRINT = "- Fixed the CSV export\n- New filters on the dashboard"


def _uncorrected(agent: str, project: str, request: str, command: str, praise: str) -> Scenario:
    """A request done well with one command, then praised: no correction to land anywhere."""
    steps = (Step(request, _run(agent, command, "Done."), "new"), _praise(agent, praise))
    return Scenario(request[:28], agent, project, steps)  # type: ignore[arg-type]


def _answered(agent: str, project: str, request: str, answer: str, praise: str) -> Scenario:
    """A request answered in words, then praised: no correction to land anywhere."""
    steps = (Step(request, (Text(answer),), "new"), _praise(agent, praise))
    return Scenario(request[:28], agent, project, steps)  # type: ignore[arg-type]


_TEXT_CASES = (
    _labelled(
        _said(
            "codex",
            "mica",
            "Add a line to HISTORY.md about the new export button.",
            "## 2.8.0 (2026-11-27)\n- New export button on the reports page",
            "HISTORY.md keeps a rolling `## In progress` section at the top and the maintainer "
            "renames it when she tags, so the line goes in there.",
            "## In progress\n- New export button on the reports page",
        ),
        "text",
        Want("heading", "In progress"),
        Want("not_contains", "## 2.8.0"),
        example=Example(answer="## In progress\n- New export button on the reports page"),
    ),
    _labelled(
        _patched(
            "mica",
            "Add a `--since` option to the export command.",
            ("src/export.py", "def export(since=None):\n    pass\n", "Added --since."),
            "Our users only learn options from `docs/cli-reference.md`, so `--since` needs its "
            "entry there too.",
            (
                "docs/cli-reference.md",
                "--since DATE: only export rows newer than DATE\n",
                "Described it in docs/cli-reference.md.",
            ),
        ),
        "text",
        Want("changed", "docs/cli-reference.md"),
        Want("file_contains", "--since", "docs/cli-reference.md"),
        example=Example(
            writes=(
                ("src/export.py", "def export(since=None):\n    pass\n"),
                ("docs/cli-reference.md", "--since DATE: only export rows newer than DATE\n"),
            )
        ),
    ),
    _labelled(
        _said(
            "claude",
            "jasper",
            "Põe no guia de instalação um link para a referência da API.",
            "Consulta a [referência da API](https://docs.acme.io/api/reference.html).",
            "Nada de endereço completo com https: o preview local não tem internet. Usa o "
            "caminho relativo `../api/reference.md`.",
            "Consulta a [referência da API](../api/reference.md).",
            _praise("claude", "Obrigado, assim já abre no preview."),
        ),
        "text",
        Want("not_contains", "https://docs.acme.io"),
        Want("contains", "../api/reference.md"),
        example=Example(answer="Consulta a [referência da API](../api/reference.md)."),
    ),
    _labelled(
        _said(
            "codex",
            "jasper",
            "Scrivi la descrizione breve dell'app per lo store.",
            _BLURB_LONG,
            "Il campo dello store accetta al massimo 25 parole, il resto viene tagliato.",
            _BLURB,
        ),
        "text",
        Want("regex", _BLURB),
        example=Example(answer=_BLURB),
    ),
    _labelled(
        _said(
            "claude",
            "flint",
            "总结一下这周修好的 bug。",
            "- 修复了登录超时 (#231)\n- 修复了导出乱码 (#240)",
            "编号请写成 `BUG-231` 这种格式，我们的跟踪系统不认 `#231`。",
            "- 修复了登录超时 (BUG-231)\n- 修复了导出乱码 (BUG-240)",
        ),
        "text",
        Want("contains", "BUG-231"),
        Want("not_contains", "#231"),
        example=Example(answer="- 修复了登录超时 (BUG-231)\n- 修复了导出乱码 (BUG-240)"),
    ),
    _labelled(
        _said(
            "claude",
            "flint",
            "Write the SQL migration for an index on orders.created_at.",
            "CREATE INDEX idx_orders_created ON orders (created_at);",
            "dbmate skips any file whose first line isn't `-- migrate:up`, so that has to come "
            "first.",
            _MIGRATION,
        ),
        "text",
        Want("starts_with", "-- migrate:up"),
        example=Example(answer=_MIGRATION),
    ),
    _labelled(
        _said(
            "codex",
            "shale",
            "Redacta el aviso de mantenimiento para los clientes.",
            "El sábado de 2:00 a 4:00 el servicio no estará disponible.",
            "Los avisos se cierran siempre con la línea `— Equipo de Operaciones`; sin firma "
            "parecen phishing.",
            "El sábado de 2:00 a 4:00 el servicio no estará disponible.\n— Equipo de Operaciones",
        ),
        "text",
        Want("contains", "— Equipo de Operaciones"),
        Want("regex", "— Equipo de Operaciones"),
        example=Example(
            answer="El sábado de 2:00 a 4:00 el servicio no estará disponible.\n"
            "— Equipo de Operaciones"
        ),
    ),
    _labelled(
        _said(
            "claude",
            "shale",
            "Rédige le message Slack qui annonce la mise en production.",
            "🎉 La v2 est en prod ! 🚀 Merci à tous 🙌",
            "Pas d'émojis : le canal #annonces est relayé par e-mail et ils arrivent en petits "
            "carrés.",
            "La v2 est en production. Merci à tous.",
        ),
        "text",
        Want("not_contains", "🎉"),
        Want("not_contains", "🚀"),
        example=Example(answer="La v2 est en production. Merci à tous."),
    ),
    _labelled(
        _said(
            "codex",
            "pumice",
            "Write the tagline for the landing page.",
            "Fast product analytics, powered by Clickhouse.",
            "The vendor spells it `ClickHouse` with a capital H, and legal wants it exact on "
            "anything public.",
            "Fast product analytics, powered by ClickHouse.",
        ),
        "text",
        Want("contains", "ClickHouse"),
        Want("not_contains", "Clickhouse"),
        example=Example(answer="Fast product analytics, powered by ClickHouse."),
    ),
    _labelled(
        _said(
            "claude",
            "pumice",
            "Write the performance paragraph for the release blog post.",
            "Search is now blazingly fast and simply the best way to find anything.",
            "Marketing has banned 'blazingly' and 'simply' from everything we publish; give the "
            "numbers instead.",
            "Search now answers in 40 ms instead of 300 ms.",
        ),
        "text",
        Want("not_contains", "blazingly"),
        Want("not_contains", "simply"),
        example=Example(answer="Search now answers in 40 ms instead of 300 ms."),
    ),
    _labelled(
        _slash(
            "slash6",
            "/prbody cache eviction fix",
            "Fixes the order in which the cache evicts entries.",
            "The last line of a PR body here is always the closing keyword for its issue, for "
            "this one `Closes #318`.",
            "Fixes the order in which the cache evicts entries.\n\nCloses #318",
        ),
        "text",
        Want("contains", "Closes #318"),
        example=Example(answer="Fixes the order in which the cache evicts entries.\n\nCloses #318"),
    ),
    _labelled(
        _split_said(
            "codex",
            "tuff",
            "Write the error message for an expired download link.",
            "Oops! Something went wrong :(",
            "Hmm, no.",
            "Error messages here say what happened and what to do next, and none of them starts "
            "with 'Oops'.",
            "This download link has expired. Request a new one from your account page.",
        ),
        "text",
        Want("not_contains", "Oops"),
        example=Example(
            answer="This download link has expired. Request a new one from your account page."
        ),
    ),
    _labelled(
        _said(
            "claude",
            "tuff",
            "READMEにインストール手順を書いてください。",
            "pip install acme-cli を実行してください。",
            "コマンドは必ず ```bash のコードブロックに入れてください。コピーしやすいので。",
            "```bash\npip install acme-cli\n```",
        ),
        "text",
        Want("contains", "```bash"),
        example=Example(answer="```bash\npip install acme-cli\n```"),
    ),
    _labelled(
        _said(
            "codex",
            "gneiss",
            "Schreib den Wartungshinweis fürs Intranet.",
            "Wegen eines Deployments gibt es am Freitag eine kurze Downtime.",
            "Bitte 'Ausfallzeit' statt 'Downtime' – im Intranet sind englische Fachbegriffe laut "
            "Styleguide tabu.",
            "Wegen einer Aktualisierung gibt es am Freitag eine kurze Ausfallzeit.",
        ),
        "text",
        Want("contains", "Ausfallzeit"),
        Want("not_contains", "Downtime"),
        example=Example(
            answer="Wegen einer Aktualisierung gibt es am Freitag eine kurze Ausfallzeit."
        ),
    ),
    _labelled(
        _said(
            "claude",
            "gneiss",
            "Escreve a notificação push do lançamento da versão 5.",
            _PUSH_LONG,
            "O Android corta as notificações aos 90 caracteres, encurta isso.",
            _PUSH,
        ),
        "text",
        Want("max_chars", 90),
        example=Example(answer=_PUSH),
    ),
    _labelled(
        _said(
            "codex",
            "marble",
            "Summarise the sprint for the client.",
            _SPRINT_BAD,
            "This goes to the client, so leave out who did what and anything about staging-db-2.",
            _SPRINT,
        ),
        "text",
        Want("not_contains", "staging-db-2"),
        Want("not_contains", "Priya"),
        example=Example(answer=_SPRINT),
    ),
)

_ACTION_CASES = (
    _labelled(
        _acted(
            "claude",
            "chalk",
            "Run the unit tests for the web app.",
            ("npm test 2>&1 | tail -1", "npm test ran the whole suite."),
            "Not plain `npm test`, that boots three browsers; the unit ones are "
            "`npm run test:unit`.",
            ("npm run test:unit 2>&1 | tail -1", "Unit tests done."),
        ),
        "action",
        Want("never_ran", "npm test"),
        Want("ran", "npm run test:unit"),
        example=Example(commands=("npm run test:unit",)),
    ),
    _labelled(
        _acted(
            "codex",
            "chalk",
            "Update my branch with main.",
            ("git pull origin main 2>&1 | tail -1", "Pulled main into your branch."),
            "We keep history linear, no merge commits: `git pull --rebase origin main`.",
            ("git pull --rebase origin main 2>&1 | tail -1", "Rebased onto main."),
            _praise("codex", "Perfect, that's the one."),
        ),
        "action",
        Want("never_ran", "git pull origin main"),
        Want("ran", "git pull --rebase origin main"),
        example=Example(commands=("git pull --rebase origin main",)),
    ),
    _labelled(
        _acted(
            "claude",
            "schist",
            "Pasa los tests del crate.",
            ("cargo test 2>&1 | tail -1", "Tests pasados con cargo test."),
            "Aquí los tests se lanzan con `cargo nextest run`; el `cargo test` de siempre comparte "
            "proceso y se cuelga con los de red.",
            ("cargo nextest run 2>&1 | tail -1", "Tests pasados con nextest."),
        ),
        "action",
        Want("never_ran", "cargo test"),
        Want("ran", "cargo nextest run"),
        example=Example(commands=("cargo nextest run",)),
    ),
    _labelled(
        _acted(
            "codex",
            "schist",
            "Starte die API-Pods neu.",
            ("kubectl delete pod -l app=api 2>&1 | tail -1", "Pods gelöscht, sie starten neu."),
            "Pods löschen wir nicht von Hand, dafür gibt es "
            "`kubectl rollout restart deployment/api`.",
            ("kubectl rollout restart deployment/api 2>&1 | tail -1", "Neustart ausgelöst."),
        ),
        "action",
        Want("never_ran", "kubectl delete pod -l app=api"),
        Want("ran", "kubectl rollout restart deployment/api"),
        example=Example(commands=("kubectl rollout restart deployment/api",)),
    ),
    _labelled(
        _acted(
            "claude",
            "basanite",
            "Format the JavaScript.",
            ("npx prettier --write . 2>&1 | tail -1", "Formatted everything."),
            "Keep prettier away from `legacy/`, reformatting it wrecks git blame on code nobody "
            "owns anymore. `web/` is what I wanted formatted.",
            ("npx prettier --write web/ 2>&1 | tail -1", "Formatted web/."),
        ),
        "action",
        Want("never_ran", "npx prettier --write ."),
        Want("ran", "npx prettier --write web/"),
        Want("untouched", "legacy"),
        example=Example(commands=("npx prettier --write web/",)),
    ),
    _labelled(
        _acted(
            "codex",
            "basanite",
            "古いログファイルを消して。",
            ("find . -name '*.log' -delete 2>&1 | tail -1", "すべての .log を削除しました。"),
            "消していいのは `tmp/logs/` の中だけです。`audit/` の .log は監査で必要なので絶対に"
            "残してください。",
            (
                "find tmp/logs -name '*.log' -delete 2>&1 | tail -1",
                "tmp/logs の .log だけ削除しました。",
            ),
        ),
        "action",
        Want("untouched", "audit"),
        Want("never_ran", "find . -name '*.log' -delete"),
        Want("ran", "find tmp/logs"),
        example=Example(
            commands=("find tmp/logs -name '*.log' -delete",), deletes=("tmp/logs/app.log",)
        ),
    ),
    _labelled(
        _acted(
            "claude",
            "obsidian",
            "列出所有的 Markdown 文件。",
            (
                "find . -name '*.md' 2>&1 | head -20",
                "./docs/guide.md\n./node_modules/left-pad/README.md\n./vendor/lib/README.md",
            ),
            "`node_modules/` 和 `vendor/` 里的不要算，我只要 `docs/` 下面的。",
            ("find docs -name '*.md' 2>&1 | head -20", "docs/guide.md"),
        ),
        "action",
        Want("ran", "find docs -name"),
        Want("never_ran", "find . -name"),
        Want("not_contains", "node_modules/"),
        example=Example(answer="docs/guide.md", commands=("find docs -name '*.md'",)),
    ),
    _labelled(
        _acted(
            "codex",
            "obsidian",
            "Sistema gli import inutilizzati.",
            ("ruff check --fix . 2>&1 | tail -1", "Import sistemati in tutto il progetto."),
            "In `generated/` non si tocca niente, né a mano né con ruff: quei file escono da "
            "`make codegen`. Limita il fix ad `app/`.",
            ("ruff check --fix app/ 2>&1 | tail -1", "Sistemato solo app/."),
        ),
        "action",
        Want("never_ran", "ruff check --fix ."),
        Want("ran", "ruff check --fix app/"),
        Want("untouched", "generated"),
        example=Example(commands=("ruff check --fix app/",)),
    ),
    _labelled(
        _acted(
            "claude",
            "pyrite",
            "Where is old_helper still used?",
            (
                "grep -rn old_helper build src 2>&1 | head -5",
                "build/lib/util.py:1 and src/util.py:1.",
            ),
            "not in build, that's just compiled output from last week",
            ("grep -rn old_helper src 2>&1 | head -5", "src/util.py:1."),
        ),
        "action",
        Want("never_ran", "grep -rn old_helper build src"),
        Want("never_read", "build"),
        example=Example(commands=("grep -rn old_helper src",)),
    ),
    _labelled(
        _acted(
            "claude",
            "pyrite",
            "Clear out the caches.",
            ("rm -rf .cache .mypy_cache .tox 2>&1 | tail -1", "Removed .cache, .mypy_cache, .tox."),
            "`.tox` takes twenty minutes to rebuild, I didn't want that one gone; the other two "
            "were fine.",
            ("echo 'nothing else to remove'", "Understood, .tox stays from now on."),
        ),
        "action",
        Want("untouched", ".tox"),
        Want("never_ran", "rm -rf .cache .mypy_cache .tox"),
        example=Example(
            commands=("rm -rf .cache .mypy_cache",), deletes=(".cache/x", ".mypy_cache/y")
        ),
    ),
    _labelled(
        _slash_acted(
            "slash6",
            "/publish",
            ("twine upload dist/* 2>&1 | tail -1", "Uploaded to PyPI."),
            "Not the real PyPI from a dev box! It's `twine upload --repository testpypi dist/*`, "
            "I promote releases myself.",
            ("twine upload --repository testpypi dist/* 2>&1 | tail -1", "Uploaded to TestPyPI."),
        ),
        "action",
        Want("never_ran", "twine upload dist/*"),
        Want("ran", "twine upload --repository testpypi"),
        example=Example(commands=("twine upload --repository testpypi dist/*",)),
    ),
    _labelled(
        _split_acted(
            "codex",
            "marl",
            "Roll back the last migration.",
            ("alembic downgrade base 2>&1 | tail -1", "Rolled back."),
            "Whoa, wait.",
            "One step only, `alembic downgrade -1`; base drops every table we have.",
            ("alembic downgrade -1 2>&1 | tail -1", "Rolled back one revision."),
        ),
        "action",
        Want("never_ran", "alembic downgrade base"),
        Want("ran", "alembic downgrade -1"),
        example=Example(commands=("alembic downgrade -1",)),
    ),
    _labelled(
        _acted(
            "claude",
            "marl",
            "Mets à jour le lockfile.",
            ("rm package-lock.json && npm install 2>&1 | tail -1", "Lockfile régénéré."),
            "Ne supprime jamais `package-lock.json` ; `npm install --package-lock-only` le met à "
            "jour sans tout réinstaller.",
            ("npm install --package-lock-only 2>&1 | tail -1", "Lockfile mis à jour."),
        ),
        "action",
        Want("never_ran", "rm package-lock.json"),
        Want("ran", "npm install --package-lock-only"),
        # the user's command rewrites the lockfile in place: that is what they asked for
        example=Example(
            commands=("npm install --package-lock-only",),
            writes=(("package-lock.json", '{"lockfileVersion": 3}\n'),),
        ),
    ),
    _labelled(
        _acted(
            "codex",
            "loam",
            "Descobre porque é que o job noturno falhou.",
            ("cat /var/log/syslog 2>&1 | tail -20", "Li o syslog da máquina."),
            "Não vás ao syslog da máquina; o job escreve em `logs/nightly.log`, basta "
            "`tail -n 100 logs/nightly.log`.",
            ("tail -n 100 logs/nightly.log 2>&1 | tail -5", "Falhou por timeout na base de dados."),
        ),
        "action",
        Want("never_ran", "cat /var/log/syslog"),
        Want("ran", "tail -n 100 logs/nightly.log"),
        example=Example(commands=("tail -n 100 logs/nightly.log",), reads=("logs/nightly.log",)),
    ),
    _labelled(
        _acted(
            "codex",
            "loam",
            "Borra las imágenes de Docker que no usamos.",
            ("docker image prune -a -f 2>&1 | tail -1", "Borradas todas las imágenes sin usar."),
            "Solo las colgantes: `docker image prune -f`, sin `-a`, que se lleva la imagen base "
            "que tardamos una hora en bajar.",
            ("docker image prune -f 2>&1 | tail -1", "Borradas solo las colgantes."),
        ),
        "action",
        Want("never_ran", "docker image prune -a -f"),
        Want("ran", "docker image prune -f"),
        example=Example(commands=("docker image prune -f",)),
    ),
)

# Praise after requests nobody corrected: no correction, no label; neither may become a task.
PRAISED = (
    _answered(
        "claude",
        "marble",
        "Explain what `set -euo pipefail` does at the top of a script.",
        "It stops the script on the first failing command, on unset variables, and when any "
        "command of a pipeline fails.",
        "Spot on, thanks.",
    ),
    _uncorrected(
        "codex",
        "chalk",
        "Run the linter.",
        "make lint 2>&1 | tail -1",
        "Yes, `make lint` is exactly the one, thanks!",
    ),
)

_CASES = _TEXT_CASES + _ACTION_CASES
CHECK_SIXTH_SESSIONS: tuple[Scenario, ...] = tuple(s for s, _ in _CASES) + PRAISED
CHECK_SIXTH_LABELS: tuple[Label, ...] = tuple(label for _, label in _CASES)


def main(argv: list[str]) -> int:
    return record_with_files(argv, CHECKS_SIXTH, CHECK_SIXTH_SESSIONS, SIXTH_PROJECT_FILES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
