"""skillrl's trainer and client under their names: ``SkillOptConfig``, ``SkillOptTrainer``,
``OpenAIChatClient``, so a skillrl quick start runs with only its import line changed.

The trainer is :func:`skillopt_sleep.train` underneath: the environment's items and initial
skill, the skill trained as a whole document (the seeds' line edits), every step's edits proven
by the evidence gate before they are kept, the run directory resumable. ``train()`` returns the
seed's summary keys (``best_selection_score``, ``test_hard``, ...) and writes ``best_skill.md``
and ``current_skill.md`` into ``out_root``. A knob of the seed's that this version cannot honour
is refused at ``train()`` with the reason, never ignored.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..backends.base import Backend, Completion, Health, Request
from ..backends.registry import create_backend
from ..envs.extras import configure
from ..envs.seed_client import BackendClient, BaseLLMClient
from ..envs.seed_envs import SeedEnv, wrap
from ..errors import BackendError, ConfigError, TransientError
from ..settings import RoleSettings
from ..train.config import TrainConfig, TrainResult
from ..train.data import TaskSet

DEFAULTS = {"gate_metric": "hard", "failure_only": False, "merge_batch_size": 8}


class OpenAIChatClient(BackendClient):
    """skillrl's OpenAI client: our ``openai`` backend (``OPENAI_API_KEY`` and ``OPENAI_BASE_URL``
    read as the seed reads them), as a seed client. The process environment is read here, at the
    library's edge, as the seed's client does."""

    def __init__(
        self,
        model: str = "gpt-4o-mini",
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        **kwargs: Any,
    ) -> None:
        env = dict(os.environ)
        if api_key:
            env["OPENAI_API_KEY"] = api_key
        role = RoleSettings(backend="openai", model=model, base_url=base_url)
        super().__init__(create_backend(role, env))


class ClientBackend:
    """A user's own seed client (``chat(system=, user=) -> (text, usage)``) as a Backend."""

    name = "client"

    def __init__(self, client: BaseLLMClient) -> None:
        self.client = client
        self.model = str(getattr(client, "model", "") or type(client).__name__)

    async def complete(self, request: Request) -> Completion:
        try:
            text, usage = await asyncio.to_thread(
                self.client.chat,
                system=request.system,
                user=request.prompt,
                max_completion_tokens=request.max_tokens,
                temperature=request.temperature,
                stage=request.tag,
            )
        except BackendError:
            raise
        except Exception as exc:  # the client's own failure: worth a retry, then no evidence
            raise TransientError(f"{self.model}: {type(exc).__name__}: {exc}") from exc
        usage = usage or {}
        return Completion(
            text or "", usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0), 0.0
        )

    async def check(self) -> Health:
        return Health(True, f"{self.model} (a seed client)")


def backend_of(client: Any) -> Backend:
    return client.backend if isinstance(client, BackendClient) else ClientBackend(client)


@dataclass
class SkillOptConfig:
    """skillrl's training arguments, under their names (see :meth:`train_config`)."""

    num_epochs: int = 4
    batch_size: int = 40
    minibatch_size: int = 8
    merge_batch_size: int = 8
    edit_budget: int = 4
    min_edit_budget: int = 2
    lr_scheduler: str = "cosine"
    gate_metric: str = "hard"
    gate_mixed_weight: float = 0.5
    failure_only: bool = False
    workers: int = 8
    seed: int = 42
    out_root: str = "outputs/skillrl_run"
    selection_split: str = "val"
    test_split: str = "test"
    eval_test: bool = True
    save_every_step: bool = True
    optimizer_max_completion_tokens: int = 4096
    verbose: bool = True
    extras: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def train_config(self, n_train: int) -> TrainConfig:
        """Our run's configuration: the seed's knobs under our names; one step per batch of
        the training items an epoch (as the seed counts them); the skill a whole document."""
        if (self.selection_split, self.test_split) != ("val", "test"):
            raise ConfigError(
                f"selection_split {self.selection_split!r} / test_split {self.test_split!r}",
                hint="name the environment's splits train, val and test",
            )
        given: dict[str, Any] = {
            "epochs": self.num_epochs,
            "steps_per_epoch": max(1, math.ceil(n_train / self.batch_size)),
            "batch_size": self.batch_size,
            "minibatch": self.minibatch_size,
            "edit_budget": self.edit_budget,
            "edit_budget_min": min(self.min_edit_budget, self.edit_budget),
            "schedule": self.lr_scheduler,
            "mode": "document",
            "seed": self.seed,
            "concurrency": self.workers,
            "optimizer_max_tokens": self.optimizer_max_completion_tokens,
        }
        known = TrainConfig.model_fields
        for name in (
            "gate_metric",
            "gate_mixed_weight",
            "failure_only",
            "merge_batch_size",
            "extras",
        ):
            value = getattr(self, name)
            if name in known:
                given[name] = value
            elif name in DEFAULTS and value != DEFAULTS[name]:
                raise ConfigError(
                    f"{name}={value!r} is not supported by this version of skillopt-sleep",
                    hint=f"leave {name} at {DEFAULTS[name]!r}",
                )
        try:
            return TrainConfig(**given)
        except ValueError as exc:
            raise ConfigError(
                f"SkillOptConfig: {exc}", hint="see SkillOptConfig's fields"
            ) from None


