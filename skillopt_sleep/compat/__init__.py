"""The seeds' names, so their users' code runs with only its import line changed.

skillrl 1.0::

    from skillopt_sleep.compat import SkillOptConfig, SkillOptTrainer, SimpleQAEnv, OpenAIChatClient

SkillOpt 0.2 (an ``EnvAdapter`` whose rollouts call ``chat_target``)::

    from skillopt_sleep.compat import EnvAdapter, chat_target

Underneath is :func:`skillopt_sleep.train` (the evidence gate, the run directory, the budget).
``skillopt-sleep train --env module:Class`` runs a subclass of ``SkillEnv`` or ``EnvAdapter``
(from here or from the seeds themselves) unchanged.
"""

from ..envs.seed_client import BackendClient, BaseLLMClient
from .envs import EnvAdapter, SimpleQAEnv, SkillEnv, chat_optimizer, chat_target
from .scheduler import (
    ConstantScheduler,
    CosineScheduler,
    LinearScheduler,
    LRScheduler,
    build_scheduler,
)
from .trainer import OpenAIChatClient, SkillOptConfig, SkillOptTrainer
from .types import (
    BatchSpec,
    Edit,
    EditOp,
    GateAction,
    GateResult,
    Patch,
    RawPatch,
    RolloutResult,
    evaluate_gate,
    select_gate_score,
)

__version__ = "1.0.0"  # the skillrl API this module follows

__all__ = [
    "BackendClient",
    "BaseLLMClient",
    "BatchSpec",
    "ConstantScheduler",
    "CosineScheduler",
    "Edit",
    "EditOp",
    "EnvAdapter",
    "GateAction",
    "GateResult",
    "LRScheduler",
    "LinearScheduler",
    "OpenAIChatClient",
    "Patch",
    "RawPatch",
    "RolloutResult",
    "SimpleQAEnv",
    "SkillEnv",
    "SkillOptConfig",
    "SkillOptTrainer",
    "__version__",
    "build_scheduler",
    "chat_optimizer",
    "chat_target",
    "evaluate_gate",
    "select_gate_score",
]
