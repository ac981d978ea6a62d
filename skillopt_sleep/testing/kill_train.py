"""A training run on the simulated backend that kills itself (SIGKILL) in the middle of a step,
for the tests and the benchmark that check a killed run resumes to the same summary::

    python -m skillopt_sleep.testing.kill_train DATA SKILL OUT kill|keep --every N --seed S

``kill``: once ``OUT/state.json`` says two units are finished, the process kills itself at the
next rollout whose count is a multiple of N (mid-way through unit 3); ``keep`` runs to the end
(or resumes a killed run)."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from ..backends.base import Backend
from ..envs import EnvResult, TaskRecordEnv
from ..models import TaskRecord
from ..settings import BudgetSettings


def argv(data: Path, skill: Path, out: Path, mode: str, *, every: int, seed: int) -> list[str]:
    """The command line of one such run, with this Python."""
    return [
        sys.executable,
        "-m",
        "skillopt_sleep.testing.kill_train",
        *(str(data), str(skill), str(out), mode),
        *("--every", str(every), "--seed", str(seed)),
    ]


class KillMidStep(TaskRecordEnv):
    """The task-record environment, killing its process at the chosen rollout."""

    def __init__(self, state: Path, kill: bool, every: int) -> None:
        super().__init__()
        self.state, self.kill, self.every, self.n = state, kill, every, 0

    async def rollout(
        self,
        item: TaskRecord,
        instructions: str,
        backend: Backend,
        *,
        seed: int,
        max_tokens: int = 1024,
    ) -> EnvResult:
        self.n += 1
        if self.kill and self.n % self.every == 0 and _units_done(self.state) == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return await super().rollout(item, instructions, backend, seed=seed, max_tokens=max_tokens)


def _units_done(state: Path) -> int | None:
    try:
        unit = json.loads(state.read_text(encoding="utf-8")).get("unit")
    except (OSError, ValueError):
        return None
    return unit if isinstance(unit, int) else None


def main(args: Sequence[str] | None = None) -> int:
    from .. import TrainConfig, train
    from ..backends.simulated import SimulatedBackend

    ap = argparse.ArgumentParser(prog="python -m skillopt_sleep.testing.kill_train")
    ap.add_argument("data", type=Path)
    ap.add_argument("skill", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("mode", choices=("kill", "keep"))
    ap.add_argument("--every", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    a = ap.parse_args(args)
    train(
        a.data,
        a.skill,
        a.out,
        target=SimulatedBackend(),
        env=KillMidStep(a.out / "state.json", a.mode == "kill", a.every),
        config=TrainConfig(epochs=2, steps_per_epoch=2, seed=a.seed),
        budget=BudgetSettings(max_calls=None, max_tokens=None, max_cost_usd=None),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
