"""A model with no price is a notice, not skipped work: the night's calls all ran, only their
money is unknown. Before, the night said "skipped: cost unknown for models ..." on a night that
skipped nothing, and ``run --estimate`` said "within the budget" above "no price known"."""

from __future__ import annotations

from tests.night.test_unpriced_model import dry_run
from tests.night.test_unpriced_model import project as project
from tests.night.test_unpriced_model import server as server

NOTE = (
    'cost unknown for models stub-model: add [budget.prices."stub-model"] input = ..., '
    "output = ... (USD per million tokens) to the config"
)


def test_the_missing_price_is_a_note_of_the_night_and_nothing_is_skipped(cli, project, server):
    r = dry_run(cli, project, server)
    assert r.code == 0, r.err
    assert f"note: {NOTE}" in r.out.splitlines()
    assert not [line for line in r.out.splitlines() if line.startswith("skipped:")]
    night = cli("status", "--project", str(project), "--json").json()["nights"][0]
    assert night["skipped"] == [] and NOTE in night["notes"]


def test_the_estimate_says_the_money_is_unknown_and_only_calls_and_tokens_fit(cli, project, server):
    flags = ("--backend", "anthropic", "--model", "stub-model", "--base-url", server.url)
    env = {"ANTHROPIC_API_KEY": "sk-ant-test"}
    est = cli("run", "--project", str(project), *flags, "--estimate", env=env)
    assert est.code == 0, est.err
    head = est.out.splitlines()[0]
    assert head.endswith("tokens; calls and tokens within the budget; its cost is unknown"), head
    assert "no price known for stub-model" in est.out
    priced = '[budget.prices."stub-model"]\ninput = 1.0\noutput = 2.0\n'
    (project / ".skillopt-sleep.toml").write_text(priced)
    est = cli("run", "--project", str(project), *flags, "--estimate", env=env)
    assert est.out.splitlines()[0].endswith("tokens; within the budget"), est.out
