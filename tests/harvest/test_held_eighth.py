"""What still contradicted or missed the user on the eighth labelled set (sessions recorded with
the real claude and codex, tests/harvest/check_conversations_eighth.py), harvested through the
CLI, each check read as ``tasks show`` words it and judged on the user's own example: a flag's
value refused beside the user's own command with another value forbids only that value, and
the praise of the seventh set opening with a Spanish mark stays praise."""

from __future__ import annotations

from skillopt_sleep.action_models import ACTION_KINDS
from skillopt_sleep.checks.action_judge import action_check, recorded
from skillopt_sleep.checks.judge import rule_check
from skillopt_sleep.harvest.check_miner import plain
from skillopt_sleep.models import Action, TaskRecord

from .check_conversations_eighth import _SMS, _SMS_LONG, _STATUS, _STATUS_BAD, CHECKS_EIGHTH
from .check_conversations_fifth import CHECKS_FIFTH
from .check_conversations_fourth import CHECKS_FOURTH
from .check_conversations_seventh import CHECKS_SEVENTH
from .check_conversations_third import CHECKS_THIRD
from .fresh_conversations import FRESH
from .recorded_harvest import harvested, mined


def _acts(*commands: str, writes: tuple[tuple[str, str], ...] = ()) -> list[Action]:
    return [
        *(Action(kind="command", command=c, exit_code=0) for c in commands),
        *(Action(kind="write", path=p, content=t) for p, t in writes),
    ]


def _actions_pass(task: TaskRecord, example: list[Action], attempt: list[Action]) -> None:
    """Every action check passes on the user's example and one fails on the attempt."""
    checks = [c for c in task.checks if c.kind in ACTION_KINDS]
    assert checks
    for check in checks:
        assert action_check(check, recorded(example))[0] is True, plain(check)
    assert not all(action_check(c, recorded(attempt))[0] for c in checks)


def _text_holds(task: TaskRecord, good: str, bad: str) -> None:
    checks = [c for c in task.checks if c.kind != "rubric" and c.kind not in ACTION_KINDS]
    assert checks
    for check in checks:
        assert rule_check(check, good)[0], plain(check)
    assert not all(rule_check(c, bad)[0] for c in checks)


def test_a_flag_value_refused_beside_the_users_own_value_forbids_only_it(cli, sandbox_home):
    # "`-n auto` はやめて。CI マシンは 2 コアしかないので `pytest -n 2` まで。"
    task = harvested(cli, sandbox_home, CHECKS_EIGHTH)["テストを並列で回して。"]
    checks = mined(task)
    assert "never runs pytest" not in checks
    assert "never runs -n" not in checks
    assert "never runs -n auto" in checks
    assert "runs pytest -n 2" in checks
    _actions_pass(task, _acts("pytest -n 2 2>&1 | tail -1"), _acts("pytest -n auto"))
    assert action_check(task.checks[0], recorded(_acts("pytest -n 2 tests/unit")))[0]


def test_praise_opening_with_a_spanish_mark_is_no_task(cli, sandbox_home):
    # "¡Genial, ya arranca desde cron!" after the corrected worker script
    tasks = harvested(cli, sandbox_home, CHECKS_SEVENTH)
    assert not [i for i in tasks if "Genial" in i]
    task = tasks["Escribe el script que arranca el worker."]
    assert "praise" in [n.kind for n in task.turns]


def test_a_limit_said_in_swedish_lands_on_its_request(cli, sandbox_home):
    # "Ett SMS får vara högst 160 tecken, annars delas det upp i två och vi betalar dubbelt."
    tasks = harvested(cli, sandbox_home, CHECKS_EIGHTH)
    assert not [i for i in tasks if i.startswith("Ett SMS")]
    task = tasks["Skriv påminnelse-SMS:et till patienterna."]
    assert "correction" in [n.kind for n in task.turns]
    assert mined(task) == ["max_chars 160"]
    _text_holds(task, _SMS, _SMS_LONG)


def test_a_leave_out_said_in_czech_keeps_the_listing_to_what_the_user_needs(cli, sandbox_home):
    # "Vynech `node_modules/` i `dist/`, zajímá mě jen to, co je v `src/`." ("only" reaches
    # over the comma Czech puts before "co")
    task = harvested(cli, sandbox_home, CHECKS_EIGHTH)[
        "Vypiš všechny TypeScriptové soubory v projektu."
    ]
    assert mined(task) == ["runs find src -name *.ts"]
    listing = "find . -name '*.ts' 2>&1 | head -20"
    _actions_pass(task, _acts("find src -name '*.ts' | head -20"), _acts(listing))
    [check] = task.checks
    assert not action_check(check, recorded(_acts("find src dist -name '*.ts'")))[0]


