"""What still contradicted or missed the user on the ninth and tenth labelled sets (sessions
recorded with the real claude and codex), harvested through the CLI, each check read as ``tasks
show`` words it and judged on the user's own example. One principle each, whatever the language:
a path the attempt carries only inside a full URL is the relative path asked for; a word that
differs from the attempt's only by a sentence's capital is refused, not asked for in its other
case; a command as a shell reads one (``: > file``) is the user's example; a dash ends a clause;
a command said against that opens the attempt's own is forbidden whole; spans named as one list
play one part, and two lists of one length name each other's spans in order; an interjection
hides no correction ("Hmm, close but no."); a span of the attempt named after one it lacks is how
the asked-for one is to be; a turn quoting a command the attempt ran (or a flag alone, after an
attempt that only ran commands) speaks of that attempt, and a command it ran kept with "only" is
the example; a span negated only after it, when the attempt carries nothing quoted, is asked
for; a file named after an attempt that changed others is one to change too."""

from __future__ import annotations

import pytest

from skillopt_sleep.checks.action_judge import action_check, recorded
from skillopt_sleep.harvest.held_text import held_text_checks
from skillopt_sleep.models import Action

from .check_conversations_ninth import _DIGEST, _LINK, CHECKS_NINTH
from .check_conversations_tenth import (
    _DOC,
    _DOC_BAD,
    _HELM,
    _REPLY,
    _REPLY_BAD,
    _TROUBLE,
    _TROUBLE_BAD,
    CHECKS_TENTH,
)
from .recorded_harvest import harvested, mined
from .test_held_eighth import _actions_pass, _text_holds


def _acts(*commands: str) -> list[Action]:
    return [Action(kind="command", command=c, exit_code=0) for c in commands]


def test_a_relative_path_the_attempt_has_only_inside_its_full_url_is_asked_for(cli, sandbox_home):
    # "Đừng dùng URL đầy đủ ... Chỉ dùng đường dẫn tương đối `docs/install.md` thôi."
    task = harvested(cli, sandbox_home, CHECKS_NINTH)[
        "Thêm liên kết tới trang hướng dẫn cài đặt vào README."
    ]
    checks = mined(task)
    assert "not_contains 'docs/install.md'" not in checks
    assert "links are relative (no http(s) link)" in checks
    bad = "[Hướng dẫn cài đặt](https://github.com/acme/tram/blob/main/docs/install.md)"
    _text_holds(task, _LINK, bad)


def test_a_word_refused_at_the_start_of_a_sentence_is_never_asked_for(cli, sandbox_home):
    # "Прибери емодзі й слово «терміново»" after "🚀 Терміново: ..."
    task = harvested(cli, sandbox_home, CHECKS_NINTH)["/digest реліз 4.0 і оплати"]
    checks = mined(task)
    assert "contains 'терміново'" not in checks
    assert "not_contains 'Терміново'" in checks
    _text_holds(task, _DIGEST, "🚀 Терміново: реліз 4.0 переноситься на вівторок!")


def test_the_users_own_no_op_redirection_is_their_example(cli, sandbox_home):
    # "Never delete `logs/worker.log` ... Empty it in place with `: > logs/worker.log`."
    task = harvested(cli, sandbox_home, CHECKS_NINTH)["The worker log is huge, get rid of it."]
    checks = mined(task)
    assert "never runs logs/worker.log" not in checks
    assert "runs : > logs/worker.log" in checks
    _actions_pass(task, _acts(": > logs/worker.log"), _acts("rm logs/worker.log"))


def test_only_after_a_dash_keeps_the_listing_to_what_follows_it(cli, sandbox_home):
    # "Udelad `.venv/` og `build/` — jeg vil kun se det, der ligger under `app/`."
    task = harvested(cli, sandbox_home, CHECKS_NINTH)["Vis alle Python-filer i projektet."]
    checks = mined(task)
    assert "runs find app -name *.py" in checks
    assert not any(".venv" in c for c in checks if c.startswith("runs "))
    _actions_pass(task, _acts("find app -name '*.py'"), _acts("find . -name '*.py'"))


def test_a_bare_command_said_against_forbids_it_not_each_of_its_words(cli, sandbox_home):
    # "... zawsze przez `helm upgrade ...`, nigdy gołe `kubectl apply`" after kubectl apply -f k8s/
    task = harvested(cli, sandbox_home, CHECKS_TENTH)["/deploy staging"]
    checks = mined(task)
    assert "never runs kubectl" not in checks
    assert "never runs apply" not in checks
    assert "never runs kubectl apply" in checks
    _actions_pass(task, _acts(_HELM), _acts("kubectl apply -f k8s/"))
    never = next(c for c in task.checks if c.kind == "never_ran" and "kubectl" in str(c.value))
    assert action_check(never, recorded(_acts("kubectl get pods")))[0] is True


