"""A skillrl-style environment that talks two turns and takes the run's extras: ``configure``
sets the language it asks in, and each rollout returns its conversation and its own extras."""

from skillopt_sleep.compat import RolloutResult, SkillEnv

ITEMS = [
    {"id": f"q{n}", "question": f"What is {n} plus {n}?", "answers": [str(2 * n)]}
    for n in range(1, 9)
]
FOLLOW_UP = (
    "Are you sure? My key is sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD, answer again."
)


class TalkingEnv(SkillEnv):
    name = "talking"

    def __init__(self) -> None:
        self.lang = "en"

    def configure(self, extras: dict) -> None:
        if "lang" not in extras:
            raise KeyError("lang")
        self.lang = extras["lang"]

    def get_initial_skill(self) -> str:
        return "You answer arithmetic questions."

    def get_items(self, split: str) -> list[dict]:
        return {"train": ITEMS[:4], "val": ITEMS[4:6], "test": ITEMS[6:]}[split]

    def rollout_one(self, *, item, skill, target_client) -> RolloutResult:
        asked = f"({self.lang}) {item['question']}"
        first, _ = target_client.chat(system=skill, user=asked, stage="rollout")
        second, _ = target_client.chat(system=skill, user=FOLLOW_UP, stage="rollout")
        hard = int(item["answers"][0] in second.split())
        return RolloutResult(
            id=item["id"],
            hard=hard,
            soft=float(hard),
            fail_reason="" if hard else "not the sum",
            conversation=[
                {"role": "user", "content": asked},
                {"role": "assistant", "content": first},
                {"role": "user", "content": FOLLOW_UP},
                {"role": "assistant", "content": second},
            ],
            extras={"lang": self.lang, "turns": 2},
        )


class MadeWithExtras(TalkingEnv):
    """The same environment, given its extras in its constructor."""

    def __init__(self, extras: dict | None = None) -> None:
        self.lang = (extras or {}).get("lang", "en") + "!"

    def configure(self, extras: dict) -> None:
        raise AssertionError("an environment made with its extras is not configured again")