def test_a_relative_link_asked_for_in_turkish_lands_on_its_request(cli, sandbox_home):
    # "Tam adres yazma; ... `../guides/setup.md` gibi göreli bir bağlantı olsun." after an answer
    # linking https://docs.example.com/guides/setup.html: the path names the page the link did
    tasks = harvested(cli, sandbox_home, CHECKS_EIGHTH)
    assert not [i for i in tasks if i.startswith("Tam adres")]
    task = tasks["Kurulum rehberine bir bağlantı ekle."]
    assert "correction" in [n.kind for n in task.turns]
    assert "contains '../guides/setup.md'" in mined(task)
    full = "[Kurulum](https://docs.example.com/guides/setup.html)"
    _text_holds(task, "[Kurulum](../guides/setup.md)", full)


def test_a_phrase_of_the_answer_refused_after_please_lands_on_its_request(cli, sandbox_home):
    # 'Please, no "we're sorry for any inconvenience" - it reads like a form letter. ...' after
    # an answer opening "We're sorry for any inconvenience": refused in any case
    tasks = harvested(cli, sandbox_home, CHECKS_EIGHTH)
    assert not [i for i in tasks if i.startswith("Please, no")]
    task = tasks["Write the status page update for this morning's search outage."]
    assert mined(task) == ['not_contains "we\'re sorry for any inconvenience"']
    _text_holds(task, _STATUS, _STATUS_BAD)


def test_a_channel_named_against_after_a_slash_command_lands_on_its_request(cli, sandbox_home):
    # "It's a public post: nothing about #eng-internal or any other Slack channel in it." after
    # /announce 3.1 thanked #eng-internal
    tasks = harvested(cli, sandbox_home, CHECKS_EIGHTH)
    assert not [i for i in tasks if i.startswith("It's a public post")]
    task = tasks["/announce 3.1"]
    assert mined(task) == ["not_contains '#eng-internal'"]
    good = "Release 3.1 is out! Thanks to everyone who tested the betas."
    _text_holds(task, good, "Release 3.1 is out! Thanks to everyone in #eng-internal.")


def test_words_the_attempt_wrote_that_the_correction_says_fail_leave_the_file(cli, sandbox_home):
    # "CI runs `npm run lint:strict`, which fails on any eslint-disable, so remove the unused
    # import from `src/cart.ts` instead of silencing it."
    task = harvested(cli, sandbox_home, CHECKS_EIGHTH)["Make the linter pass on the cart module."]
    assert mined(task) == ["src/cart.ts never contains 'eslint-disable' afterwards"]
    silenced = "// eslint-disable-next-line no-unused-vars\nimport { sum } from './math';\n"
    _actions_pass(
        task,
        _acts(writes=(("src/cart.ts", "export const cart: string[] = [];\n"),)),
        _acts(writes=(("src/cart.ts", silenced),)),
    )


def test_a_construct_a_rule_bans_is_forbidden(cli, sandbox_home):
    # "Nope." then "The style guide bans exclamation marks in UI copy, not even one after 'Oops'."
    task = harvested(cli, sandbox_home, CHECKS_EIGHTH)["Write the text for the 404 page."]
    assert "not_contains '!'" in mined(task)
    good = "We can't find that page. Check the address or go back to the home page."
    _text_holds(task, good, "Oops! We can't find that page.")


def test_a_count_of_bullets_said_with_just_lands_on_its_request(cli, sandbox_home):
    # "Just two bullet points." after a summary of five bullets (the fresh set)
    tasks = harvested(cli, sandbox_home, FRESH)
    assert "Just two bullet points." not in tasks
    task = tasks["Summarise the changelog."]
    assert "correction" in [n.kind for n in task.turns]
    good = "- New CLI and faster nights\n- Better reports and docs"
    _text_holds(task, good, "- New CLI\n- Faster nights\n- Better reports\n- Fewer dependencies")


def test_hashtags_refused_are_a_construct(cli, sandbox_home):
    # "No hashtags." after "Release 3.1 is out with faster nights #python #release"
    task = harvested(cli, sandbox_home, FRESH)["Draft the release tweet."]
    assert "no hashtags" in mined(task)
    _text_holds(task, "Release 3.1 is out with faster nights.", "Out now #python #release")


