"""What a training rollout's system prompt is: the trained text the model sees.

A night replays a coding agent's day, so its replays frame the skill as a coding agent's
instructions (:func:`~skillopt_sleep.rollouts.replay.system_text`). A training run trains the text a
model will run under: by default (``frame = "env"``) the environment's own framing of it (a
``framing`` string: the skill in place of ``{skill}``, or after the framing when it has no such
placeholder; the task-record environment's is a coding agent's), the skill alone when the
environment declares none, or with ``frame = "none"``. ``frame = "agent"`` is the night's
framing, memory files included.
"""

from __future__ import annotations

from ..envs.base import Instructions
from ..models import TaskRecord
from ..rollouts.replay import SystemText, system_text
from .config import Frame

PLACE = "{skill}"


def framing_of(env: object) -> str:
    """The environment's own framing (``""``: none, the skill alone)."""
    framing = getattr(env, "framing", "")
    return framing if isinstance(framing, str) else ""


def framed(framing: str, skill: str) -> str:
    if not framing:
        return skill
    return framing.replace(PLACE, skill) if PLACE in framing else framing + skill


def system_for(frame: Frame, env: object) -> SystemText:
    """How a run's rollouts make their system text from the files under test."""
    if frame == "agent":
        return system_text
    framing = framing_of(env) if frame == "env" else ""

    def skill_as_system(files: dict[str, str], task: TaskRecord) -> Instructions:
        return Instructions(framed(framing, files.get("SKILL.md", "")), files)

    return skill_as_system
