"""``train stage``: a run's best skill as an ordinary staged proposal for a project.

The proposal is a night's in every way that matters to ``review``, ``adopt`` and ``rollback``:
the candidate ``SKILL.md``, its diff against the project's live skill, ``report.md``, and the
live file's hash, so adopting refuses a file changed since. Its summary carries the test report.
It is staged through a night's :class:`~..night.recorder.Recorder`, as a night stages its own.
"""

from __future__ import annotations

from pathlib import Path

from ..clock import Clock
from ..errors import UsageError
from ..models import NightSummary, Proposal
from ..night.pipeline import new_night_id
from ..night.recorder import NightResult, Recorder
from ..paths import Paths
from ..rules.workspace import load_workspace
from ..settings import Settings
from ..store import Store
from .rundir import RunDir


def stage_run(
    run_dir: Path, project: Path, *, settings: Settings, store: Store, paths: Paths, clock: Clock
) -> Proposal | None:
    """Stage the best skill of the finished run in ``run_dir`` for ``project``; None when the run
    accepted no edit (nothing to stage)."""
    run = RunDir(run_dir)
    state, summary = run.state(), run.summary()
    if not run.has_run() or state is None:
        raise UsageError(
            f"no training run in {run_dir}",
            hint="give the --out directory of `skillopt-sleep train`",
        )
    if summary is None:
        raise UsageError(
            f"the run in {run_dir} has not finished",
            hint="run `skillopt-sleep train` again to finish it",
        )
    if not summary.accepted_edits or state.best == (run.path / "initial.md").read_text(
        encoding="utf-8"
    ):
        return None
    workspace = load_workspace(project, settings.files)
    night_id = new_night_id(store, paths, project, clock, prefix="train-")
    gain = summary.gain_hard
    reason = (
        f"trained over {summary.steps} steps and {summary.slow_updates} slow updates; "
        f"best at step {summary.best_step}; test pass rate "
        f"{_num(summary.baseline.test_hard)} -> {_num(summary.best.test_hard)}"
    )
    if gain is not None:
        reason += f" (gain {gain.mean:+.2f}, 95% CI {gain.ci_low:+.2f} to {gain.ci_high:+.2f}, p = {gain.p_value:.3g})"
    night = NightSummary(
        night_id=night_id,
        project=str(project),
        started_at=clock.now(),
        finished_at=clock.now(),
        decision="accept",
        reason=reason,
        n_train=summary.n_train,
        n_holdout=summary.n_test,
        errored_rollouts=summary.errored_rollouts,
        edits=summary.accepted_edits,
        evidence=state.evidence,
        calls=summary.usage.calls,
        tokens=summary.usage.tokens,
        cost_usd=round(summary.usage.cost_usd, 6),
    )
    record = Recorder(NightResult(night, workspace, {"SKILL.md": state.best}), None, clock)
    return record.stage(store, paths.night_dir(night_id))


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"
