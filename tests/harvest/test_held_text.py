"""The pieces of the generate-and-hold text miner: the spans a correction names, the user's
example built from the attempt, and the checks kept because they fail on the attempt and pass
on that example."""

from __future__ import annotations

from skillopt_sleep.harvest.action_refs import named_command
from skillopt_sleep.harvest.check_miner import candidate_checks, plain
from skillopt_sleep.harvest.held_text import held_text_checks, user_text
from skillopt_sleep.harvest.spans import limits, spans
from skillopt_sleep.models import Action


def _mined(correction: str, attempt: str) -> list[str]:
    return [plain(c) for c in held_text_checks(correction, attempt, [])]


def test_spans_are_quoted_or_salient_with_the_polarity_of_their_clause():
    said = {s.text: s for s in spans("Not 'Data Hub', it's `DataHub`; see https://x.io/a for #12")}
    assert said["Data Hub"].against and not said["DataHub"].against
    assert "https://x.io/a" in said and "#12" in said


def test_a_limit_needs_a_number_a_unit_and_a_word_of_ceiling():
    assert limits("Fünfzig Zeichen höchstens.") == [("chars", 50)]
    assert limits("trois lignes au maximum") == [("lines", 3)]
    assert limits("Add three lines about the cache.") == []


def test_a_reference_shape_is_replaced_everywhere_it_recurs():
    example = user_text("Write `#7` style, 'issue 7' does not link.", "issue 7 and issue 9")
    assert example is not None and example.text == "#7 and #9"


def test_only_checks_that_fail_on_the_attempt_and_pass_on_the_example_are_kept():
    got = _mined("It's `GitHub`; 'Github' is wrong.", "Push it to Github.")
    assert got == ["contains 'GitHub'", "not_contains 'Github'"]
    assert _mined("Keep it under 5 lines at most.", "one line") == []


def test_a_span_shown_as_an_instance_or_kept_is_never_forbidden():
    assert "not_contains 'API_URL'" not in _mined(
        "Put every variable in backticks, like `API_URL`.", "Set API_URL first."
    )
    assert "not_contains 'src/'" not in _mined("Only `src/`, not `vendor/`.", "src/\nvendor/")


def test_an_attempt_that_acted_yields_no_text_check():
    acted = [Action(kind="command", command="ls", exit_code=0)]
    assert held_text_checks("Use `PAY-1`.", "ticket 1", acted) == []


def test_a_command_named_in_any_language_is_found_when_the_attempt_ran_another():
    ran = [Action(kind="command", command="./scripts/e2e.sh", exit_code=0)]
    assert named_command("C'est `make e2e DB=local`, pas le script.", ran) == "make e2e DB=local"
    assert named_command("`./scripts/e2e.sh` a échoué.", ran) is None
    assert named_command("C'est `make e2e`.", []) is None


def test_a_word_to_leave_out_is_left_out_in_any_case_unless_case_is_the_point():
    (free,) = [c for c in candidate_checks("Don't say `simply`.") if c.kind == "not_contains"]
    assert free.case_sensitive is False
    both = candidate_checks("Use `GitHub` instead of Github.")
    assert [c.case_sensitive for c in both if c.kind == "not_contains"] == [True]
