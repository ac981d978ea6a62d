"""What still contradicted the user on the seventh labelled set (sessions recorded with the real
claude and codex, tests/harvest/check_conversations_seventh.py), harvested through the CLI, each
check read as ``tasks show`` words it and judged on the user's own example: an apostrophe inside
a quote is no closing mark, a command line the user quotes to run is their example whatever its
program, a command named as where files come from is not asked for when the user names
something else to do, a leave-out said in Italian ends at its colon, and a relative path asked
for in Korean and a line end named in German words make text checks that land on their
request."""

from __future__ import annotations

from skillopt_sleep.action_models import ACTION_KINDS
from skillopt_sleep.checks.action_judge import action_check, recorded
from skillopt_sleep.checks.judge import rule_check
from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.models import Action, TaskRecord

from .check_conversations_seventh import _SLIDE, _SUBJECTS, _SUBJECTS_BAD, CHECKS_SEVENTH
from .recorded_harvest import harvested, mined


def _acts(*commands: str, writes: tuple[tuple[str, str], ...] = ()) -> list[Action]:
    return [
        *(Action(kind="command", command=c, exit_code=0) for c in commands),
        *(Action(kind="write", path=p, content=t) for p, t in writes),
    ]


def _actions_pass(task: TaskRecord, example: list[Action]) -> None:
    for check in task.checks:
        if check.kind in ACTION_KINDS:
            assert action_check(check, recorded(example))[0] is True, plain(check)


def _text_holds(task: TaskRecord, good: str, bad: str) -> None:
    for check in task.checks:
        if check.kind != "rubric" and check.kind not in ACTION_KINDS:
            assert rule_check(check, good)[0], plain(check)
            assert not rule_check(check, bad)[0], plain(check)


def test_a_quote_holding_an_apostrophe_is_one_span_said_against(cli, sandbox_home):
    # "Not a single one may begin with 'Don't miss' - the spam filter ... bins those."
    task = harvested(cli, sandbox_home, CHECKS_SEVENTH)[
        "Give me five subject lines for the spring newsletter."
    ]
    checks = mined(task)
    assert 'not_contains "Don\'t miss"' in checks
    assert not [c for c in checks if c.startswith("starts_with")], checks
    _text_holds(task, _SUBJECTS, _SUBJECTS_BAD)


def test_a_command_the_user_quotes_to_run_is_their_example_whatever_its_program(cli, sandbox_home):
    # "Ne supprime jamais `logs/app.log` ... ; vide-le avec `truncate -s 0 logs/app.log`."
    task = harvested(cli, sandbox_home, CHECKS_SEVENTH)["Vide le fichier de log de l'application."]
    checks = mined(task)
    assert "never runs rm logs/app.log" in checks
    assert "never runs logs/app.log" not in checks
    assert "runs truncate -s 0 logs/app.log" in checks
    truncate = "truncate -s 0 logs/app.log 2>&1 | tail -1"
    _actions_pass(task, _acts(truncate, writes=(("logs/app.log", ""),)))
    out = cli("tasks", "show", task.id[:12]).out
    assert "held against the user's example: `truncate -s 0 logs/app.log`" in out


def test_a_command_named_as_where_files_come_from_is_not_asked_for(cli, sandbox_home):
    # "The HTML under `docs/api/` is built from the docstrings by `make apidocs` in CI, so fix
    # the typo in `src/client.py` instead."
    task = harvested(cli, sandbox_home, CHECKS_SEVENTH)["Fix the 'recieve' typo in the API docs."]
    checks = mined(task)
    assert not [c for c in checks if "apidocs" in c], checks
    assert [c for c in checks if "src/client.py" in c], checks
    _actions_pass(task, _acts(writes=(("src/client.py", "def receive(): ...\n"),)))


def test_a_leave_out_said_in_italian_keeps_the_listing_to_what_the_user_needs(cli, sandbox_home):
    # "Lascia fuori `examples/` e `charts/vendor/`: mi servono solo quelli sotto `deploy/`."
    task = harvested(cli, sandbox_home, CHECKS_SEVENTH)["Elenca i file YAML del progetto."]
    assert mined(task) == ["runs find deploy -name *.yml"]
    [check] = [c for c in task.checks if c.kind == "ran"]
    assert action_check(check, recorded(_acts("find deploy -name '*.yml' | head -20")))[0]
    assert not action_check(check, recorded(_acts("find . -name '*.yml'")))[0]
    wide = "find examples charts/vendor deploy -name '*.yml'"
    assert not action_check(check, recorded(_acts(wide)))[0]


def test_a_relative_path_asked_for_in_korean_lands_on_its_request(cli, sandbox_home):
    # "https로 시작하는 전체 주소는 쓰지 마세요. ... `./CHANGELOG.md` 같은 상대 경로로 부탁해요."
    tasks = harvested(cli, sandbox_home, CHECKS_SEVENTH)
    assert not [i for i in tasks if i.startswith("https로")]
    task = tasks["README에 변경 기록 링크를 넣어 주세요."]
    assert "correction" in [n.kind for n in task.turns]
    assert "contains './CHANGELOG.md'" in mined(task)
    full = "[변경 기록](https://github.com/acme/tool/blob/main/CHANGELOG.md)"
    _text_holds(task, "[변경 기록](./CHANGELOG.md)", full)


def test_a_line_end_named_in_german_words_keeps_the_bullets(cli, sandbox_home):
    # "Auf unseren Folien endet kein Stichpunkt mit einem Punkt, das sieht im Template furchtbar
    # aus." after bullets that each end with a full stop
    tasks = harvested(cli, sandbox_home, CHECKS_SEVENTH)
    assert not [i for i in tasks if i.startswith("Auf unseren Folien")]
    task = tasks["Schreib die Stichpunkte für die Release-Folie."]
    checks = mined(task)
    assert checks == ["no line ends with '.'"]
    _text_holds(task, _SLIDE, "- Schnellere Suche.\n- Dunkler Modus.\n- Export als PDF.")


def test_a_sign_inside_a_quoted_first_line_ends_no_sentence(cli, sandbox_home):
    # "La primera línea tiene que ser `#!/usr/bin/env bash`, si no cron lo lanza con sh ..."
    task = harvested(cli, sandbox_home, CHECKS_SEVENTH)["Escribe el script que arranca el worker."]
    assert "starts_with '#!/usr/bin/env bash'" in mined(task)
    good = "#!/usr/bin/env bash\nset -e\nnode worker.js"
    _text_holds(task, good, "set -e\nnode worker.js")
