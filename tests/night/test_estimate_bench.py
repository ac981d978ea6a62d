"""bench/estimate.py: run --estimate against the nights of the learning world, end to end."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "estimate.py"


def test_the_estimate_bench_prints_the_error_by_project_size_and_each_nights_bound(
    tmp_path, capsys
):
    spec = importlib.util.spec_from_file_location("estimate_bench", BENCH)
    bench = importlib.util.module_from_spec(spec)
    sys.modules["estimate_bench"] = bench  # its dataclasses look their module up
    spec.loader.exec_module(bench)  # type: ignore[union-attr]
    argv = ["--seeds", "1", "--nights", "2", "--projects", "2x1,10x8", "--json"]
    bench.main([*argv, "--workdir", str(tmp_path)])
    result = json.loads(capsys.readouterr().out)
    assert result["nights"] == 4 and len(result["rows"]) == 4
    assert set(result["by_project"]) == {"2x1", "10x8"}
    for row in result["rows"]:
        assert (
            row["bound"] >= row["actual"]
        )  # the most a night can spend is never below what it spent
        assert row["expected"] <= row["bound"] and row["before"] > 0
        assert row["if_proven"] is not None or row["if_not"] is not None
    assert result["above_bound"] == 0 and result["calls_error"] is not None
    assert 0 <= result["calls_within_goal"] <= 1 and result["calls_error_median"] is not None
    split = result["decomposition"]
    # the error splits into the nights whose way was bet wrong and the cost within the way
    assert split["mean_of_way_wrong"] + split["mean_of_way_right"] == pytest.approx(
        result["calls_error"], abs=0.002
    )
    assert 0 <= split["way_accuracy"]["estimate"] <= 1 and split["way_oracle"]["mean"] is not None


def test_the_estimate_bench_refuses_a_project_size_it_cannot_read_in_one_line(capsys):
    spec = importlib.util.spec_from_file_location("estimate_bench", BENCH)
    bench = importlib.util.module_from_spec(spec)
    sys.modules["estimate_bench"] = bench  # its dataclasses look their module up
    spec.loader.exec_module(bench)  # type: ignore[union-attr]
    try:
        bench.main(["--projects", "3by1"])
    except SystemExit as exc:
        assert exc.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "'3by1': give TASKSxKINDS[,...], e.g. 1x1,5x3" in err
