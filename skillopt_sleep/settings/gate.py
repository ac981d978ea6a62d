"""The gate's settings: the levels and sizes of the edit-by-edit gate, and the ``rigor`` preset.

One model, :class:`GateSettings`, holds them; ``[night]`` embeds it (with the error rate a night
spends, :class:`NightGateSettings`) and ``[train]`` embeds it too (with the error rate a whole run
spends), so a setting of the gate has one name and one meaning wherever it is set. ``rigor`` picks a
documented set of levels; any of the expert keys given alongside it overrides the preset's value.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Rigor = Literal["light", "standard", "strict"]

# What each preset sets; ``standard`` is the fields' own defaults. A model takes the names it has
# (``alpha`` and ``evidence_alpha`` a night's, ``run_alpha`` a training run's).
# light: half the efficacy rollouts and a false accept at 0.05 instead of 0.03, harm checked as in
# standard (a lighter harm check let harmful rules through: bench/gate_noise.py); strict: about twice
# the rollouts, a false accept at 0.01, and a 2.5-fold cut of the odds ruled out before an edit is kept.
PRESETS: dict[Rigor, dict[str, float | int]] = {
    "light": {
        "alpha": 0.05,
        "evidence_alpha": 0.01,
        "run_alpha": 0.1,
        "efficacy_rollouts": 12,
        "unseen_rollouts": 4,
    },
    "standard": {},
    "strict": {
        "alpha": 0.01,
        "evidence_alpha": 0.001,
        "run_alpha": 0.02,
        "efficacy_rollouts": 48,
        "unseen_rollouts": 16,
        "harm_rollouts": 96,
        "harm_looks": 6,
        "harm_odds": 2.5,
        "harm_beta": 0.02,
        "harm_alpha": 0.05,
        "harm_conclusive": 0.005,
        "unseen_alpha": 0.1,
        "harm_max_tasks": 128,
        "harm_kind_power": 0.999,
        "max_error_rate": 0.2,
    },
}


class GateSettings(BaseModel):
    """The levels and sizes of each comparison the gate makes (:mod:`skillopt_sleep.evidence`),
    set as a whole by ``rigor``; each is an expert key that overrides the preset."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    rigor: Rigor = Field(
        default="standard",
        description="light: half the efficacy rollouts, less power, a false accept at 0.05, harm "
        "checked as in standard; standard; strict: about twice the rollouts, a false accept at "
        "0.01 and smaller harm ruled out (the README's Gate settings list each level)",
    )
    efficacy_rollouts: int = Field(
        default=24,
        ge=2,
        le=512,
        description="fresh rollouts per side where an edit should act, over all looks",
    )
    efficacy_looks: int = Field(
        default=3,
        ge=1,
        le=8,
        description=(
            "classic allocation: equal looks at the efficacy evidence; a decided comparison stops "
            "early (lean always takes four growing looks: 1, 2, 4 and 6 sixths of the rollouts)"
        ),
    )
    harm_rollouts: int = Field(
        default=48,
        ge=2,
        le=1024,
        description=(
            "fresh rollouts per side on every other task: a classic look, twice a lean first one"
        ),
    )
    harm_looks: int = Field(
        default=5,
        ge=1,
        le=8,
        description=(
            "looks at most at the other tasks, while harm is neither conclusive nor ruled out "
            "(classic: at most 3, while the pass rate there fell)"
        ),
    )
    harm_alpha: float = Field(
        default=0.1,
        gt=0,
        lt=1,
        description="an edit with fewer passes elsewhere at this level is refused",
    )
    harm_odds: float = Field(
        default=4.0,
        gt=1,
        le=1000,
        description="harm is ruled out once the data reject a cut of the odds of a pass elsewhere "
        "by this factor or more",
    )
    harm_beta: float = Field(
        default=0.05,
        gt=0,
        lt=1,
        description="... at this level: an edit that harms that much stops the harm check early "
        "with this chance at most (lean allocation)",
    )
    harm_conclusive: float = Field(
        default=0.01,
        gt=0,
        lt=1,
        description="and at this level it is remembered as harmful, never proposed again",
    )
    unseen_alpha: float = Field(
        default=0.2,
        gt=0,
        le=1,
        description="unseen tasks of the edit's kind must show a gain at this level",
    )
    unseen_rollouts: int = Field(
        default=8,
        ge=1,
        le=512,
        description="fresh rollouts per side on those unseen tasks, at least",
    )
    evidence_odds: float = Field(
        default=4.0,
        gt=1,
        le=1000,
        description="the odds ratio of a pass after an edit that the e-values across nights bet on",
    )
    min_effect: float = Field(
        default=0.25,
        gt=0,
        le=1,
        description="a refused edit that rules out this gain is not proposed again",
    )
    harm_max_tasks: int = Field(
        default=64, ge=1, description="other tasks a harm test replays, at most"
    )
    harm_kind_power: float = Field(
        default=0.99,
        gt=0,
        lt=1,
        description="a night with more other tasks than the harm check needs checks a sample, every "
        "kind in it on enough tasks, tested alone, to catch a rule that breaks the whole kind with "
        "this chance",
    )
    max_error_rate: float = Field(
        default=0.3, ge=0, le=1, description="more errored rollouts than this: no evidence"
    )

    @model_validator(mode="before")
    @classmethod
    def _preset(cls, data: Any) -> Any:
        """The preset's value for every key of it not given: a given key is the user's choice."""
        if not isinstance(data, dict):
            return data
        rigor = data.get("rigor", "standard")
        # a rigor that is no preset's name fails the field's own validation
        preset = next((v for k, v in PRESETS.items() if k == rigor), {})
        missing = {k: v for k, v in preset.items() if k in cls.model_fields and k not in data}
        return {**data, **missing} if missing else data


class NightGateSettings(GateSettings):
    """The gate of one night: its comparisons, and the error rate the night spends on them."""

    alpha: float = Field(
        default=0.03,
        gt=0,
        lt=1,
        description="family-wise error of tonight's efficacy tests, split over the edits (Holm)",
    )
    evidence_alpha: float = Field(
        default=0.005,
        gt=0,
        lt=1,
        description="evidence carried across nights (e-values) accepts at 1/this",
    )


def expert_keys() -> frozenset[str]:
    """The gate's keys a preset sets: documented, left out of the starter config."""
    every = set(NightGateSettings.model_fields) | {"run_alpha"}
    return frozenset(every - {"rigor"})
