"""A seventh labelled set of corrections recorded with the real ``claude`` and ``codex``, written and
recorded while the miner change after 7eecce5 (checks that agree with the user's own example,
corrections that still become tasks) was made, and kept from it: 22 corrections (11 of what the
answer or a file should say, 11 of what the agent did), in English, Dutch, Korean, Spanish,
German, French, Japanese, Italian and Portuguese, new topics and wordings: a changelog heading in
Dutch, an endpoint table in ``docs/endpoints.md``, a relative link in Korean, a trailer line as a
reference format, a required first line (a shebang), negated text rules ("not a single one may
begin with", "no bullet ends with a full stop", "without the word"), a limit in characters in
Japanese, short links kept out after a slash-command request, a split correction; the command
to use where the right one shares its program or words with the wrong one (``gofmt -w`` /
``gofmt -l``, ``yarn install`` / ``yarn install --immutable``, ``pytest`` / ``pytest <file> -k``,
``make html`` / ``make -C docs html``, ``mypy .`` / ``mypy services/payments``, ``git push
--tags`` / ``git push origin <tag>``, ``git branch -D`` / ``git branch -d``), "never delete" where
the file may be rewritten (``truncate``), the user's own command in a pipe (``| grep``), a
command named as where files come from (``make apidocs``), a listing with two folders to leave
out, an action correction after a slash-command request, and praise that is not a correction, in
Spanish after a corrected request and in Dutch and Italian after two requests nobody corrected.

Labelled like ``check_conversations.py``: where it lands, the right checks, the user's own
example as a synthetic attempt (a check failing on it contradicts the correction). A command key
is the whole command the user named or the attempt ran, so a check catching any part of it counts.

Measured before the change it measures (``python -m bench.corrections --baseline 7eecce5 --after
7eecce5 --sets checks7 --json``): 20 of 22 attached (2 became tasks, both about text: the
relative link in Korean, "no bullet ends with a full stop" in German), 8 with a rule check, 11
with an action check, 18 with a failing check, 14 correct (6 of 11 text, 8 of 11 actions), 5
contradicting with 6 checks (``starts_with 'Don'`` from "Not a single one may begin with 'Don't
miss'"; ``starts_with 'Image of'`` from "it must not open with 'Image of'"; ``never_ran gofmt``
beside the user's own ``gofmt -l .``; ``untouched logs/app.log`` and ``never_ran logs/app.log``
beside the user's own ``truncate -s 0 logs/app.log``; ``ran make apidocs``, a command the user
named as where the HTML comes from). The praise "¡Genial, ya arranca desde cron!" became a task
of its own there (after a correction that attached); the praise after the two uncorrected
requests did not.

After the miner change made while this set was kept from it, its held-out figure
(``python -m bench.corrections --baseline 7eecce5 --after 942032c --sets checks7``): 20 of 22
attached, 2 became tasks, 8 with a rule check, 12 with an action check, 20 with a failing check,
17 correct, 4 contradicting (``starts_with 'Don'``, ``never_ran logs/app.log`` beside the user's
``truncate``, ``ran make apidocs``, and a listing left out in Italian held as the whole command).
The next miner change (942032c to 9daf906) was then made with this set as its development data,
so these are tuned figures, not held-out ones (``--after 9daf906``): 22 of 22 attached, 0 became tasks,
10 with a rule check, 12 with an action check, 22 with a failing check, 22 correct (11 of 11
text, 11 of 11 actions), 0 contradicting. Gained: the Korean relative link and the German full
stops now attach with a right check; the shebang, "may not begin with" (twice), ``truncate``
beside "never delete", ``make apidocs`` and the Italian listing now carry the right check and
no contradicting one. None lost. The praise "¡Genial, ya arranca desde cron!" is still a task of
its own.

Regenerate the stored fixtures (needs both binaries on PATH):
    python -m tests.harvest.check_conversations_seventh tests/fixtures/conversations_checks_seventh
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from skillopt_sleep.testing.replies import Text
from skillopt_sleep.testing.scripts import add_file_patch, codex_apply_patch, codex_exec

from .check_conversations import Example, Label, Want, _patched, _slash, record_with_files
from .check_conversations_fifth import _slash_acted
from .check_conversations_sixth import _answered, _uncorrected
from .check_conversations_third import _labelled, _split_acted, _split_said
from .conversations import Scenario, Step
from .fresh_conversations import _acted, _praise, _said

CHECKS_SEVENTH = Path(__file__).resolve().parents[1] / "fixtures" / "conversations_checks_seventh"

SEVENTH_PROJECT_FILES: Mapping[str, Mapping[str, str]] = {
    "slash7": {
        ".claude/commands/digest.md": "---\ndescription: Weekly digest\n---\n"
        "Write this week's digest for $ARGUMENTS.\n",
        ".claude/commands/release.md": "---\ndescription: Tag a release\n---\n"
        "Tag version $ARGUMENTS and push the tag to origin.\n",
    },
    "tephra": {"logs/app.log": "09:00 started\n09:01 request /\n"},
    "gabbro": {"package.json": '{"name": "web"}\n', "yarn.lock": "# yarn lockfile v1\n"},
    "rhyolite": {"docs/api/client.html": "<p>Call recieve() to wait for a message.</p>\n"},
    "scoria": {
        "deploy/app.yml": "replicas: 2\n",
        "examples/demo.yml": "replicas: 1\n",
        "charts/vendor/redis.yml": "image: redis\n",
    },
    "breccia": {"services/payments/api.py": "def charge(amount: int) -> None: ...\n"},
}

_SUBJECTS_BAD = (
    "1. Don't miss our spring sale\n2. Don't miss the new colours\n3. Spring is here\n"
    "4. Don't miss out: 20% off\n5. Fresh picks for April"
)
_SUBJECTS = (
    "1. Our spring sale is on\n2. New colours just landed\n3. Spring is here\n"
    "4. 20% off until Friday\n5. Fresh picks for April"
)
_SLIDE = "- Schnellere Suche\n- Dunkler Modus\n- Export als PDF"
_DIALOG_LONG = (
    "ファイルを保存しようとしましたが、ディスクの容量が不足しているか、ネットワークに接続されて"
    "いないため、保存に失敗しました。もう一度お試しください。"
)
_DIALOG = "保存できませんでした。もう一度お試しください。"
_BRANCHES = "git branch --merged main | grep -v main | xargs git branch -d"


def _regenerated(
    project: str,
    request: str,
    bad: tuple[str, str],
    correction: str,
    good: tuple[str, str, str],
) -> Scenario:
    """A codex request done with one command (command, answer), corrected, redone by one
    ``apply_patch`` (path, text, answer)."""
    path, text, said = good
    steps = (
        Step(request, (codex_exec(bad[0]), Text(bad[1])), "new"),
        Step(
            correction,
            (codex_apply_patch(add_file_patch(path, text)), Text(said)),
            "resume",
            "correction",
            checkable=True,
        ),
    )
    return Scenario(request[:28], "codex", project, steps)


_TEXT_CASES = (
    _labelled(
        _said(
            "codex",
            "dolomite",
            "Voeg een regel toe aan CHANGELOG.md over het nieuwe zoekfilter.",
            "## 3.2.0\n- Nieuw zoekfilter op de overzichtspagina",
            "Nieuwe regels komen onder het kopje `## Nog niet uitgebracht`; het versienummer "
            "kiezen we pas bij de release.",
            "## Nog niet uitgebracht\n- Nieuw zoekfilter op de overzichtspagina",
        ),
        "text",
        Want("heading", "Nog niet uitgebracht"),
        Want("not_contains", "## 3.2.0"),
        example=Example(
            answer="## Nog niet uitgebracht\n- Nieuw zoekfilter op de overzichtspagina"
        ),
    ),
    _labelled(
        _patched(
            "dolomite",
            "Add a `/healthz` endpoint to the API.",
            ("src/health.py", "def healthz():\n    return {'ok': True}\n", "Added /healthz."),
            "Put it in the endpoint table in `docs/endpoints.md` too; the gateway config is "
            "generated from that table.",
            (
                "docs/endpoints.md",
                "| GET | /healthz | liveness probe |\n",
                "Added the row to docs/endpoints.md.",
            ),
        ),
        "text",
        Want("changed", "docs/endpoints.md"),
        Want("file_contains", "/healthz", "docs/endpoints.md"),
        example=Example(
            writes=(
                ("src/health.py", "def healthz():\n    return {'ok': True}\n"),
                ("docs/endpoints.md", "| GET | /healthz | liveness probe |\n"),
            )
        ),
    ),
    _labelled(
        _said(
            "claude",
            "gneissic",
            "README에 변경 기록 링크를 넣어 주세요.",
            "[변경 기록](https://github.com/acme/tool/blob/main/CHANGELOG.md)",
            "https로 시작하는 전체 주소는 쓰지 마세요. 포크에서도 열리게 `./CHANGELOG.md` 같은 "
            "상대 경로로 부탁해요.",
            "[변경 기록](./CHANGELOG.md)",
        ),
        "text",
        Want("contains", "./CHANGELOG.md"),
        Want("not_contains", "https://github.com"),
        example=Example(answer="[변경 기록](./CHANGELOG.md)"),
    ),
    _labelled(
        _said(
            "claude",
            "gneissic",
            "Write the commit message for the timezone fix.",
            "Fix timezone offset in reports (#88)",
            "Our Jira bot ignores GitHub numbers: drop the (#88) and end the message with a line "
            "`Refs: ENG-88` on its own.",
            "Fix timezone offset in reports\n\nRefs: ENG-88",
        ),
        "text",
        Want("contains", "Refs: ENG-88"),
        Want("regex", "Refs: ENG-88"),
        example=Example(answer="Fix timezone offset in reports\n\nRefs: ENG-88"),
    ),
    _labelled(
        _said(
            "codex",
            "andesite",
            "Escribe el script que arranca el worker.",
            "set -e\nnode worker.js",
            "La primera línea tiene que ser `#!/usr/bin/env bash`, si no cron lo lanza con sh y "
            "revienta.",
            "#!/usr/bin/env bash\nset -e\nnode worker.js",
            _praise("codex", "¡Genial, ya arranca desde cron!"),
        ),
        "text",
        Want("starts_with", "#!/usr/bin/env bash"),
        example=Example(answer="#!/usr/bin/env bash\nset -e\nnode worker.js"),
    ),
    _labelled(
        _said(
            "claude",
            "andesite",
            "Give me five subject lines for the spring newsletter.",
            _SUBJECTS_BAD,
            "Not a single one may begin with 'Don't miss' - the spam filter at our biggest client "
            "bins those.",
            _SUBJECTS,
        ),
        "text",
        Want("not_contains", "Don't miss"),
        example=Example(answer=_SUBJECTS),
    ),
    _labelled(
        _said(
            "codex",
            "gabbro",
            "Schreib die Stichpunkte für die Release-Folie.",
            "- Schnellere Suche.\n- Dunkler Modus.\n- Export als PDF.",
            "Auf unseren Folien endet kein Stichpunkt mit einem Punkt, das sieht im Template "
            "furchtbar aus.",
            _SLIDE,
        ),
        "text",
        Want("regex", _SLIDE),
        Want("not_contains", "."),
        example=Example(answer=_SLIDE),
    ),
    _labelled(
        _said(
            "claude",
            "tephra",
            "Rédige le texte de l'offre Découverte pour le site.",
            "Essayez l'offre Découverte : un mois gratuit, sans engagement.",
            "Sans le mot « gratuit », s'il te plaît : il y a des frais d'activation et le "
            "juridique refuse ce mot.",
            "Essayez l'offre Découverte : un mois pour 1 €, sans engagement.",
        ),
        "text",
        Want("not_contains", "gratuit"),
        example=Example(answer="Essayez l'offre Découverte : un mois pour 1 €, sans engagement."),
    ),
    _labelled(
        _said(
            "codex",
            "tephra",
            "保存に失敗したときのダイアログの文言を書いてください。",
            _DIALOG_LONG,
            "ダイアログの幅が狭いので、30文字以内でお願いします。",
            _DIALOG,
        ),
        "text",
        Want("max_chars", 30),
        example=Example(answer=_DIALOG),
    ),
    _labelled(
        _slash(
            "slash7",
            "/digest partner newsletter",
            "This week: the new importer shipped (details: go/importer-notes) and the on-call "
            "rota changed.",
            "This goes to partners outside the VPN, so no `go/` short links anywhere in it.",
            "This week: the new importer shipped and the on-call rota changed.",
        ),
        "text",
        Want("not_contains", "go/importer-notes"),
        Want("not_contains", "go/"),
        example=Example(answer="This week: the new importer shipped and the on-call rota changed."),
    ),
    _labelled(
        _split_said(
            "codex",
            "scoria",
            "Write the alt text for the homepage hero image.",
            "Image of three people laughing around a laptop",
            "Hmm, not that.",
            "Screen readers already announce it as an image, so it must not open with 'Image of'.",
            "Three people laughing around a laptop",
        ),
        "text",
        Want("not_contains", "Image of"),
        example=Example(answer="Three people laughing around a laptop"),
    ),
)

_ACTION_CASES = (
    _labelled(
        _acted(
            "claude",
            "dolomite",
            "Check the Go formatting.",
            ("gofmt -w . 2>&1 | tail -1", "Formatted the Go files."),
            "I said check, not fix: `gofmt -l .` only lists the files. `-w` just rewrote half the "
            "tree in the middle of my rebase.",
            ("gofmt -l . 2>&1 | tail -1", "Listed the unformatted files."),
        ),
        "action",
        Want("never_ran", "gofmt -w ."),
        Want("ran", "gofmt -l ."),
        example=Example(commands=("gofmt -l .",)),
    ),
    _labelled(
        _acted(
            "codex",
            "gabbro",
            "Installeer de dependencies voor de CI-run.",
            ("yarn install 2>&1 | tail -1", "Dependencies geïnstalleerd."),
            "In CI altijd `yarn install --immutable`; een kale `yarn install` past yarn.lock aan "
            "en dan test CI iets anders dan wat er gecommit is.",
            (
                "yarn install --immutable 2>&1 | tail -1",
                "Geïnstalleerd zonder yarn.lock te wijzigen.",
            ),
        ),
        "action",
        Want("ran", "yarn install --immutable"),
        Want("untouched", "yarn.lock"),
        example=Example(commands=("yarn install --immutable",)),
    ),
    _labelled(
        _acted(
            "claude",
            "tephra",
            "Vide le fichier de log de l'application.",
            ("rm logs/app.log 2>&1 | tail -1", "Fichier de log supprimé."),
            "Ne supprime jamais `logs/app.log`, le démon le garde ouvert et n'écrit plus nulle "
            "part ; vide-le avec `truncate -s 0 logs/app.log`.",
            ("truncate -s 0 logs/app.log 2>&1 | tail -1", "Fichier vidé."),
        ),
        "action",
        Want("never_ran", "rm logs/app.log"),
        Want("ran", "truncate -s 0 logs/app.log"),
        # the user's command rewrites the file in place: that is what they asked for
        example=Example(commands=("truncate -s 0 logs/app.log",), writes=(("logs/app.log", ""),)),
    ),
    _labelled(
        _acted(
            "claude",
            "andesite",
            "Why did the api service restart last night?",
            ("journalctl -u api --no-pager 2>&1 | tail -3", "Read the api unit's journal."),
            "Without a time window that's months of journal. `journalctl -u api --since "
            "yesterday | grep -i restart` is all I need.",
            (
                "journalctl -u api --since yesterday | grep -i restart",
                "No restart lines since yesterday.",
            ),
        ),
        "action",
        Want("ran", "journalctl -u api --since yesterday | grep -i restart"),
        example=Example(commands=("journalctl -u api --since yesterday | grep -i restart",)),
    ),
    _labelled(
        _regenerated(
            "rhyolite",
            "Fix the 'recieve' typo in the API docs.",
            (
                "sed -i 's/recieve/receive/g' docs/api/client.html",
                "Fixed it in docs/api/client.html.",
            ),
            "The HTML under `docs/api/` is built from the docstrings by `make apidocs` in CI, "
            "so fix the typo in `src/client.py` instead.",
            (
                "src/client.py",
                'def receive():\n    """Wait for a message and return it."""\n',
                "Fixed the docstring in src/client.py.",
            ),
        ),
        "action",
        Want("untouched", "docs/api"),
        Want("changed", "src/client.py"),
        example=Example(
            writes=(("src/client.py", 'def receive():\n    """Wait for a message."""\n'),)
        ),
    ),
    _labelled(
        _acted(
            "codex",
            "breccia",
            "타입 검사 돌려 줘.",
            ("mypy . 2>&1 | tail -1", "전체 프로젝트에 mypy를 돌렸습니다."),
            "`mypy services/payments`만 돌려 주세요. 다른 폴더는 아직 타입 힌트가 없어서 에러만 "
            "수백 개 나와요.",
            ("mypy services/payments 2>&1 | tail -1", "services/payments만 검사했습니다."),
        ),
        "action",
        Want("ran", "mypy services/payments"),
        Want("never_ran", "mypy ."),
        example=Example(commands=("mypy services/payments",)),
    ),
    _labelled(
        _acted(
            "codex",
            "scoria",
            "Elenca i file YAML del progetto.",
            (
                "find . -name '*.yml' 2>&1 | head -20",
                "./deploy/app.yml\n./examples/demo.yml\n./charts/vendor/redis.yml",
            ),
            "Lascia fuori `examples/` e `charts/vendor/`: mi servono solo quelli sotto `deploy/`.",
            ("find deploy -name '*.yml' 2>&1 | head -20", "deploy/app.yml"),
        ),
        "action",
        Want("ran", "find deploy -name '*.yml'"),
        Want("never_ran", "find . -name '*.yml'"),
        Want("not_contains", "examples/"),
        example=Example(answer="deploy/app.yml", commands=("find deploy -name '*.yml'",)),
    ),
    _labelled(
        _acted(
            "claude",
            "breccia",
            "Pasa los tests del parser de fechas.",
            ("pytest 2>&1 | tail -1", "La suite entera pasa."),
            "Con `pytest tests/test_dates.py -k parse` basta; la suite completa tarda veinte "
            "minutos.",
            ("pytest tests/test_dates.py -k parse 2>&1 | tail -1", "Los tests del parser pasan."),
        ),
        "action",
        Want("ran", "pytest tests/test_dates.py -k parse"),
        example=Example(commands=("pytest tests/test_dates.py -k parse",)),
    ),
    _labelled(
        _acted(
            "codex",
            "rhyolite",
            "Build the docs.",
            ("make html 2>&1 | tail -1", "Built the docs."),
            "Use `make -C docs html`. The root Makefile's html target rebuilds every wheel first.",
            ("make -C docs html 2>&1 | tail -1", "Built the docs from docs/."),
        ),
        "action",
        Want("ran", "make -C docs html"),
        Want("never_ran", "make html"),
        example=Example(commands=("make -C docs html",)),
    ),
    _labelled(
        _slash_acted(
            "slash7",
            "/release v2.4.0",
            ("git tag v2.4.0 && git push --tags 2>&1 | tail -1", "Tagged v2.4.0 and pushed."),
            "`--tags` pushes every local tag, my throwaway ones too. Push just that one: "
            "`git push origin v2.4.0`.",
            ("git push origin v2.4.0 2>&1 | tail -1", "Pushed v2.4.0 alone."),
        ),
        "action",
        Want("never_ran", "git push --tags"),
        Want("ran", "git push origin v2.4.0"),
        example=Example(commands=("git push origin v2.4.0",)),
    ),
    _labelled(
        _split_acted(
            "codex",
            "felsic",
            "Apaga os branches locais antigos.",
            (
                "git branch | grep -v main | xargs git branch -D 2>&1 | tail -1",
                "Apaguei todos menos o main.",
            ),
            "Eita, calma.",
            f"Só os que já estão integrados: `{_BRANCHES}`. O `-D` maiúsculo apaga trabalho que "
            "ainda não entrou.",
            (f"{_BRANCHES} 2>&1 | tail -1", "Apaguei só os integrados."),
        ),
        "action",
        Want("ran", _BRANCHES),
        Want("never_ran", "git branch | grep -v main | xargs git branch -D"),
        example=Example(commands=(_BRANCHES,)),
    ),
)

# Praise after requests nobody corrected: no correction, no label; neither may become a task.
PRAISED = (
    _uncorrected(
        "codex",
        "felsic",
        "Draai de databasemigraties.",
        "make migrate 2>&1 | tail -1",
        "Top, precies wat ik bedoelde.",
    ),
    _answered(
        "claude",
        "scoria",
        "Cosa fa `git rebase --onto`?",
        "Sposta una serie di commit su una nuova base: `git rebase --onto nuova vecchia ramo` "
        "riapplica i commit di `ramo` successivi a `vecchia` sopra `nuova`.",
        "Chiarissimo, grazie!",
    ),
)

_CASES = _TEXT_CASES + _ACTION_CASES
CHECK_SEVENTH_SESSIONS: tuple[Scenario, ...] = tuple(s for s, _ in _CASES) + PRAISED
CHECK_SEVENTH_LABELS: tuple[Label, ...] = tuple(label for _, label in _CASES)


def main(argv: list[str]) -> int:
    return record_with_files(argv, CHECKS_SEVENTH, CHECK_SEVENTH_SESSIONS, SEVENTH_PROJECT_FILES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
