"""The gate_noise benchmark meets its targets and prints what it promises."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "gate_noise.py"


def load_bench():
    spec = importlib.util.spec_from_file_location("gate_noise", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gate_noise_json_over_200_nights(capsys):
    bench = load_bench()
    code = bench.main(["--nights", "200", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert result["nights"] == 200
    assert result["false_accept_rate"] <= 0.05
    assert result["power"] >= 0.80
    # the strict mean comparison on the same noise accepts far more often
    assert result["baseline_false_accept_rate"] > 0.3
    assert code == 0 and result["meets_targets"] is True


def mean_gain(bench, gain: float) -> float:
    rng = random.Random(0)
    diffs = []
    for _ in range(300):
        before, after = bench.simulate_night(rng, tasks=12, k=4, gain=gain)
        b = [s for v in before.values() for s in v if s is not None]
        a = [s for v in after.values() for s in v if s is not None]
        diffs.append(sum(a) / len(a) - sum(b) / len(b))
    return sum(diffs) / len(diffs)


def test_simulated_nights_have_the_true_effect_they_claim():
    bench = load_bench()
    assert abs(mean_gain(bench, 0.0)) < 0.01
    assert abs(mean_gain(bench, 0.15) - 0.15) < 0.01
