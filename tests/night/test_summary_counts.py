"""The night's summary says how its harm checks were run: how many on a sample of the other tasks."""

from __future__ import annotations


def test_a_harm_check_on_a_sample_of_the_other_tasks_is_counted_in_the_json(cli, tmp_path):
    # a first harm look of 8 rollouts a side needs fewer tasks than the demo's 15 others
    small = {"SKILLOPT_SLEEP_NIGHT__HARM_ROLLOUTS": "8"}
    sampled = cli("demo", "--dir", str(tmp_path / "a"), "--json", env=small).json()
    assert sampled["harm_sampled"] == 1
    # each kind on the tasks its own test needs: all of a small kind's, at more rollouts a task
    assert 0 < len(sampled["evidence"][0]["harm_tasks"]) <= 15
    whole = cli("demo", "--dir", str(tmp_path / "b"), "--json").json()
    assert whole["harm_sampled"] == 0 and len(whole["evidence"][0]["harm_tasks"]) == 15
