"""A night's randomness: one seed, split by purpose, so a seed reproduces a night.

Each purpose (which older tasks are recalled, the tests' own draws, the retries' jitter, the
names of tonight's fresh rollout streams) gets its own generator, derived from the seed and the
night's index in the project's history, never from the clock, the project's path or the order
in which answers arrive. A retry drawn early can then not shift a test's draw, and the same seed,
tasks, files and backend give the same night at any concurrency. The replays' own samples are keyed
by what is drawn (task, sample, stream; see :func:`~.replay.sample_seed`).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass


@dataclass(frozen=True)
class NightSeeds:
    """One generator per purpose, and the name of tonight's fresh rollout streams."""

    select: random.Random  # the recall of older tasks
    trials: random.Random  # the edit tests' draws: unseen tasks, harm sets, Monte Carlo p-values
    retry: random.Random  # the retries' jitter: faults never move a decision
    gate: random.Random  # a whole-night gate's resamples (the benchmarks' baseline)
    stream: str  # new every night, the same on a rerun of this night

    @classmethod
    def of(cls, seed: int, night_index: int) -> NightSeeds:
        """The seeds of the ``night_index``-th night (from 0) of a project under ``seed``."""
        base = f"skillopt-sleep:{seed}:{night_index}"

        def purpose(name: str) -> random.Random:
            digest = hashlib.sha256(f"{base}:{name}".encode()).digest()
            return random.Random(int.from_bytes(digest[:8], "big"))

        stream = hashlib.sha256(f"{base}:stream".encode()).hexdigest()[:8]
        return cls(
            purpose("select"),
            purpose("trials"),
            purpose("retry"),
            purpose("gate"),
            f"n{night_index}-{stream}",
        )
