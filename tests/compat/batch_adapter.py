"""A SkillOpt EnvAdapter shaped as SkillOpt's own benchmarks are (docvqa, officeqa): a dataloader
of three splits, and a batch ``rollout`` whose helper answers the items in its own worker threads
and returns the rows as they finish; only its import line names skillopt_sleep.compat."""

from __future__ import annotations

import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from importlib import resources

from skillopt_sleep.compat import EnvAdapter, chat_target


class QALoader:
    def __init__(self) -> None:
        text = (resources.files("skillopt_sleep") / "sample" / "qa.jsonl").read_text()
        items = [json.loads(line) for line in text.splitlines() if line.strip()]
        self.train_items = [i for i in items if i["split"] == "train"]
        self.val_items = [i for i in items if i["split"] == "val"]
        self.test_items = [i for i in items if i["split"] == "test"]


def run_batch(items: list[dict], out_root: str, skill_content: str, workers: int) -> list[dict]:
    """Every item in a worker thread (as SkillOpt's rollout helpers do), a row each as it ends."""

    def run_one(item: dict) -> dict:
        text, _ = chat_target(skill_content, f"Question: {item['question']}", 256)
        said = text.strip().rstrip(".").lower()
        hard = int(said in [a.lower() for a in item["answers"]])
        pred_dir = os.path.join(out_root, "predictions", str(item["id"]))
        os.makedirs(pred_dir, exist_ok=True)
        with open(os.path.join(pred_dir, "conversation.json"), "w") as f:
            json.dump([{"role": "assistant", "content": text}], f)
        return {
            "id": str(item["id"]),
            "hard": hard,
            "soft": float(hard),
            "predicted_answer": text,
            "task_type": item["task_type"],
            "worker": threading.current_thread().name,
        }

    with ThreadPoolExecutor(max_workers=workers) as ex:
        futures = [ex.submit(run_one, item) for item in items]
        return [f.result() for f in as_completed(futures)]


class BatchAdapter(EnvAdapter):
    batches: list[list[str]] = []  # noqa: RUF012 (every rollout call's item ids, for the test)

    def __init__(self) -> None:
        self.dataloader = QALoader()
        self.workers = 16

    def get_dataloader(self):
        return self.dataloader

    def build_train_env(self, batch_size: int, seed: int, **kwargs):
        return self.dataloader.train_items[:batch_size]

    def build_eval_env(self, env_num: int, split: str, seed: int, **kwargs):
        return getattr(self.dataloader, f"{split}_items")[:env_num]

    def rollout(self, env_manager, skill_content: str, out_dir: str, **kwargs) -> list[dict]:
        items: list[dict] = env_manager
        BatchAdapter.batches.append([str(i["id"]) for i in items])
        return run_batch(items, out_dir, skill_content, self.workers)

    def get_task_types(self) -> list[str]:
        return ["capital", "count", "general"]
