"""A SkillOpt adapter that ships its own failure analyst's prompt, as SkillOpt's benchmarks do
(``prompts/analyst_error.md`` beside its module, in SkillOpt's reply format)."""

from __future__ import annotations

from skillopt_sleep.compat import EnvAdapter

RULE = "Open every answer with the word READY."


class PromptedAdapter(EnvAdapter):
    def __init__(self) -> None:
        self.items = {
            split: [{"id": f"{split}{i}", "question": f"Question {i}?"} for i in range(n)]
            for split, n in (("train", 6), ("val", 4), ("test", 2))
        }

    def build_train_env(self, batch_size: int, seed: int, **kwargs):
        return self.items["train"][:batch_size]

    def build_eval_env(self, env_num: int, split: str, seed: int, **kwargs):
        return self.items[split][:env_num]

    def rollout(self, env_manager, skill_content: str, out_dir: str, **kwargs) -> list[dict]:
        hard = int(RULE in skill_content)
        return [
            {"id": i["id"], "hard": hard, "soft": float(hard), "fail_reason": "no READY"}
            for i in env_manager
        ]

    def get_task_types(self) -> list[str]:
        return []
