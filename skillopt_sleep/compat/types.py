"""The seeds' data types under their names: ``Edit``, ``Patch``, ``RawPatch``, ``RolloutResult``,
``GateResult``, ``GateAction``, ``BatchSpec``; and SkillOpt's gate functions that make a
``GateResult``: ``select_gate_score`` and ``evaluate_gate``.

Plain dataclasses with ``from_dict`` / ``to_dict``, so a skillrl or SkillOpt environment that
builds them, and the JSON it writes, work unchanged. Inside a run they are read by
:mod:`skillopt_sleep.envs.seed_items` (an edit becomes one of ours, guarded and gated).

``select_gate_score`` is our gate metric (:meth:`~skillopt_sleep.train.config.TrainConfig.metric`):
the pass (``hard``), the partial credit (``soft``) or their mix, so a seed user's script scores
exactly what ``train`` scores. ``evaluate_gate`` is the seeds' decision on those scores, which
``train`` keeps for the best-skill choice only: inside ``train`` an edit is accepted by the
evidence gate (fresh rollouts, an exact test), and an accepted skill becomes the best when its
validation score beats the best one's, as here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Literal

from ..errors import ConfigError
from ..train.config import TrainConfig

EditOp = Literal["append", "insert_after", "replace", "delete"]
SourceType = Literal["failure", "success"]
GateAction = Literal["accept_new_best", "accept", "reject"]
_OPTIONAL = ("support_count", "source_type", "merge_level")


@dataclass
class Edit:
    """One edit of the skill document: ``append`` ``content``, ``insert_after`` / ``replace`` /
    ``delete`` the line ``target``."""

    op: EditOp
    content: str = ""
    target: str = ""
    support_count: int | None = None
    source_type: SourceType | None = None
    merge_level: int | None = None

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Edit:
        return cls(
            op=d.get("op", "append"),
            content=d.get("content", "") or "",
            target=d.get("target", "") or "",
            **{k: d.get(k) for k in _OPTIONAL},
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"op": self.op, "content": self.content}
        if self.target:
            out["target"] = self.target
        out.update({k: getattr(self, k) for k in _OPTIONAL if getattr(self, k) is not None})
        return out


@dataclass
class Patch:
    """A set of edits with the reasoning behind them."""

    edits: list[Edit] = field(default_factory=list)
    reasoning: str = ""
    ranking_details: dict[str, Any] | None = None

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Patch:
        edits = [Edit.from_dict(e) if isinstance(e, dict) else e for e in d.get("edits") or []]
        return cls(edits, d.get("reasoning", "") or "", d.get("ranking_details"))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "reasoning": self.reasoning,
            "edits": [e.to_dict() for e in self.edits],
        }
        if self.ranking_details is not None:
            out["ranking_details"] = self.ranking_details
        return out


@dataclass
class RawPatch:
    """One analyst call's patch, with which analyst made it and over how many rollouts."""

    patch: Patch
    source_type: SourceType = "failure"
    batch_size: int = 0

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> RawPatch | None:
        if d is None:
            return None
        inner = d.get("patch", d)
        if not isinstance(inner, dict):
            return None
        return cls(
            Patch.from_dict(inner), d.get("source_type", "failure"), int(d.get("batch_size", 0))
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "patch": self.patch.to_dict(),
            "source_type": self.source_type,
            "batch_size": self.batch_size,
        }


_TEXTS = (
    "fail_reason",
    "task_type",
    "task_description",
    "predicted_answer",
    "question",
    "reference_text",
    "target_system_prompt",
    "target_user_prompt",
)


@dataclass
class RolloutResult:
    """One scored rollout: ``hard`` 0/1, ``soft`` in [0, 1], why it failed, the conversation,
    and the environment's own fields in ``extras``."""

    id: str
    hard: int = 0
    soft: float = 0.0
    n_turns: int = 0
    fail_reason: str = ""
    task_type: str = ""
    task_description: str = ""
    predicted_answer: str = ""
    question: str = ""
    reference_text: str = ""
    target_system_prompt: str = ""
    target_user_prompt: str = ""
    conversation: list[dict[str, Any]] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RolloutResult:
        known = {f.name for f in fields(cls)}
        return cls(
            id=str(d.get("id", "")),
            hard=int(d.get("hard", 0)),
            soft=float(d.get("soft", 0.0)),
            n_turns=int(d.get("n_turns", 0)),
            conversation=list(d.get("conversation") or []),
            extras={k: v for k, v in d.items() if k not in known},
            **{k: str(d.get(k) or "") for k in _TEXTS},
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "hard": self.hard, "soft": self.soft}
        if self.n_turns:
            out["n_turns"] = self.n_turns
        out.update({k: getattr(self, k) for k in _TEXTS if getattr(self, k)})
        if self.conversation:
            out["conversation"] = self.conversation
        out.update(self.extras)
        return out


@dataclass
class GateResult:
    """What a validation gate decided, with the current and best skill after it."""

    action: GateAction
    current_skill: str
    current_score: float
    best_skill: str
    best_score: float
    best_step: int


@dataclass(slots=True)
class BatchSpec:
    """A batch request of SkillOpt's loop: phase, split, seed, size and the items (payload)."""

    phase: str
    split: str
    seed: int
    batch_size: int
    payload: object | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def select_gate_score(
    hard: float, soft: float, metric: str = "hard", mixed_weight: float = 0.5
) -> float:
    """One comparison score from a batch's mean ``hard`` and ``soft`` scores (both in [0, 1])."""
    if metric not in ("hard", "soft", "mixed"):
        raise ConfigError(f"unknown gate metric {metric!r}", hint="use 'hard', 'soft' or 'mixed'")
    weight = max(0.0, min(1.0, float(mixed_weight)))  # the seeds clamp the weight
    config = TrainConfig.model_validate({"gate_metric": metric, "gate_mixed_weight": weight})
    return float(config.metric(float(hard), float(soft)))


def evaluate_gate(
    candidate_skill: str,
    cand_hard: float,
    current_skill: str,
    current_score: float,
    best_skill: str,
    best_score: float,
    best_step: int,
    global_step: int,
    *,
    cand_soft: float = 0.0,
    metric: str = "hard",
    mixed_weight: float = 0.5,
) -> GateResult:
    """The seeds' decision: the candidate replaces the current skill when its score is higher,
    and the best one too when it beats that."""
    score = select_gate_score(cand_hard, cand_soft, metric, mixed_weight)
    if score <= current_score:
        return GateResult("reject", current_skill, current_score, best_skill, best_score, best_step)
    if score > best_score:
        return GateResult(
            "accept_new_best", candidate_skill, score, candidate_skill, score, global_step
        )
    return GateResult("accept", candidate_skill, score, best_skill, best_score, best_step)