def test_a_word_of_the_answers_command_named_against_is_refused(cli, sandbox_home):
    # "We never tell users to run sudo in our docs." after "sudo pip install acme-cli"
    tasks = harvested(cli, sandbox_home, CHECKS_THIRD)
    assert "We never tell users to run sudo in our docs." not in tasks
    task = tasks["Write the install snippet for the docs."]
    assert mined(task) == ["not_contains 'sudo'"]
    _text_holds(task, "pip install --user acme-cli", "sudo pip install acme-cli")


def test_a_runner_on_the_whole_tree_kept_to_one_folder_runs_there(cli, sandbox_home):
    # "Stop running the whole suite every time, only tests/unit please." after python -m pytest
    task = harvested(cli, sandbox_home, FRESH)["Run the tests."]
    assert mined(task) == ["runs python -m pytest tests/unit"]
    _actions_pass(
        task,
        _acts("python -m pytest tests/unit 2>&1 | tail -1"),
        _acts("python -m pytest 2>&1 | tail -1"),
    )


def test_only_the_link_asked_for_lands_on_its_request(cli, sandbox_home):
    # "Only the URL, nothing else." after "The base URL is http://localhost:8000/api/v1, ..."
    tasks = harvested(cli, sandbox_home, FRESH)
    assert "Only the URL, nothing else." not in tasks
    task = tasks["Give me the API base URL."]
    assert mined(task) == ["the answer is a link and nothing else"]
    said = "The base URL is http://localhost:8000/api/v1, as set in the config."
    _text_holds(task, "http://localhost:8000/api/v1", said)


def test_capitals_refused_in_german_words_land_on_their_request(cli, sandbox_home):
    # "Nicht alles in Großbuchstaben bitte." after "RELEASE 3.1 IST DA"
    tasks = harvested(cli, sandbox_home, FRESH)
    assert "Nicht alles in Großbuchstaben bitte." not in tasks
    task = tasks["Schreib den Betreff für die Release-Mail."]
    assert mined(task) == ["no words in capitals"]
    _text_holds(task, "Release 3.1 ist da", "RELEASE 3.1 IST DA")


def test_nowhere_else_keeps_the_search_to_the_folder_named(cli, sandbox_home):
    # "Look under `services/billing/` and nowhere else, ..." after grep -rn card_number .
    task = harvested(cli, sandbox_home, CHECKS_FIFTH)["Where do we log card numbers?"]
    assert mined(task) == ["runs grep -rn card_number services/billing"]
    _actions_pass(
        task,
        _acts("grep -rn card_number services/billing/ 2>&1 | head -5"),
        _acts("grep -rn card_number . 2>&1 | head -5"),
    )


def test_a_file_named_by_its_stem_alone_against_is_never_read(cli, sandbox_home):
    # "In prod it loads `config/production.yaml`, not the dev one; read that." after
    # cat config/dev.yaml
    task = harvested(cli, sandbox_home, CHECKS_FOURTH)["Show me the config the app loads."]
    assert "never reads config/dev.yaml" in mined(task)
    _actions_pass(
        task,
        [*_acts("cat config/production.yaml"), Action(kind="read", path="config/production.yaml")],
        [*_acts("cat config/dev.yaml"), Action(kind="read", path="config/dev.yaml")],
    )


def test_why_an_action_the_attempt_did_is_a_correction(cli, sandbox_home):
    # "Why read the system file? The one we deploy is `deploy/nginx.conf` in the repo."
    tasks = harvested(cli, sandbox_home, CHECKS_THIRD)
    assert not [i for i in tasks if i.startswith("Why read")]
    task = tasks["Look at the nginx config and tell me the upstream port."]
    assert "correction" in [n.kind for n in task.turns]
    # the file named in the place of the attempt's own, of the same name: read that one instead
    assert mined(task) == ["runs cat deploy/nginx.conf", "never runs cat /etc/nginx/nginx.conf"]
    _actions_pass(
        task,
        _acts("cat deploy/nginx.conf 2>&1 | head -20"),
        _acts("cat /etc/nginx/nginx.conf 2>&1 | head -20"),
    )


def test_run_it_as_a_command_corrects_how_the_attempt_ran(cli, sandbox_home):
    # "Run it as `mypy --strict src/`; the top level picks up the generated stubs." after mypy .
    task = harvested(cli, sandbox_home, CHECKS_FOURTH)["Check the types."]
    assert "correction" in [n.kind for n in task.turns]
    assert "runs mypy --strict src/" in mined(task)
    _actions_pass(task, _acts("mypy --strict src/ 2>&1 | tail -1"), _acts("mypy . 2>&1 | tail -1"))
