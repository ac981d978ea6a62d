"""The learning bench's calls against its floor: both averaged over the same nights."""

from __future__ import annotations

from bench.learning import NightRecord, RunRecord, metrics


def _night(calls: int, floor: tuple[int, int] | None, guarded: int | None) -> NightRecord:
    return NightRecord([], {}, {}, calls, "accept", floor=floor, guarded=guarded)


def test_a_night_the_gate_had_nothing_to_test_on_is_its_own_floor():
    # one night the gate ran (300 calls, powered floor 150, guarded 200), one it had nothing to
    # test on (50 calls, the replay and the optimizer's): no allocation spends less than those 50
    run = RunRecord(0, "edit", 0.2, 0.3, [_night(300, (100, 150), 200), _night(50, None, None)])
    run.quality = [0.3, 0.3]
    m = metrics([run])
    assert m["floor_per_night"] == {
        "perfect": 75.0,
        "powered": 100.0,
        "guarded": 125.0,
        "kinds": 125.0,  # no harm check sampled: no per-kind tests
    }
    assert m["floor_ratio"] == 1.75  # 175 calls a night against 100, not against 150
    assert m["floor_ratio_guarded"] == 1.4


def test_a_mode_without_a_gate_has_no_floor():
    run = RunRecord(0, "oracle", 0.2, 0.3, [_night(60, None, None)])
    run.quality = [0.3]
    m = metrics([run])
    assert m["floor_ratio"] is None and m["floor_per_night"] == {}
