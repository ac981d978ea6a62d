"""The learning benchmark's command line: the edit mode's settings, checked as a config would be."""

from __future__ import annotations

import pytest
from learning import main, modes


def test_night_settings_reach_the_edit_mode_alone():
    ran, _ = modes({"harm_odds": 8.0})
    by_name = {m.name: m.night for m in ran}
    assert by_name["edit"] == {"harm_odds": 8.0}
    assert by_name["edit-classic"] == {"allocation": "classic"}


@pytest.mark.parametrize(
    ("arg", "said"),
    [
        ("harm_odds=0.5", "--night harm_odds: Input should be greater than 1"),
        ("harm_odds", "--night 'harm_odds': expected KEY=VALUE with a [night] setting as KEY"),
        ("no_such=1", "--night 'no_such=1': expected KEY=VALUE"),
    ],
)
def test_a_wrong_night_setting_is_refused_in_one_line_naming_it(arg, said, capsys, tmp_path):
    with pytest.raises(SystemExit) as stop:
        main(["--night", arg, "--workdir", str(tmp_path)])
    assert stop.value.code == 2
    assert said in capsys.readouterr().err
