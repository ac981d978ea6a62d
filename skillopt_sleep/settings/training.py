"""The ``[train]`` section: a training run's own keys, and the gate it shares with the night.

A run spends one error rate over all its gates (``run_alpha``, not a night's ``alpha``) and counts
its steps per epoch (``steps_per_epoch``, not a night's rounds ``steps``). Those two names of the
night are refused here, with the new name, so a file never silently means something else.
"""

from __future__ import annotations

from pydantic import AliasChoices, Field

from .gate import GateSettings

# Keys that once named a training setting, and the name that holds it now.
RENAMED = {
    "alpha": ("run_alpha", "the error rate of the whole run; [night] alpha is one night's"),
    "steps": ("steps_per_epoch", "[night] steps are a night's rounds"),
}


class TrainSettings(GateSettings):
    """A training run: its length, the error rate it spends, and the gate's levels (``rigor``)."""

    epochs: int = Field(
        default=2,
        ge=1,
        le=100,
        validation_alias=AliasChoices("epochs", "num_epochs"),
        description="passes over the training items",
    )
    steps_per_epoch: int = Field(
        default=4, ge=1, le=1000, description="steps (batch, reflect, gate) in each epoch"
    )
    run_alpha: float = Field(
        default=0.05,
        gt=0,
        lt=1,
        description="the chance that any edit that does not help is accepted anywhere in the run, "
        "spent across its gates",
    )
    harm_rollouts: int = Field(
        default=32,
        ge=2,
        le=1024,
        description="fresh rollouts per side on the other items, at least",
    )