def snapshots(out: Path, initial: str) -> None:
    """skillrl's ``skills/skill_vXXXX.md``: the initial skill as step 0, then the skill after
    each step, from the run directory's finished steps (``units/NNNN-eE-sS/skill.md``)."""
    folder = out / "skills"
    folder.mkdir(exist_ok=True)
    (folder / "skill_v0000.md").write_text(initial, encoding="utf-8")
    for unit in sorted((out / "units").glob("*-e*-s*")):
        step = unit.name.rsplit("-s", 1)[1]
        if step.isdigit() and (unit / "skill.md").is_file():
            text = (unit / "skill.md").read_text(encoding="utf-8")
            (folder / f"skill_v{int(step):04d}.md").write_text(text, encoding="utf-8")


class SkillOptTrainer:
    """skillrl's trainer: ``SkillOptTrainer(config=, env=, optimizer_client=, target_client=,
    initial_skill=).train()``."""

    def __init__(
        self,
        *,
        config: SkillOptConfig,
        env: Any,
        optimizer_client: Any,
        target_client: Any,
        initial_skill: str | None = None,
        prompt_overrides: dict[str, str] | None = None,
    ) -> None:
        self.cfg, self.env = config, env
        self.optimizer_client, self.target_client = optimizer_client, target_client
        self.prompt_overrides = dict(prompt_overrides or {})
        seeded = wrap(env)
        if seeded is None:
            raise ConfigError(
                f"{type(env).__name__} is not a SkillEnv or an EnvAdapter",
                hint="subclass skillopt_sleep.compat.SkillEnv (get_items, rollout_one)",
            )
        self.seeded: SeedEnv = seeded
        given = initial_skill if initial_skill is not None else self.seeded.initial_skill()
        self.initial_skill = given or ""

    def train(self) -> dict[str, Any]:
        """Run (or resume) the training; the seed's summary."""
        from ..train.api import train

        cfg = self.cfg
        configure(self.seeded, cfg.extras)  # the seeds' extras reach the environment first
        train_items, val_items, test_items = self.seeded.splits(cfg.seed)
        # eval_test=False: no test report, as in the seeds (the test items are never replayed)
        tasks = TaskSet(train_items, val_items, test_items if cfg.eval_test else [])
        config = self.train_config(len(tasks.train))
        out = Path(cfg.out_root)
        with tempfile.TemporaryDirectory(prefix="skillopt-compat-") as tmp:
            skill = Path(tmp) / "SKILL.md"
            skill.write_text(self.initial_skill, encoding="utf-8")
            result = train(
                tasks,
                skill,
                out,
                target=backend_of(self.target_client),
                optimizer=backend_of(self.optimizer_client),
                config=config,
                env=self.seeded,
                prompts_dir=self._prompts(Path(tmp)),
                progress=print if cfg.verbose else None,
            )
        if cfg.save_every_step:
            snapshots(out, self.initial_skill)
        (out / "best_skill.md").write_text(result.best_skill, encoding="utf-8")
        (out / "current_skill.md").write_text(result.current_skill, encoding="utf-8")
        summary = self.summary(result)
        (out / "skillrl_summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
        return summary

    def train_config(self, n_train: int) -> TrainConfig:
        return self.cfg.train_config(n_train)

    def _prompts(self, tmp: Path) -> Path | None:
        """The overrides as a prompts directory: ``analyst_error`` is the failure and contrast
        analysts', ``analyst_success`` the success analyst's; others under our names."""
        if not self.prompt_overrides:
            return None
        names = {
            "analyst_error": ("reflect_failure", "reflect_contrast"),
            "analyst_success": ("reflect_success",),
        }
        folder = tmp / "prompts"
        folder.mkdir()
        for key, text in self.prompt_overrides.items():
            for name in names.get(key, (key,)):
                (folder / f"{name}.txt").write_text(text, encoding="utf-8")
        return folder

    def summary(self, result: TrainResult) -> dict[str, Any]:
        """The seed's summary keys, from ours (ours in full under ``skillopt_sleep``)."""
        s, history = result.summary, list(result.history)
        base, best = s.baseline, s.best
        current_val = next((h.val for h in reversed(history) if h.val is not None), s.val_initial)
        return {
            "version": "skillopt-sleep-compat",
            "config": self.cfg.to_dict(),
            "env": self.seeded.name,
            "total_steps": len(history),
            "total_accepts": sum(1 for h in history if h.accepted),
            "total_rejects": sum(1 for h in history if h.tested and not h.accepted),
            "total_skips": sum(1 for h in history if not h.tested),
            "best_step": s.best_step,
            "best_selection_score": s.val_best,
            "current_selection_score": current_val,
            "baseline_test_hard": base.test_hard,
            "baseline_test_soft": base.test_soft,
            "test_hard": best.test_hard,
            "test_soft": best.test_soft,
            "test_delta_hard": None
            if best.test_hard is None or base.test_hard is None
            else round(best.test_hard - base.test_hard, 6),
            "skillopt_sleep": s.model_dump(mode="json"),
        }
