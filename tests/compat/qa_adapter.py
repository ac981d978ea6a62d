"""A SkillOpt EnvAdapter as SkillOpt's template writes one (envs/_template/env_template.py),
filled in for the shipped QA set; only its import lines name skillopt_sleep.compat."""

from __future__ import annotations

import json
from importlib import resources

from skillopt_sleep.compat import EnvAdapter, chat_target

NUMBERS = {
    "eight",
    "seven",
    "six",
    "eleven",
    "twelve",
    "sixty",
    "twenty-four",
    "eighty-eight",
    "ninety",
    "one hundred",
    "two",
}


class QALoader:
    """A dataloader holding the three splits (what the template's loader keeps)."""

    def __init__(self) -> None:
        text = (resources.files("skillopt_sleep") / "sample" / "qa.jsonl").read_text()
        items = [json.loads(line) for line in text.splitlines() if line.strip()]
        self.train_items = [i for i in items if i["split"] == "train"]
        self.val_items = [i for i in items if i["split"] == "val"]
        self.test_items = [i for i in items if i["split"] == "test"]


class QAAdapter(EnvAdapter):
    def __init__(self) -> None:
        self.dataloader = QALoader()
        self.reflected = 0

    def get_dataloader(self):
        return self.dataloader

    def build_train_env(self, batch_size: int, seed: int, **kwargs):
        return self.dataloader.train_items[:batch_size]

    def build_eval_env(self, env_num: int, split: str, seed: int, **kwargs):
        return getattr(self.dataloader, f"{split}_items")[:env_num]

    def rollout(self, env_manager, skill_content: str, out_dir: str, **kwargs) -> list[dict]:
        results = []
        for item in env_manager:
            text, _ = chat_target(
                skill_content, f"Question: {item['question']}", max_completion_tokens=256
            )
            said = text.strip().rstrip(".").lower()
            refs = [a.lower() for a in item["answers"]]
            hard = int(said in refs)
            results.append(
                {
                    "id": str(item["id"]),
                    "hard": hard,
                    "soft": 1.0 if hard else float(any(r in said for r in refs)) * 0.5,
                    "predicted_answer": text,
                    "question": item["question"],
                    "task_type": item["task_type"],
                    "fail_reason": "" if hard else "not the expected answer",
                }
            )
        return results

    def reflect(self, results, skill_content, out_dir, **kwargs):
        """The environment's own analysis: a spelled-out number is a habit to correct."""
        self.reflected += 1
        spelled = [r for r in results if any(n in r["predicted_answer"].lower() for n in NUMBERS)]
        if not spelled:
            return []
        edit = {"op": "append", "content": "Write numbers as digits (8, not eight)."}
        return [
            {
                "patch": {"edits": [edit], "reasoning": "numbers spelled out"},
                "source_type": "failure",
                "batch_size": len(spelled),
            }
        ]

    def get_task_types(self) -> list[str]:
        return ["capital", "count", "general"]
