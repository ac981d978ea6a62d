"""The gates the benchmarks pass in through the night's one ``gate`` (the product's evidence gate,
the classic allocation of :mod:`bench.gates`) decide and spend exactly as they did when the
allocation was a night setting: the sparse case's rates and rollouts, pinned from before."""

from __future__ import annotations

# measure_sparse(40, 12, 4, 0, GatePolicy()) when [night] allocation still chose the classic way;
# the lean gate's since its first look goes on past a tie (0.975 and 75.925 rollouts before: the
# extra look on a tie costs the no-effect nights rollouts, and the draws that follow shift)
BEFORE = {
    "edit": {
        "false_accept_rate": 0.0,
        "harmful_accept_rate": 0.0,
        "meets_targets": True,
        "power": 0.95,
        "rollouts_per_night": 84.925,
        "rollouts_vs_edit_classic": 0.673,
    },
    "edit-classic": {
        "false_accept_rate": 0.025,
        "harmful_accept_rate": 0.0,
        "meets_targets": True,
        "power": 0.925,
        "rollouts_per_night": 126.1,
        "rollouts_vs_edit_classic": 1.0,
    },
    "holdout": {
        "false_accept_rate": 0.025,
        "harmful_accept_rate": 0.0,
        "meets_targets": False,
        "power": 0.15,
        "rollouts_per_night": 96,
        "rollouts_vs_edit_classic": 0.761,
    },
}


def test_the_gates_passed_in_decide_and_spend_as_the_allocation_settings_did(sparse_default):
    assert sparse_default["gates"] == BEFORE  # measure_sparse(40, 12, 4, 0, GatePolicy())
