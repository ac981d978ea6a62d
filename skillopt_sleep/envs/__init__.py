"""The environment seam: one rollout of one item under a skill -> hard / soft / fail_reason /
conversation (see :class:`.base.Environment`, whose docstring is the contract)."""

from .agent import AgentEnv
from .base import CalledBackend, Environment, EnvResult, Instructions
from .qa import QAEnv
from .registry import load_env
from .task_record import TaskRecordEnv

__all__ = [
    "AgentEnv",
    "CalledBackend",
    "EnvResult",
    "Environment",
    "Instructions",
    "QAEnv",
    "TaskRecordEnv",
    "load_env",
]
