"""The run directory: everything a run did, written so that a killed run resumes exactly.

Layout::

    config.json          the run's configuration (a resumed run must be given the same)
    source.json          where its task set and prompts were read from (``train --resume``)
    prompts.json         which optimizer prompts were used, and where each came from
    state.json           runtime state after the last finished unit: unit, gates spent, the
                         seed the draws derive from, the schedule, the evidence ledger, the
                         current and best skill, the history, the spend
    history.jsonl        one line per finished step or slow update
    initial.md current.md best.md meta_skill.md
    units/0003-e1-s3/    one finished unit: rollouts.jsonl, proposed.json, merged.json,
                         ranked.json, applied.json, evidence.json, reflections.json, and
                         skill.md (the skill after the unit); in the seeds' shapes too,
                         candidate_skill.md (the skill with the edits put before the gate)
                         and edit_apply_report.json (each edit: applied, or skipped and why),
                         and selection_eval/ (results.json, summary.json: the validation
                         rollouts of a skill not scored before, for the best-skill choice)
    baseline_selection_eval/  the validation rollouts of the initial skill (results.json,
                         summary.json), as skillrl writes them
    final_selection_eval/     those of the skill the run ended with, when it is not the best
    test_baseline.jsonl  the test split's rollouts under the initial skill, and under the best
    test_best.jsonl      one (none when the best is the initial skill)
    summary.json         the result, with the test report

A unit's directory is written whole under a temporary name and renamed into place, and
``state.json`` is replaced after it: a run killed at any moment leaves only finished units,
and starts again after the last one. Every random draw of a unit derives from (seed, unit,
purpose), so the unit redone draws exactly what it would have.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ..errors import StoreError, UsageError
from ..models import Edit, EditEvidence, Usage
from ..settings.gate import GateSettings
from ..settings.training import RENAMED
from ..store import atomic_write_text
from .config import StepRecord, TrainConfig, TrainSummary, without_legacy

FREE = frozenset({"concurrency"})  # settings a resumed run may change: they change no draw


class RunState(BaseModel):
    """``state.json``."""

    model_config = ConfigDict(extra="forbid")

    seed: int
    unit: int = 0  # units finished (steps and slow updates, in order)
    gates: int = 0  # gates held so far (each spends its share of alpha)
    alpha_spent: float = 0.0
    schedule: list[int] = Field(default_factory=list)  # the edit budget of every step of the run
    current: str
    best: str
    best_step: int = 0
    best_val: float | None = None
    initial_val: float | None = None
    epoch_start: str  # the skill at the start of the current epoch (for the slow update)
    notes: str = ""  # the meta skill
    ledger: dict[str, float] = Field(default_factory=dict)  # edit key -> log e-value carried
    tried: list[Edit] = Field(default_factory=list)  # edits refused conclusively
    val_cache: dict[str, float | None] = Field(
        default_factory=dict
    )  # skill sha -> validation score
    history: list[StepRecord] = Field(default_factory=list)
    evidence: list[EditEvidence] = Field(default_factory=list)
    usage_by_role: dict[str, Usage] = Field(default_factory=dict)
    errored: int = 0
    stopped: str = ""


def _as_named_now(had: dict[str, object]) -> dict[str, object]:
    """A run's recorded configuration under today's names: a run recorded before the ``[train]``
    section renamed ``alpha`` and ``steps``, and before it held every gate setting (the night's
    defaults, then as now), resumes with the same command; one naming the only gate there is now
    reads as the default, one naming an older gate is refused, naming the fix."""
    try:
        had = without_legacy(had)
    except ValueError as exc:
        raise UsageError(str(exc), hint="or give another --out for a new run") from None
    had = {RENAMED[k][0] if k in RENAMED else k: v for k, v in had.items()}
    gate = TrainConfig().model_dump(mode="json", include=set(GateSettings.model_fields))
    return {**gate, **had}


class RunDir:
    """Reads and writes one run directory."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def has_run(self) -> bool:
        return (self.path / "config.json").is_file()

    def start(
        self,
        config: TrainConfig,
        prompts: dict[str, dict[str, str]],
        data: dict[str, object],
        source: dict[str, str | None] | None = None,
    ) -> None:
        """Record a new run, or check that ``config`` is the one the run in here was started with.
        ``source``: where its task set and prompts were read from, for ``train --resume``."""
        want = config.model_dump(mode="json")
        # A run that finished no unit and recorded no spend holds nothing to resume (a start that
        # failed, or was killed, before its first step): it is started again as given.
        if self.has_run() and self.state() is not None:
            had = _as_named_now(json.loads(self._read("config.json")))
            changed = sorted(
                k for k in set(had) | set(want) if had.get(k) != want.get(k) and k not in FREE
            )
            if json.loads(self._read("prompts.json")) != prompts:
                changed.append("prompts")
            if json.loads(self._read("data.json")) != data:
                changed.append("task set or skill")
            if changed:
                raise UsageError(
                    f"{self.path} holds a run with other settings ({', '.join(changed)})",
                    hint="give the same flags to resume it, or another --out for a new run",
                )
            return
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create {self.path}: {exc.strerror or exc}", hint="choose another --out"
            ) from exc
        self._write("source.json", json.dumps(source or {}, indent=2, sort_keys=True))
        self._write("prompts.json", json.dumps(prompts, indent=2, sort_keys=True))
        self._write("data.json", json.dumps(data, indent=2, sort_keys=True))
        self._write(
            "config.json", json.dumps(want, indent=2, sort_keys=True)
        )  # last: marks the run

    def recorded(self) -> tuple[dict[str, object], dict[str, str | None] | None]:
        """The run's configuration as it was started (under today's names), and where its task
        set and prompts came from (None for a run recorded before that was kept)."""
        config = _as_named_now(json.loads(self._read("config.json")))
        path = self.path / "source.json"
        return config, json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None

    def discard(self) -> None:
        """Remove a run directory this process made and that holds no finished work."""
        if self.state() is None:
            shutil.rmtree(self.path, ignore_errors=True)

    def state(self) -> RunState | None:
        path = self.path / "state.json"
        return (
            RunState.model_validate_json(path.read_text(encoding="utf-8"))
            if path.is_file()
            else None
        )

    def commit(self, name: str, artifacts: dict[str, object], state: RunState) -> None:
        """Write a finished unit's artifacts, then the state that says it is finished."""
        units = self.path / "units"
        final, tmp = units / name, units / f".{name}.tmp"
        for stale in (final, tmp):
            if stale.exists():
                shutil.rmtree(stale)  # left by a run killed between the rename and the state
        tmp.mkdir(parents=True)
        for file, payload in artifacts.items():
            text = (
                payload
                if isinstance(payload, str)
                else json.dumps(payload, indent=2, sort_keys=True, default=str)
            )
            atomic_write_text(tmp / file, text)
        os.replace(tmp, final)
        self.save(state)

    def save(self, state: RunState) -> None:
        self._write("current.md", state.current)
        self._write("best.md", state.best)
        if state.notes:
            self._write("meta_skill.md", state.notes)
        lines = [h.model_dump_json() for h in state.history]
        self._write("history.jsonl", "\n".join(lines) + ("\n" if lines else ""))
        self._write("state.json", state.model_dump_json(indent=2))

    def write_initial(self, skill: str) -> None:
        self._write("initial.md", skill)

    def write_files(self, files: dict[str, object]) -> None:
        """Files of the run's own (a JSON value is written as JSON), each replaced whole."""
        for name, payload in files.items():
            text = (
                payload if isinstance(payload, str) else json.dumps(payload, indent=2, default=str)
            )
            self._write(name, text)

    def write_test(self, which: str, lines: str) -> None:
        """The test split's rollouts under the initial (``baseline``) or the best skill."""
        self._write(f"test_{which}.jsonl", lines)

    def write_summary(self, summary: TrainSummary) -> None:
        self._write(
            "summary.json", json.dumps(summary.model_dump(mode="json"), indent=2, sort_keys=True)
        )

    def summary(self) -> TrainSummary | None:
        path = self.path / "summary.json"
        return (
            TrainSummary.model_validate_json(path.read_text(encoding="utf-8"))
            if path.is_file()
            else None
        )

    def _read(self, name: str) -> str:
        return (self.path / name).read_text(encoding="utf-8")

    def _write(self, name: str, text: str) -> None:
        try:
            atomic_write_text(self.path / name, text)
        except OSError as exc:
            raise StoreError(
                f"cannot write {self.path / name}: {exc.strerror or exc}",
                hint="free some disk space or choose another --out",
            ) from exc
