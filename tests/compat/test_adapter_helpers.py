"""The helpers SkillOpt's EnvAdapter gives every adapter, under their names and with their
behaviour: the hidden reference of an item, an outcome-balanced sample of a batch, and the
analysts' prompts looked up beside the adapter first."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from skillopt_sleep.compat import EnvAdapter
from skillopt_sleep.optimize.prompts import shipped

ADAPTER = """
from skillopt_sleep.compat import EnvAdapter


class Adapter(EnvAdapter):
    def build_train_env(self, batch_size, seed, **kw):
        return []

    def build_eval_env(self, env_num, split, seed, **kw):
        return []

    def rollout(self, env_manager, skill_content, out_dir, **kw):
        return []

    def get_task_types(self):
        return []
"""


def adapter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str = "my_adapter"
) -> EnvAdapter:
    (tmp_path / f"{name}.py").write_text(ADAPTER)
    monkeypatch.syspath_prepend(str(tmp_path))
    made: EnvAdapter = importlib.import_module(name).Adapter()
    return made


def test_the_reference_of_an_item_is_its_reference_text_attached_by_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = adapter(tmp_path, monkeypatch, "ref_adapter")
    item = {"id": 7, "question": "q", "reference_text": "  " + "x" * 500 + " "}
    assert env.build_reference_text(item) == "x" * 500
    assert env.get_reference_metadata(item) == {"fields": ["reference_text"], "preview": "x" * 400}
    assert env.get_reference_metadata({"id": 8}) == {"fields": [], "preview": ""}
    rows = [{"id": "7", "hard": 0}, {"id": "9", "hard": 1}]
    got = env.attach_reference_context(rows, [item, {"id": 9}])
    assert got == [{"id": "7", "hard": 0, "reference_text": "x" * 500}, {"id": "9", "hard": 1}]
    assert rows[0] == {"id": "7", "hard": 0}  # the rows given are left as they were
    assert env.attach_reference_context(rows, None) == rows


def test_representative_items_are_failures_then_successes_one_task_type_each_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = adapter(tmp_path, monkeypatch, "pick_adapter")
    items = [{"id": str(i), "task_type": "ab"[i % 2]} for i in range(8)]
    results = [{"id": str(i), "hard": int(i >= 4)} for i in range(8)] + [{"id": "nope"}]
    for seed in range(20):
        got = env.select_representative_items(
            results, items, n_failures=2, n_successes=3, seed=seed
        )
        ids = [int(i["id"]) for i in got]
        assert len(ids) == len(set(ids)) == 5
        assert all(i < 4 for i in ids[:2]) and all(i >= 4 for i in ids[2:])  # failures first
        assert {i % 2 for i in ids[:2]} == {0, 1}  # one failure of each task type
        assert {i % 2 for i in ids[2:4]} == {0, 1}  # then one success of each, then any
        again = env.select_representative_items(
            results, items, n_failures=2, n_successes=3, seed=seed
        )
        assert got == again  # seeded
    assert env.select_representative_items(results, None, n_failures=2, n_successes=2) == []
    none = env.select_representative_items(results, items, n_failures=0, n_successes=0)
    assert none == []


def test_the_analysts_prompts_are_the_adapters_own_files_else_the_generic_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = adapter(tmp_path, monkeypatch, "prompt_adapter")
    assert env.get_error_minibatch_prompt() == shipped("reflect_failure")
    assert env.get_success_minibatch_prompt() == shipped("reflect_success")
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "analyst_error.md").write_text("Find the failures.")
    (tmp_path / "prompts" / "analyst_error_full_rewrite.md").write_text("Rewrite it all.")
    assert env.get_error_minibatch_prompt() == "Find the failures."
    env.setup({"skill_update_mode": "full_rewrite"})
    assert env.get_error_minibatch_prompt() == "Rewrite it all."
    assert env.get_success_minibatch_prompt() == shipped("reflect_success")  # no file of its own
    assert env._env_name == ""  # a module outside skillopt.envs.NAME, as SkillOpt derives it