def test_a_list_of_words_refused_beside_a_list_of_their_replacements(cli, sandbox_home):
    # "Hmm, close but no." / "Our style guide bans “e.g.,” and “i.e.,” in docstrings; write
    # “for example” or “that is” instead." after a docstring with "e.g.,"
    tasks = harvested(cli, sandbox_home, CHECKS_TENTH)
    assert "Hmm, close but no." not in tasks
    task = tasks["Write the docstring for parse_duration."]
    checks = mined(task)
    assert "not_contains 'e.g.,'" in checks
    assert "contains 'e.g.,'" not in checks
    assert "contains 'i.e.,'" not in checks
    assert "contains 'that is'" not in checks
    _text_holds(task, _DOC, _DOC_BAD)


def test_a_span_the_attempt_has_named_after_the_heading_asked_for_is_kept(cli, sandbox_home):
    # "These go under the `## Troubleshooting` heading as `###` subsections, ..." after an
    # answer with a ### heading and no ## Troubleshooting
    task = harvested(cli, sandbox_home, CHECKS_TENTH)[
        "Write a README section about the 'port already in use' error."
    ]
    checks = mined(task)
    assert "not_contains '###'" not in checks
    assert "heading 'Troubleshooting'" in checks
    _text_holds(task, _TROUBLE, _TROUBLE_BAD)


def test_a_turn_quoting_the_commands_the_attempt_ran_corrects_it(cli, sandbox_home):
    # "`alembic downgrade base` कभी मत चलाना ... सिर्फ़ `alembic upgrade head` चलाओ।" after
    # alembic downgrade base && alembic upgrade head: the command kept with "only" is the example
    tasks = harvested(cli, sandbox_home, CHECKS_NINTH)
    assert not any(intent.startswith("`alembic downgrade base`") for intent in tasks)
    task = tasks["डेटाबेस को नए schema पर ले आओ।"]
    checks = mined(task)
    assert "never runs alembic downgrade base" in checks
    assert "never runs alembic upgrade head" not in checks
    _actions_pass(
        task, _acts("alembic upgrade head"), _acts("alembic downgrade base && alembic upgrade head")
    )


def test_a_line_asked_for_beside_a_negation_of_something_else_is_asked_for(cli, sandbox_home):
    # "Avsluta alltid med raden `— Lumens supportteam` och inget efter den, ingen PS ..." after
    # a reply that ends otherwise: the attempt carries nothing the correction quotes
    tasks = harvested(cli, sandbox_home, CHECKS_TENTH)
    assert not any(intent.startswith("Avsluta alltid") for intent in tasks)
    task = tasks["Skriv ett svar till kunden som debiterades två gånger."]
    assert "contains '— Lumens supportteam'" in mined(task)
    _text_holds(task, _REPLY, _REPLY_BAD)


@pytest.mark.parametrize(
    ("which", "request_", "path"),
    [
        ("ninth", "Lisää workerin asetuksiin `retry_limit`.", "docs/configuration.md"),
        ("tenth", "Voeg een `--dry-run` vlag toe aan het export-commando.", "docs/cli.md"),
    ],
)
def test_a_file_named_after_an_attempt_that_changed_others_must_change_too(
    cli, sandbox_home, which, request_, path
):
    # "Jokainen uusi asetus kirjataan myös tiedostoon `docs/configuration.md`, ..." and "Elke
    # nieuwe vlag moet ook in `docs/cli.md` beschreven worden, ..." after edits elsewhere
    fixtures = CHECKS_NINTH if which == "ninth" else CHECKS_TENTH
    tasks = harvested(cli, sandbox_home, fixtures)
    assert not any(path in intent for intent in tasks)
    assert f"changes {path}" in mined(tasks[request_])


def test_a_flag_quoted_alone_after_commands_corrects_how_they_ran(cli, sandbox_home):
    # "Aina `--depth 1`, koko historia on kuusi gigaa ..." after git clone without it
    tasks = harvested(cli, sandbox_home, CHECKS_NINTH)
    assert not any(intent.startswith("Aina `--depth 1`") for intent in tasks)
    task = tasks["Kloonaa monorepo kansioon vendor/monorepo."]
    assert "runs git ... --depth" in mined(task)
    clone = "git clone --depth 1 ../mirror/monorepo.git vendor/monorepo"
    _actions_pass(task, _acts(clone), _acts("git clone ../mirror/monorepo.git vendor/monorepo"))


def test_a_span_refused_before_its_words_is_never_asked_for_even_when_the_answer_lacks_it():
    # a reminder: the negation precedes the span, so it is the span that is refused
    checks = held_text_checks(
        "Never say 'Dear valued customer' in replies.", "Hi Anna, thanks for writing.", []
    )
    assert not any(c.kind == "contains" for c in checks)


def test_a_capital_asked_for_is_still_the_point():
    checks = held_text_checks("Write `Monday` with a capital.", "The release is on monday.", [])
    assert ("contains", "Monday", True) in [(c.kind, c.value, c.case_sensitive) for c in checks]
