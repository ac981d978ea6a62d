"""The benchmarks' --night settings: they reach the product's gate alone, and a wrong one is
refused in one line naming it, as a config file's would be."""

from __future__ import annotations

import pytest

from bench import gate_noise, learning
from bench.holdout_gate import GatePolicy
from skillopt_sleep.settings import NightSettings


def test_night_settings_reach_the_learning_benchmarks_edit_mode_alone():
    ran, _ = learning.modes({"harm_odds": 8.0})
    by_name = {m.name: m.night for m in ran}
    assert by_name["edit"] == {"harm_odds": 8.0}
    assert by_name["edit-classic"] == {}


def test_night_settings_reach_the_sparse_cases_edit_gate_alone(sparse_default):
    default = sparse_default["gates"]  # measure_sparse(40, 12, 4, 0, GatePolicy())
    cheap = gate_noise.measure_sparse(40, 12, 4, 0, GatePolicy(), NightSettings(harm_odds=1000))[
        "gates"
    ]
    assert cheap["edit"]["rollouts_per_night"] < default["edit"]["rollouts_per_night"]
    assert cheap["edit-classic"] == default["edit-classic"]
    assert cheap["holdout"] == default["holdout"]


@pytest.mark.parametrize("main", [learning.main, gate_noise.main], ids=["learning", "gate_noise"])
@pytest.mark.parametrize(
    ("arg", "said"),
    [
        ("harm_odds=0.5", "--night harm_odds: Input should be greater than 1"),
        ("harm_odds", "--night 'harm_odds': expected KEY=VALUE with a [night] setting as KEY"),
        ("no_such=1", "--night 'no_such=1': expected KEY=VALUE"),
    ],
)
def test_a_wrong_night_setting_is_refused_in_one_line_naming_it(main, arg, said, capsys, tmp_path):
    argv = ["--night", arg] + (["--workdir", str(tmp_path)] if main is learning.main else [])
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    assert said in capsys.readouterr().err
