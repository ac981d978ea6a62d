"""A setting's value is of its type or refused, in one line naming where it was written: a TOML
file's ``true`` is no number and its ``"5"`` no number either, while an environment variable,
text by nature, is read as a number where its text is one (but ``true`` is still no number).
What the README and the starter config show loads as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _user_config(sandbox_home: Path, text: str) -> Path:
    path = sandbox_home / "sleep-home" / "config" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("toml", "dotted", "shown", "kind"),
    [
        ("[night]\nk = true\n", "night.k", "True", "integer"),
        ("[night]\nauto_adopt = 1\n", "night.auto_adopt", "1", "boolean"),
        ('[budget]\nmax_cost_usd = "5"\n', "budget.max_cost_usd", "'5'", "number"),
        ("[budget]\nmax_cost_usd = false\n", "budget.max_cost_usd", "False", "number"),
        ('[harvest]\nlookback_days = "7"\n', "harvest.lookback_days", "'7'", "integer"),
        ("[roles.target]\nmodel = 5\n", "roles.target.model", "5", "string"),
    ],
)
def test_a_value_of_the_wrong_type_in_the_config_file_is_refused_naming_the_file(
    cli, sandbox_home, tmp_path, toml, dotted, shown, kind
):
    path = _user_config(sandbox_home, toml)
    for argv in (("config", "show"), ("run", "--project", str(tmp_path))):
        r = cli(*argv)
        assert r.code == 3, (argv, r.err)
        assert r.err.splitlines()[-1] == (
            f"skillopt-sleep: error: invalid setting {dotted} = {shown} from {path}: "
            f"Input should be a valid {kind} (fix it in {path})"
        )


def test_an_environment_variable_reads_as_a_number_where_its_text_is_one(cli):
    r = cli(
        "config",
        "show",
        "--json",
        env={
            "SKILLOPT_SLEEP_NIGHT__K": "2",
            "SKILLOPT_SLEEP_BUDGET__MAX_COST_USD": "5",
            "SKILLOPT_SLEEP_NIGHT__UNSEEN_ALPHA": "1e-9",
            "SKILLOPT_SLEEP_NIGHT__AUTO_ADOPT": "true",
            "SKILLOPT_SLEEP_BUDGET__PRICES": '{"m": {"input": 3, "output": 15}}',
        },
    )
    assert r.code == 0, r.err
    shown = r.json()["settings"]
    assert shown["night.k"] == {"value": 2, "source": "env SKILLOPT_SLEEP_NIGHT__K"}
    assert shown["budget.max_cost_usd"]["value"] == 5.0
    assert shown["night.unseen_alpha"]["value"] == 1e-9
    assert shown["night.auto_adopt"]["value"] is True


@pytest.mark.parametrize(
    ("var", "text", "dotted", "kind"),
    [
        ("SKILLOPT_SLEEP_NIGHT__K", "true", "night.k", "integer"),
        ("SKILLOPT_SLEEP_NIGHT__K", "2.5", "night.k", "integer"),
        ("SKILLOPT_SLEEP_BUDGET__MAX_COST_USD", "false", "budget.max_cost_usd", "number"),
        ("SKILLOPT_SLEEP_NIGHT__AUTO_ADOPT", "sometimes", "night.auto_adopt", "boolean"),
    ],
)
def test_an_environment_variable_that_is_no_value_of_its_type_is_refused_naming_it(
    cli, var, text, dotted, kind
):
    r = cli("config", "show", env={var: text})
    assert r.code == 3, r.err
    assert r.err.splitlines()[-1] == (
        f"skillopt-sleep: error: invalid setting {dotted} = {text!r} from the environment: "
        f"Input should be a valid {kind} (fix or unset {var})"
    )


def test_the_readme_config_example_loads_as_written(cli, sandbox_home):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", readme, re.S)
    assert blocks, "the README shows a config example"
    for block in blocks:
        path = _user_config(sandbox_home, block)
        r = cli("config", "show", "--json")
        assert r.code == 0, (block, r.err)
        assert r.json()["settings"]["night.k"]["source"] == f"user ({path})"


def test_every_line_of_the_starter_config_uncommented_loads(cli, sandbox_home):
    assert cli("config", "init").code == 0
    (sandbox_home / "my-prompts").mkdir()  # the example [night] prompts names a directory
    path = sandbox_home / "sleep-home" / "config" / "config.toml"
    # every commented `# key = value` line set at once: each shows its default in its own type
    lines = [re.sub(r"^# (\w+ = )", r"\1", line) for line in path.read_text().splitlines()]
    path.write_text("\n".join(lines) + "\n")
    r = cli("config", "show")
    assert r.code == 0, r.err


def test_a_setting_under_its_other_name_is_shown_under_its_own(cli, sandbox_home):
    path = _user_config(sandbox_home, "[train]\nnum_epochs = 3\n")
    r = cli("config", "show", "--json")
    assert r.code == 0, r.err
    assert r.json()["settings"]["train.epochs"] == {"value": 3, "source": f"user ({path})"}
    assert "train.num_epochs" not in r.json()["settings"]
    _user_config(sandbox_home, "[train]\nnum_epochs = true\n")
    r = cli("config", "show")
    assert r.code == 3 and r.err.splitlines()[-1] == (
        f"skillopt-sleep: error: invalid setting train.num_epochs = True from {path}: "
        f"Input should be a valid integer (fix it in {path})"
    )
