"""The night-scale benchmark runs both gates at each size in one run, and prints the ratio of calls
of its largest nights to its smallest; a night large enough for a reserve reuses before sides."""

from __future__ import annotations

import json

import pytest

from bench import night_scale


def test_one_run_reports_each_gate_and_size_and_the_ratio(tmp_path, capsys):
    night_scale.main(
        ["--seeds", "1", "--nights", "1", "--sizes", "10,60", "--workdir", str(tmp_path), "--json"]
    )
    out = json.loads(capsys.readouterr().out)
    reuse, fresh = out["gates"]["reuse"], out["gates"]["fresh"]
    assert reuse["ratio"]["of"] == "60 vs 10 tasks" and reuse["ratio"]["target"] == 4.0
    assert reuse["10"]["before_reused_per_night"] == 0  # a small night sets nothing aside
    assert reuse["60"]["before_reused_per_night"] > 0
    assert fresh["60"]["before_reused_per_night"] == 0  # the baseline draws every before side


def test_a_size_that_is_no_number_is_refused_in_one_line(capsys):
    with pytest.raises(SystemExit) as exit_:
        night_scale.main(["--sizes", "10,many"])
    assert exit_.value.code == 2
    assert "--sizes takes whole numbers" in capsys.readouterr().err
