"""SkillOpt's gate functions under their names: ``select_gate_score`` and ``evaluate_gate``.

``select_gate_score`` is our gate metric (:meth:`~skillopt_sleep.train.config.TrainConfig.metric`):
the pass (``hard``), the partial credit (``soft``) or their mix, so a seed user's script scores
exactly what ``train`` scores. ``evaluate_gate`` is the seeds' decision on those scores, which
``train`` keeps for the best-skill choice only: inside ``train`` an edit is accepted by the
evidence gate (fresh rollouts, an exact test), and an accepted skill becomes the best when its
validation score beats the best one's, as here.
"""

from __future__ import annotations

from ..errors import ConfigError
from ..train.config import TrainConfig
from .types import GateResult


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
