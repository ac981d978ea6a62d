"""The configuration of a training run and its result (pydantic: they are written to disk)."""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    field_validator,
    model_validator,
)

from ..models import Edit, EditEvidence, Usage
from ..settings.training import RENAMED, TrainSettings

Schedule = Literal["constant", "linear", "cosine"]
Mode = Literal["rules", "document"]
GateMetric = Literal["hard", "soft", "mixed"]
# the one gate and soft test a run has; the older ones are benchmark gates now (bench/train_gates.py)
LEGACY = {
    "gate": ("evidence", "mean"),
    "soft_test": ("permutation", "drawn"),
}
Frame = Literal["env", "none", "agent"]
Extra = JsonValue  # free-form, as the seeds' extras: what the environment and templates read


def without_legacy(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` without the product's old one-choice keys; an older choice refused, naming the fix."""
    for key, (ours, old) in LEGACY.items():
        if key not in data:
            continue
        if data[key] != ours:
            raise ValueError(
                f"{key} = {data[key]!r} is no longer a choice: a run has one gate, the evidence "
                f"gate; remove {key} (the {old!r} comparison lives in the benchmarks)"
            )
        data = {k: v for k, v in data.items() if k != key}
    return data


def _seed(name: str, seed_name: str) -> AliasChoices:
    """A setting under its name here and under the seed libraries' name for the same thing."""
    return AliasChoices(name, seed_name)


class TrainConfig(TrainSettings):
    """Everything that decides what a run does; a resumed run must be given the same.

    The ``[train]`` settings (:class:`~skillopt_sleep.settings.training.TrainSettings`: the gate's
    levels and ``rigor`` preset, ``epochs``, ``steps_per_epoch``, ``run_alpha``) and the rest of
    a run's choices. ``run_alpha`` is the error rate of the *whole run*: the chance that any edit
    that does not help is accepted, at any step. It is spent across the gates of the run (see
    :mod:`.spending`). The old name ``steps`` still reads as ``steps_per_epoch``, with a warning;
    ``alpha`` is refused, naming ``run_alpha``.
    A run has one gate, the evidence gate; ``gate = "mean"`` and ``soft_test = "drawn"`` are
    refused, naming the fix (the benchmarks pass them as gates of their own, through ``gate=``),
    and ``gate = "evidence"`` or ``soft_test = "permutation"`` (a run directory from before) are
    read as the default they are.

    ``gate_metric`` is what validation, the choice of the best skill and the gate score: the
    pass (``hard``), the partial credit (``soft``) or ``(1 - w) * hard + w * soft`` (``mixed``,
    ``w`` = ``gate_mixed_weight``), as the seed libraries define them. ``frame`` is what a
    rollout's system prompt is: the environment's own framing of the skill (``env``: the
    task-record environment's is a coding agent's, as a night's; the QA and the seeds'
    environments have none), the skill alone (``none``), or the night's coding-agent preamble
    and header (``agent``).
    ``failure_only`` leaves the success analyst out; ``extras`` reach the environment (a
    constructor's ``extras`` keyword or its ``configure(extras)``; a SkillOpt adapter's ``setup``
    among its settings) and the optimizer's prompt templates (``{extras.NAME}``).
    The seeds' names of the same settings are accepted (``num_epochs``, ``minibatch_size``,
    ``min_edit_budget``, ``lr_scheduler``, ``workers``, ``optimizer_max_completion_tokens``).
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    batch_size: int = Field(default=8, ge=1, le=1000)
    minibatch: int = Field(  # cases per reflection call
        default=4, ge=1, le=100, validation_alias=_seed("minibatch", "minibatch_size")
    )
    k: int = Field(default=4, ge=1, le=64)
    edit_budget: int = Field(default=3, ge=1, le=50)
    edit_budget_min: int = Field(
        default=1, ge=1, le=50, validation_alias=_seed("edit_budget_min", "min_edit_budget")
    )
    schedule: Schedule = Field(
        default="constant", validation_alias=_seed("schedule", "lr_scheduler")
    )
    mode: Mode = "rules"
    gate_metric: GateMetric = "hard"
    gate_mixed_weight: float = Field(default=0.5, ge=0, le=1)
    failure_only: bool = False
    frame: Frame = "env"
    extras: dict[str, Extra] = Field(default_factory=dict)
    val_k: int = Field(default=2, ge=1, le=64)
    test_k: int = Field(default=2, ge=1, le=64)
    slow_update: bool = True
    slow_sample: int = Field(default=8, ge=1, le=1000)
    meta_skill: bool = True
    # "model": the optimizer merges paraphrased edits (merge_batch_size patches a call) and ranks
    # them past the budget; "lexical": word overlap and support alone, no call (the fallback)
    merge: Literal["model", "lexical"] = "model"
    merge_batch_size: int = Field(default=8, ge=2, le=64)
    env: str = "task-record"
    seed: int = 0
    split_ratio: str = "2:1:7"
    concurrency: int = Field(
        default=16, ge=1, le=256, validation_alias=_seed("concurrency", "workers")
    )
    max_tokens: int = Field(default=1024, gt=0)
    optimizer_max_tokens: int = Field(
        default=2048,
        gt=0,
        validation_alias=_seed("optimizer_max_tokens", "optimizer_max_completion_tokens"),
    )
    backend: str = ""  # names, for the record: the backends themselves are passed in
    model: str = ""
    optimizer_model: str = ""

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data: Any) -> Any:
        """``steps`` read as ``steps_per_epoch`` (same meaning, with a warning); ``alpha`` refused:
        a run's error rate is ``run_alpha``, and a night's ``alpha`` means something else."""
        if not isinstance(data, dict):
            return data
        data = without_legacy(data)
        if not ("alpha" in data or "steps" in data):
            return data
        if "alpha" in data:
            new, why = RENAMED["alpha"]
            raise ValueError(f"alpha is named {new} now ({why})")
        new, why = RENAMED["steps"]
        warnings.warn(
            f"steps is named {new} now ({why})", FutureWarning, stacklevel=_caller_level()
        )
        data = dict(data)
        data.setdefault(new, data.pop("steps"))
        return data

    @field_validator("split_ratio")
    @classmethod
    def _ratio(cls, value: str) -> str:
        parts = value.split(":")
        if (
            len(parts) != 3
            or not all(p.strip().isdigit() for p in parts)
            or sum(int(p) for p in parts) == 0
        ):
            raise ValueError(f"split ratio {value!r} must be three whole numbers like 2:1:7")
        if int(parts[0]) == 0 or int(parts[1]) == 0:
            raise ValueError(f"split ratio {value!r} leaves nothing to train or validate on")
        return value

    @property
    def total_steps(self) -> int:
        return self.epochs * self.steps_per_epoch

    def metric(self, hard: float, soft: float) -> float:
        """The gate's score of an attempt (or of a mean) from its pass and its partial credit."""
        if self.gate_metric == "hard":
            return hard
        if self.gate_metric == "soft":
            return soft
        return (1 - self.gate_mixed_weight) * hard + self.gate_mixed_weight * soft


def _caller_level() -> int:
    """The ``stacklevel`` of the code that made the config: the first frame outside this module
    and pydantic (a warning pointing into pydantic tells its reader nothing)."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and (
        frame.f_code.co_filename == __file__ or _PYDANTIC in frame.f_code.co_filename
    ):
        frame, level = frame.f_back, level + 1
    return level


_PYDANTIC = f"{os.sep}pydantic{os.sep}"


class Score(BaseModel):
    """Mean hard (pass) and soft (partial credit) score of one skill on one split."""

    model_config = ConfigDict(extra="forbid")

    test_hard: float | None = None
    test_soft: float | None = None


class Gain(BaseModel):
    """Paired gain of the best skill over the initial one on the test split."""

    model_config = ConfigDict(extra="forbid")

    mean: float
    ci_low: float
    ci_high: float
    p_value: float
    n_items: int


class StepRecord(BaseModel):
    """One step (or epoch-boundary slow update) of the history."""

    model_config = ConfigDict(extra="forbid")

    step: int
    epoch: int
    kind: Literal["step", "slow_update"] = "step"
    budget: int
    alpha: float
    proposed: int = 0
    merged: int = 0
    tested: int = 0
    accepted: list[Edit] = Field(default_factory=list)
    val: float | None = None  # validation score of the skill after this step
    reason: str = ""


class TrainSummary(BaseModel):
    """``summary.json``: the result of a run. The test split was scored only for this."""

    model_config = ConfigDict(extra="forbid")

    baseline: Score
    best: Score
    best_step: int  # units finished when the best skill was made (steps and slow updates)
    best_unit: str = ""  # that unit as units/ names it ("0003-e1-slow"); "": the initial skill
    gain_hard: Gain | None = None
    gain_soft: Gain | None = None
    val_initial: float | None = None
    val_best: float | None = None
    steps: int  # steps finished
    slow_updates: int = 0  # epoch boundaries finished
    accepted_edits: list[Edit] = Field(default_factory=list)
    refused: int = 0
    errored_rollouts: int = 0
    n_train: int
    n_val: int
    n_test: int
    gate: str  # the gate's name: "evidence", or a benchmark's
    alpha: float
    alpha_spent: float
    usage: Usage = Field(default_factory=Usage)
    stopped: str = ""  # why the run ended early ("" when it ran every step)
    stopped_by: Literal["", "budget", "outage"] = ""

    def best_at(self) -> str:
        """Where the best skill was made, in the run's own units: ``after 0002-e1-s2 (step 2)``,
        ``after 0003-e1-slow (the slow update of epoch 1)``, or ``the initial skill``."""
        if not self.best_step:
            return "the initial skill"
        if not self.best_unit:  # a summary written before the unit's name was kept
            return f"after unit {self.best_step}"
        _, epoch, what = self.best_unit.split("-")
        kind = f"the slow update of epoch {epoch[1:]}" if what == "slow" else f"step {what[1:]}"
        return f"after {self.best_unit} ({kind})"


class TrainResult(BaseModel):
    """What :func:`skillopt_sleep.train` returns: the summary, the skills and where they are."""

    model_config = ConfigDict(extra="forbid")

    summary: TrainSummary
    initial_skill: str
    best_skill: str
    current_skill: str
    run_dir: str
    history: list[StepRecord]
    evidence: list[EditEvidence] = Field(default_factory=list)
