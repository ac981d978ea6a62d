"""The seeds' environment contracts under their names: skillrl's ``SkillEnv`` (and its reference
``SimpleQAEnv``) and SkillOpt's ``EnvAdapter``, with the model calls SkillOpt's adapters make
(``chat_target``, ``chat_optimizer``).

``train --env module:Class`` (or :class:`~.trainer.SkillOptTrainer`) runs a subclass of either
as it is (:mod:`skillopt_sleep.envs.seed_envs`). Inside one of its rollouts, ``chat_target`` is
the run's target model; inside its own ``reflect``, ``chat_optimizer`` is the run's optimizer:
both go through the run's budget, retries and redaction.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

from ..envs.seed_client import BackendClient, BaseLLMClient
from ..envs.seed_envs import OPTIMIZER, TARGET, client_of
from .adapter_helpers import AdapterHelpers
from .types import BatchSpec, RolloutResult


class SkillEnv(ABC):
    """skillrl's environment: items by split, and one synchronous scored rollout of an item."""

    task_types: list[str] = []  # noqa: RUF012 (the seed's API: subclasses set it)
    name: str = "skill_env"

    @abstractmethod
    def get_items(self, split: str) -> list[dict[str, Any]]:
        """Every item of ``split`` (train, val or test)."""

    @abstractmethod
    def rollout_one(
        self, *, item: dict[str, Any], skill: str, target_client: BaseLLMClient
    ) -> RolloutResult:
        """One attempt at ``item`` under ``skill``: ``hard`` 0/1, ``soft`` in [0, 1]."""

    def get_initial_skill(self) -> str:
        return ""

    def get_task_types(self) -> list[str]:
        return list(self.task_types)


def _norm(text: str) -> str:
    return " ".join((text or "").lower().split())


def _overlap(prediction: str, answers: Iterable[str]) -> float:
    """Token F1 (over token sets) against the best-matching answer."""
    got = set(_norm(prediction).split())
    best = 0.0
    for answer in answers:
        want = set(_norm(answer).split())
        common = len(got & want)
        if got and want and common:
            p, r = common / len(got), common / len(want)
            best = max(best, 2 * p * r / (p + r))
    return best


class SimpleQAEnv(SkillEnv):
    """skillrl's single-turn QA environment: the skill is the system prompt, an answer passes
    when a reference answer is in it (case and spacing aside), partial credit is token F1."""

    name = "simple_qa"

    def __init__(
        self,
        *,
        train_items: list[dict[str, Any]],
        val_items: list[dict[str, Any]],
        test_items: list[dict[str, Any]],
        max_completion_tokens: int = 512,
        initial_skill: str = "",
    ) -> None:
        self._splits = {
            "train": list(train_items),
            "val": list(val_items),
            "test": list(test_items),
        }
        self.max_completion_tokens = max_completion_tokens
        self._initial_skill = initial_skill
        self.task_types = sorted(
            {str(i["task_type"]) for s in self._splits.values() for i in s if i.get("task_type")}
        )

    def get_initial_skill(self) -> str:
        return self._initial_skill

    def get_items(self, split: str) -> list[dict[str, Any]]:
        if split not in self._splits:
            raise KeyError(f"unknown split {split!r}; available: {list(self._splits)}")
        return self._splits[split]

    def rollout_one(
        self, *, item: dict[str, Any], skill: str, target_client: BaseLLMClient
    ) -> RolloutResult:
        question, context = str(item.get("question") or ""), str(item.get("context") or "")
        answers = item.get("answers") or []
        answers = [answers] if isinstance(answers, str) else [str(a) for a in answers]
        system = skill or "You are a helpful assistant. Answer the question concisely."
        user = "\n\n".join(
            [*([f"Context:\n{context}"] if context else []), f"Question: {question}", "Answer:"]
        )
        text, _ = target_client.chat(
            system=system,
            user=user,
            max_completion_tokens=self.max_completion_tokens,
            stage="rollout",
            retries=2,
        )
        prediction = (text or "").strip()
        pred = _norm(prediction)
        hard = int(bool(pred) and any(_norm(a) and _norm(a) in pred for a in answers))
        soft = float(hard) if hard or not answers else round(_overlap(prediction, answers), 4)
        return RolloutResult(
            id=str(item.get("id", "")),
            hard=hard,
            soft=soft,
            n_turns=1,
            fail_reason="" if hard else "the prediction matches no reference answer",
            task_type=str(item.get("task_type") or ""),
            predicted_answer=prediction,
            question=question,
            reference_text=" | ".join(answers),
            target_system_prompt=system,
            target_user_prompt=user,
            conversation=[
                {"role": "system", "content": system},
                {"role": "user", "content": user},
                {"role": "assistant", "content": prediction},
            ],
        )


