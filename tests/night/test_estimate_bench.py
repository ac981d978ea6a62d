"""bench/estimate.py: run --estimate against the nights of the learning world, end to end."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "estimate.py"


def test_the_estimate_bench_prints_estimate_and_bound_against_each_nights_calls(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("estimate_bench", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)  # type: ignore[union-attr]
    bench.main(["--seeds", "1", "--nights", "2", "--json", "--workdir", str(tmp_path)])
    result = json.loads(capsys.readouterr().out)
    assert result["nights"] == 2 and len(result["rows"]) == 2
    for row in result["rows"]:
        assert row["actual"] > 0 and 0 < row["expected"] <= row["bound"]
        assert (
            row["bound"] >= row["actual"]
        )  # the most a night can spend is never below what it spent
        assert row["gate_actual"] > 0
    # the old estimate took every test to its full course: far above what the nights spent
    assert result["old_over_actual"] > result["expected_over_actual"]
