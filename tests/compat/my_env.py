"""skillrl's README "Writing your own environment" (section 7), its rollout filled in; only its
import lines name skillopt_sleep.compat."""

from skillopt_sleep.compat import RolloutResult, SkillEnv


class MyEnv(SkillEnv):
    name = "my_env"

    def __init__(self) -> None:
        items = [
            {"id": "a", "question": "How many legs does a spider have?", "answers": ["8"]},
            {"id": "b", "question": "How many continents are there?", "answers": ["7"]},
            {"id": "c", "question": "How many months are in a year?", "answers": ["12"]},
            {"id": "d", "question": "How many hours are in a day?", "answers": ["24"]},
        ]
        self._splits = {"train": items[:2], "val": items[2:3], "test": items[3:]}

    def get_initial_skill(self) -> str:
        return "You are an expert quiz agent."

    def get_items(self, split: str) -> list[dict]:
        return self._splits[split]  # train / val / test

    def rollout_one(self, *, item, skill, target_client) -> RolloutResult:
        text, _ = target_client.chat(system=skill, user=item["question"], stage="rollout")
        hard = int(text.strip() in item["answers"])
        return RolloutResult(
            id=item["id"],
            hard=hard,
            soft=float(hard),
            fail_reason="" if hard else "not the expected answer",
            conversation=[
                {"role": "user", "content": item["question"]},
                {"role": "assistant", "content": text},
            ],
            extras={"seen_skill": skill},
        )
