"""Fixtures of the benchmark tests: a measurement two test files compare against runs once."""

from __future__ import annotations

import pytest

from bench import gate_noise
from bench.holdout_gate import GatePolicy


@pytest.fixture(scope="session")
def sparse_default() -> gate_noise.Sparse:
    """gate_noise's sparse case over 40 nights (12 tasks, K=4, seed 0) with the default policy
    and night settings. It is seeded, so one measurement serves the test that pins its numbers
    and the test that compares other settings with it; each costs seconds of CPU."""
    return gate_noise.measure_sparse(40, 12, 4, 0, GatePolicy())