class EnvAdapter(AdapterHelpers, ABC):
    """SkillOpt's environment adapter: environment managers for a training batch and an
    evaluation split, a batch rollout, the task types, (optionally) its own ``reflect``, and the
    helpers SkillOpt gives every adapter (:mod:`.adapter_helpers`)."""

    def setup(self, cfg: dict[str, Any]) -> None:
        self._cfg = dict(cfg)

    def get_dataloader(self) -> Any:
        return None

    def requires_ray(self) -> bool:
        return False

    def build_env_from_batch(self, batch: BatchSpec, **kwargs: Any) -> Any:
        if batch.phase == "train":
            return self.build_train_env(batch_size=batch.batch_size, seed=batch.seed, **kwargs)
        return self.build_eval_env(
            env_num=batch.batch_size, split=batch.split, seed=batch.seed, **kwargs
        )

    @abstractmethod
    def build_train_env(self, batch_size: int, seed: int, **kwargs: Any) -> Any:
        """A training batch's environment manager (a list of items, for a dataset)."""

    @abstractmethod
    def build_eval_env(self, env_num: int, split: str, seed: int, **kwargs: Any) -> Any:
        """An evaluation split's environment manager (a list of items, for a dataset)."""

    @abstractmethod
    def rollout(
        self, env_manager: Any, skill_content: str, out_dir: str, **kwargs: Any
    ) -> list[dict[str, Any]]:
        """One scored row per episode: ``id``, ``hard`` 0/1, ``soft`` in [0, 1], and more."""

    def reflect(
        self, results: list[dict[str, Any]], skill_content: str, out_dir: str, **kwargs: Any
    ) -> list[dict[str, Any] | None]:
        """Not defined here: the run's own analysts reflect. Override it to add the
        environment's own analysis (patch dicts, as SkillOpt's ``RawPatch``)."""
        raise NotImplementedError("the run's analysts reflect; override reflect to add your own")

    @abstractmethod
    def get_task_types(self) -> list[str]:
        """The task types of the environment's items."""


def _client(var: Any, name: str) -> BackendClient:
    client = client_of(var)
    if client is None:
        raise RuntimeError(
            f"{name} is the run's model inside an environment's "
            f"{'rollout' if name == 'chat_target' else 'reflect'}; it was called outside one"
        )
    return client


def chat_target(
    system: str, user: str, max_completion_tokens: int = 16384, **kwargs: Any
) -> tuple[str, dict[str, int]]:
    """SkillOpt's target call: the run's target model, from inside a rollout."""
    return _client(TARGET, "chat_target").chat(
        system=system, user=user, max_completion_tokens=max_completion_tokens, **kwargs
    )


def chat_optimizer(
    system: str, user: str, max_completion_tokens: int = 16384, **kwargs: Any
) -> tuple[str, dict[str, int]]:
    """SkillOpt's optimizer call: the run's optimizer model, from inside an adapter's reflect."""
    return _client(OPTIMIZER, "chat_optimizer").chat(
        system=system, user=user, max_completion_tokens=max_completion_tokens, **kwargs
    )
